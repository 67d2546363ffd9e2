// The model chain of one episode attempt, built and defined in one place. A call passes, in order:
//   recording  its line in recording.jsonl (src/run/run-recording.ts), answered, failed or refused
//   budget     --max-cost: holds the call's admission until it is released (src/run/budget.ts)
//   metering   the episode's meter counts it (src/run/meter.ts)
//   cache      answered from the completion cache, or sent and stored (src/llm/cache/layer.ts cacheLayer)
//   admission  a request the cache could not answer is admitted by the budget (perhaps after waiting for
//              calls in flight to settle), or refused (a clean stop)
//   the backend (src/llm/openai-model.ts, the local llama model, a bundle's answers, a test double)
// A cache hit costs nothing, so it is never refused (a re-run from the cache under --max-cost runs
// whole); what an admitted request cost is counted by the meter before its admission is released.
// Each is a ModelLayer (src/llm/layer.ts). The cache layer wraps the run's one CacheStore (opened once
// per run): one file and one lock per request key serve every episode of the process.
import { around, chain, type ModelLayer } from '../llm/layer.js';
import { ConversationKeyer, forgetSharedCacheKey, sharedCacheKey } from '../llm/cache/key.js';
import { cacheLayer } from '../llm/cache/layer.js';
import type { CacheStore } from '../llm/cache/store.js';
import type { CompletionModel, CompletionRequest, CompletionResult, TokenUsage } from '../llm/types.js';
import { recordError } from '../envs/recording.js';
import type { Prices } from '../llm/pricing.js';
import { BudgetStop, estimateCallUsd, type Budget, type BudgetRelease } from './budget.js';
import { isInFlightAbort, type EpisodeMeter } from './meter.js';
import type { CallSink } from './run-recording.js';

export interface EpisodeChain {
  /** The backend (or a test double). */
  model: CompletionModel;
  /** The run's cache store (absent: no cache layer, e.g. a bundle's answers or a test double). */
  cache?: CacheStore;
  meter: EpisodeMeter;
  /** Where the attempt's calls are recorded (absent: not recorded). */
  recording?: CallSink;
  /** --max-cost: the invocation's budget and the model's prices; onStop runs when it refuses a call. */
  budget?: { budget: Budget; prices: Prices | null; onStop: (stop: BudgetStop) => void };
}

/** The model a method gets for one attempt of an episode. */
export function episodeModel(c: EpisodeChain): CompletionModel {
  const layers: ModelLayer[] = [];
  if (c.recording) layers.push(recordingLayer(c.recording));
  if (c.budget) layers.push(budgetLayer(c.budget.budget, c.budget.prices, c.budget.onStop));
  layers.push(meteringLayer(c.meter));
  if (c.cache) layers.push(cacheLayer(c.cache));
  if (c.budget) layers.push(admissionLayer);
  return chain(c.model, layers);
}

const tokenUsage = (u: TokenUsage): TokenUsage => ({
  promptTokens: u.promptTokens,
  completionTokens: u.completionTokens,
  totalTokens: u.totalTokens,
});

/**
 * Recording: every model call of an attempt becomes one "llm" line of recording.jsonl, answered or
 * not, with the completion cache key and the call's own accounting, so a replay rebuilds the episode
 * record byte for byte. A call the budget refuses is recorded too (its error says so; it was never sent).
 */
export function recordingLayer(t: CallSink): ModelLayer {
  let calls = 0;
  // The attempt's calls are one conversation: each prompt extends the last (src/llm/cache/key.ts).
  const keyer = new ConversationKeyer();
  return (inner) =>
    around(inner, async (req, opts) => {
      const base = {
        t: 'llm' as const,
        item: t.item,
        attempt: t.attempt,
        call: calls++,
        step: t.cursor.steps + 1,
        // Computed once per call: the cache store below takes this same key (src/llm/cache/key.ts).
        key: sharedCacheKey(inner.model, t.api, req, keyer),
        n: req.n,
      };
      let res;
      try {
        res = await inner.complete(req, opts);
      } catch (e) {
        t.write({ ...base, error: recordError(e, opts?.signal) });
        throw e;
      } finally {
        forgetSharedCacheKey(req);
      }
      t.write({
        ...base,
        choices: res.choices.map((c) => ({ text: c.text, finishReason: c.finishReason })),
        cached: res.cachedChoices,
        usage: tokenUsage(res.usage),
        cost: res.costUsd,
        ...(res.usageUnknown ? { usageUnknown: true as const } : {}),
        ...(res.replayed ? { replayed: true as const } : {}),
        ...(res.total ? { total: { ...res.total, usage: tokenUsage(res.total.usage) } } : {}),
      });
      return res;
    });
}

/**
 * Budget (--max-cost): each request the cache cannot answer is admitted first, at its estimated cost
 * (by the admission layer below the cache; it may wait there for the calls in flight to settle), or
 * refused with a BudgetStop (the runner then stops the run). The admission is held here, above the metering layer, until the call has returned and the
 * meter counted what it really cost, so the budget never sees a paid call as neither in flight nor spent.
 */
export function budgetLayer(budget: Budget, prices: Prices | null, onStop: (stop: BudgetStop) => void): ModelLayer {
  return (inner) =>
    around(inner, async (req, opts) => {
      let release: BudgetRelease | undefined;
      // Called by admissionLayer once at most: the metering and cache layers between send at most one
      // request per call (none for a cache hit). Waits while the calls in flight may still fill the
      // budget; an interrupt ends the wait (src/run/budget.ts).
      const admit = async (sent: CompletionRequest) => {
        if (release) throw new Error('a call was admitted twice');
        release = await budget.begin(estimateCallUsd(sent, prices), opts?.signal ? { signal: opts.signal } : {});
      };
      let res: CompletionResult | undefined;
      try {
        res = await inner.complete(req, { ...opts, admit });
        return res;
      } catch (e) {
        if (e instanceof BudgetStop) onStop(e);
        throw e;
      } finally {
        // A call answered without usage keeps its estimate: the budget cannot know what it cost.
        release?.(res?.usageUnknown === true);
      }
    });
}

/**
 * Where the budget admits a request: right above the backend, below the cache (see budgetLayer). The
 * admission ends here: the backend is not handed it, so a request is admitted once.
 */
export const admissionLayer: ModelLayer = (inner) =>
  around(inner, async (req, opts) => {
    const { admit, ...rest } = opts ?? {};
    await admit?.(req);
    return inner.complete(req, rest);
  });

/**
 * Metering: every call, answered or not, goes to the episode's meter, the one source of the record's
 * tokens and cost and of what the session spent. It sits right above the cache, so it sees what each
 * call really cost (a cache hit: nothing spent, `total` what it stands for).
 */
export function meteringLayer(meter: EpisodeMeter): ModelLayer {
  return (inner) =>
    around(inner, async (req, opts) => {
      meter.asked();
      let res;
      try {
        res = await inner.complete(req, opts);
      } catch (e) {
        // Classified as the recording classifies it (a budget refusal was never sent).
        meter.failed(isInFlightAbort(recordError(e, opts?.signal)));
        throw e;
      }
      meter.answered(req, res);
      return res;
    });
}
