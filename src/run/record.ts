// A finished episode as its episodes.jsonl line (src/runlog/schema.ts EpisodeRecord): the result
// scored once, or an error record, with the accounting of the episode's meter. The store writes it.
import type { EpisodeError, EpisodeRecord, EpisodeResult, Item, RecordUsage } from '../runlog/schema.js';
import type { TokenUsage } from '../llm/types.js';
import { noTally, type EpisodeMeter, type Tally } from './meter.js';

const recordUsage = (u: TokenUsage): RecordUsage => ({
  prompt_tokens: u.promptTokens,
  completion_tokens: u.completionTokens,
  total_tokens: u.totalTokens,
});

/**
 * A record's accounting from the episode's meter (src/run/meter.ts): what its calls stand for, cache hits
 * included, and what went to the model; a record made without a meter (a combination) has none.
 */
function accounting(meter: EpisodeMeter | null, usage: Tally) {
  return {
    usage: recordUsage(usage.usage),
    cost: usage.costUsd,
    ...(usage.unknownCalls > 0 ? { usage_unknown_calls: usage.unknownCalls } : {}),
    // Only an episode some call of which was answered says what it spent.
    ...(meter && meter.answers > 0 ? { spent_usage: recordUsage(meter.spent.usage), spent_cost: meter.spent.costUsd } : {}),
    // Which of its calls without usage went to the model (the rest were cache hits, which spent nothing):
    // written, 0 included, wherever a call came without usage, so a record with such calls and without
    // the field is one written before it existed (src/run/meter.ts episodeCostStandings); every other
    // record is as before.
    ...(meter && (usage.unknownCalls > 0 || meter.spent.unknownCalls > 0) ? { spent_usage_unknown_calls: meter.spent.unknownCalls } : {}),
    ...(meter?.unpriced ? { cost_unpriced: true as const } : {}),
  };
}

/** A finished episode as its record: the result, scored once by the benchmark's scorer. */
export function recordFromResult(
  item: Item,
  r: EpisodeResult,
  metrics: Record<string, number>,
  latencyMs: number,
  meter: EpisodeMeter | null,
): EpisodeRecord {
  return {
    idx: item.index,
    item: item.id,
    input: item.input,
    gold: item.gold ?? null,
    answer: r.answer,
    metrics,
    reward: r.reward ?? null,
    traj: r.traj,
    steps: r.steps,
    n_calls: r.n_calls,
    n_badcalls: r.n_badcalls,
    // The attempt kept (an episode restarted on another environment server counts its last attempt).
    ...accounting(meter, meter?.attempt ?? noTally()),
    latency_ms: Math.round(latencyMs),
    cached_calls: meter?.cachedCalls ?? 0,
    error: null,
    ...(r.extra ?? {}),
  };
}

/** An infrastructure failure (InfraError) is recorded as an error, never scored as a wrong answer. */
export function errorRecord(
  item: Item,
  error: EpisodeError,
  latencyMs: number,
  meter: EpisodeMeter,
  metricKeys: readonly string[],
): EpisodeRecord {
  return {
    idx: item.index,
    item: item.id,
    input: item.input,
    gold: item.gold ?? null,
    answer: null,
    metrics: Object.fromEntries(metricKeys.map((k) => [k, 0])),
    reward: null,
    traj: '',
    steps: [],
    n_calls: meter.calls,
    n_badcalls: 0,
    // The calls made before the failure, every attempt's.
    ...accounting(meter, meter.used),
    latency_ms: Math.round(latencyMs),
    cached_calls: meter.cachedCalls,
    error,
  };
}
