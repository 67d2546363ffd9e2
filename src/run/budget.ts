// --max-cost USD (README "Reliability"): a spending limit for one invocation of `run` (all runs of an experiment
// file together), read from the meter (src/run/meter.ts). Before each request the cache cannot answer
// (the admission layer of the episode's model chain, src/run/model-chain.ts; a cache hit costs nothing
// and is never refused) the request's cost is estimated (prompt chars/4 tokens plus
// max_tokens × n completion tokens, at the model's prices: an upper bound for the completion); when
// the spend so far, plus what calls in flight may still cost, plus this call would pass the budget,
// the call is not made and the run stops like an interrupt: in-flight episodes are dropped (their
// completions are in the cache, so resuming does not pay for them twice), the summary is written,
// and the same command resumes.
import { estimateTokens } from '../llm/limits.js';
import { RunStop, UserError } from '../errors.js';
import { costUsd, isUnpriced, type PriceInfo, type Prices } from '../llm/pricing.js';
import type { CompletionRequest } from '../llm/types.js';
import { SpendMeter } from './meter.js';
import { usd } from '../util/money.js';

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

export class Budget {
  /** Estimates of the calls in flight. */
  private inFlight = 0;
  /** Estimates kept for calls answered without usage: what they cost is unknown, so the budget assumes the most. */
  private unreported = 0;
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

  /**
   * Admits a call of estimated cost `estimate`, or throws BudgetStop (and remembers it) when the
   * call could pass the budget. The returned release() ends the estimate once the call has returned
   * (and the meter counted what it cost) or failed; release(true), for a call answered without usage,
   * keeps its estimate counted for good.
   */
  begin(estimate: number): (unreported?: boolean) => void {
    if (this.stopped) throw this.stopped;
    if (this.spent + this.unreported + this.inFlight + estimate > this.maxUsd) {
      this.stopped = new BudgetStop(
        `stopped at the --max-cost budget of ${usd(this.maxUsd)}: ${usd(this.spent)} spent by this command when it stopped` +
          (this.unreported > 0 ? ` (plus up to ${usd(this.unreported)} for calls answered without usage)` : '') +
          (this.inFlight > 0 ? ` (up to ${usd(this.inFlight)} more in flight)` : '') +
          `, and the next call (up to ${usd(estimate)}) could pass it`,
      );
      throw this.stopped;
    }
    this.inFlight += estimate;
    let released = false;
    return (unreported = false) => {
      if (released) return;
      released = true;
      this.inFlight -= estimate;
      if (unreported) this.unreported += estimate;
    };
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
