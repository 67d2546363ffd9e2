// --max-cost USD (README "Reliability"): a spending limit for one invocation of `run` (all runs of an experiment
// file together), read from the meter (src/run/meter.ts). Before each request the cache cannot answer
// (the admission layer of the episode's model chain, src/run/model-chain.ts; a cache hit costs nothing
// and is never refused) the request's cost is estimated (prompt chars/4 tokens plus
// max_tokens × n completion tokens, at the model's prices: an upper bound for the completion). A call
// is admitted when the spend so far, plus what the calls in flight may still cost (their estimates),
// plus its own estimate stays within the budget, so the spend never passes it. A call that would pass
// it only because of calls still in flight waits, in arrival order, until they settle (they then count
// at what they really cost) and is admitted once it fits. When the call could pass the budget even
// with nothing else in flight, it is not made and the run stops like an interrupt: in-flight episodes
// are dropped (their completions are in the cache, so resuming does not pay for them twice), the
// summary is written, and the same command resumes. Waiting never deadlocks: a call waits only while
// another is in flight, and every release decides the waiting calls again.
import { estimateTokens } from '../llm/limits.js';
import { RunStop, UserError } from '../errors.js';
import { costUsd, isUnpriced, type PriceInfo, type Prices } from '../llm/pricing.js';
import { AbortedUnsentError, type CompletionRequest } from '../llm/types.js';
import { SpendMeter, spendStanding } from './meter.js';
import { usd, usdText } from '../util/money.js';

/** Prompt tokens of a text by the chars/4 rule (the same estimate the rate limiter uses). */
export function estimatePromptTokens(prompt: string): number {
  return estimateTokens(prompt.length, 0, 0);
}

/** Upper-bound cost of one call: chars/4 prompt tokens, max_tokens for each of the n samples. */
export function estimateCallUsd(req: Pick<CompletionRequest, 'prompt' | 'maxTokens' | 'n'>, prices: Prices | null): number {
  if (!prices) return 0;
  return costUsd({ promptTokens: estimatePromptTokens(req.prompt), completionTokens: req.maxTokens * req.n }, prices);
}

/** Thrown into an episode whose next call would pass the budget (the runner drops that episode). */
export class BudgetStop extends RunStop {
  override readonly name = 'BudgetStop';
}

/** Ends a call's admission; `unreported`: the call was answered without usage, so its estimate stays counted. */
export type BudgetRelease = (unreported?: boolean) => void;

interface Waiting {
  estimate: number;
  admit: (release: BudgetRelease) => void;
  refuse: (e: Error) => void;
}

export class Budget {
  /** Estimates of the calls in flight, and how many they are. */
  private inFlight = 0;
  private inFlightCalls = 0;
  /** Estimates kept for calls answered without usage: what they cost is unknown, so the budget assumes the most. */
  private unreported = 0;
  /** Calls waiting for those in flight to settle, in arrival order. */
  private readonly waiting: Waiting[] = [];
  /** Set when the budget stopped the run. */
  stopped: BudgetStop | null = null;

  /**
   * @param meter what this invocation spent: every run's session meter adds to it (src/run/meter.ts),
   * so admission counts what the calls really cost, cache hits at zero.
   */
  constructor(
    readonly maxUsd: number,
    readonly meter: SpendMeter = new SpendMeter(),
  ) {
    if (!(maxUsd >= 0) || !Number.isFinite(maxUsd)) throw new RangeError(`budget must be a non-negative number, got ${maxUsd}`);
  }

  /** USD spent by calls of this invocation that returned (the meter's figure). */
  get spent(): number {
    return this.meter.costUsd;
  }

  /** What no settling call can lower: the spend and the estimates kept for calls answered without usage. */
  private get settled(): number {
    return this.spent + this.unreported;
  }

  /**
   * Admits a call of estimated cost `estimate`: at once when it fits beside the calls in flight; after
   * they settle when it fits only then; or refuses it with BudgetStop (remembered: every later call is
   * refused too) when it could pass the budget with nothing else in flight. A call refused while
   * waiting because `signal` aborted gets an AbortedUnsentError (it was never sent, so never billed).
   * A call is admitted once (src/run/model-chain.ts admissionLayer), so it never waits on itself. The
   * returned release ends the estimate once the call has returned (and the meter counted what it cost)
   * or failed.
   */
  begin(estimate: number, opts: { signal?: AbortSignal } = {}): Promise<BudgetRelease> {
    if (this.stopped) return Promise.reject(this.stopped);
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(new AbortedUnsentError(signal.reason));
    return new Promise<BudgetRelease>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(w);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(new AbortedUnsentError(signal?.reason));
        this.decide(); // it may have been the call the others waited behind
      };
      const w: Waiting = {
        estimate,
        admit: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        refuse: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(w);
      this.decide();
    });
  }

  /** Admits the waiting calls, first come first served, while the first one fits; stops when it never can. */
  private decide(): void {
    while (this.waiting.length > 0 && !this.stopped) {
      const w = this.waiting[0];
      if (this.settled + w.estimate > this.maxUsd) {
        this.stop(w.estimate);
        return;
      }
      // It fits once the calls in flight settle (at most at their estimates): until then it waits.
      if (this.settled + this.inFlight + w.estimate > this.maxUsd) return;
      this.waiting.shift();
      w.admit(this.admit(w.estimate));
    }
  }

  private admit(estimate: number): BudgetRelease {
    this.inFlight += estimate;
    this.inFlightCalls++;
    let released = false;
    return (unreported = false) => {
      if (released) return;
      released = true;
      this.inFlightCalls--;
      // With none in flight the sum is exactly 0, not what float subtraction leaves of it.
      this.inFlight = this.inFlightCalls === 0 ? 0 : this.inFlight - estimate;
      if (unreported) this.unreported += estimate;
      this.decide();
    };
  }

  /** Stops the run, refusing every waiting call: the next call (of `estimate`) could pass the budget with nothing in flight. */
  private stop(estimate: number): void {
    // The spend as every output states it (src/run/meter.ts costStanding): "≥" when calls without usage are
    // left out (not free: calls estimated at rates of 0 never reach a budget).
    const spent = usdText(this.spent, spendStanding(this.meter.spent));
    this.stopped = new BudgetStop(
      `stopped at the --max-cost budget of ${usd(this.maxUsd)}: ${spent ?? 'an unknown amount'} spent by this command when it stopped` +
        (this.unreported > 0 ? ` (${spent ? 'plus ' : ''}up to ${usd(this.unreported)} for calls answered without usage)` : '') +
        `, and the next call (up to ${usd(estimate)}) could pass it`,
    );
    for (const w of this.waiting.splice(0)) w.refuse(this.stopped);
  }
}

/**
 * A budget that could not be kept: the budget counts calls at the model's prices, and a model billed at
 * a rate we do not know would count as free, so no call would ever be refused.
 */
export function unpricedBudget(model: string | null): UserError {
  return new UserError(
    `--max-cost: no price is known for the model${model ? ` ${model}` : ''}, so the budget cannot count its calls; ` +
      'give --price-prompt and --price-completion (USD per 1M tokens; 0 for a server that bills nothing)',
  );
}

/** Refuses --max-cost before any run of the invocation starts when one of them has no known price. */
export function requireKnownPrices(prices: readonly PriceInfo[]): void {
  const unpriced = prices.find(isUnpriced);
  if (unpriced && !('error' in unpriced)) throw unpricedBudget(unpriced.model);
}
