// The recording layer of an episode's model chain: every model call of an attempt becomes one "llm"
// line of recording.jsonl (src/run/run-recording.ts), answered or not, with the completion cache key
// and the call's own accounting, so a replay rebuilds the episode record byte for byte. A call the
// budget refuses is recorded too (its error says so; it was never sent).
import { around, type ModelLayer } from '../../llm/layer.js';
import { cacheKey } from '../../llm/cache.js';
import type { TokenUsage } from '../../llm/types.js';
import { recordError } from '../../envs/recording.js';
import type { CallSink } from '../run-recording.js';

const tokenUsage = (u: TokenUsage): TokenUsage => ({
  promptTokens: u.promptTokens,
  completionTokens: u.completionTokens,
  totalTokens: u.totalTokens,
});

export function recordingLayer(t: CallSink): ModelLayer {
  let calls = 0;
  return (inner) =>
    around(inner, async (req, opts) => {
      const base = {
        t: 'llm' as const,
        item: t.item,
        attempt: t.attempt,
        call: calls++,
        step: t.cursor.steps + 1,
        key: cacheKey(inner.model, t.api, req),
        n: req.n,
      };
      let res;
      try {
        res = await inner.complete(req, opts);
      } catch (e) {
        t.write({ ...base, error: recordError(e, opts?.signal) });
        throw e;
      }
      t.write({
        ...base,
        choices: res.choices.map((c) => ({ text: c.text, finishReason: c.finishReason })),
        cached: res.cachedChoices,
        usage: tokenUsage(res.usage),
        cost: res.costUsd,
        ...(res.total ? { total: { usage: tokenUsage(res.total.usage), costUsd: res.total.costUsd } } : {}),
      });
      return res;
    });
}
