// A finished episode as its episodes.jsonl line (src/runlog/schema.ts EpisodeRecord): the result
// scored once, or an error record, with the calls the runner tallied. The store writes it.
import type { EpisodeError, EpisodeRecord, EpisodeResult, Item, RecordUsage } from '../runlog/schema.js';
import type { CompletionResult, TokenUsage } from '../llm/types.js';

export interface CallStats {
  calls: number;
  cachedCalls: number;
  /**
   * Usage and cost of the episode's calls as the runner saw them (tallyCall): every call, and the part
   * that went to the model. Absent when the runner does not tally (the record then has no spent_*).
   */
  usage?: { total: TokenUsage; spent: TokenUsage; cost: number; spentCost: number };
}

/** The usage a completion result reports for every call, cache hits included (src/llm/cache.ts sets `total` on hits). */
export function totalOfResult(res: CompletionResult): { usage: TokenUsage; costUsd: number } {
  const t = (res as CompletionResult & { total?: { usage: TokenUsage; costUsd: number } }).total;
  return t ?? { usage: res.usage, costUsd: res.costUsd };
}

/** Counts one returned call into an episode's stats: cached or not, all of its tokens, and what was spent. */
export function tallyCall(stats: CallStats, res: CompletionResult): void {
  if (res.choices.length > 0 && res.cachedChoices >= res.choices.length) stats.cachedCalls++;
  const u = (stats.usage ??= { total: zero(), spent: zero(), cost: 0, spentCost: 0 });
  const total = totalOfResult(res);
  add(u.total, total.usage);
  add(u.spent, res.usage);
  u.cost += total.costUsd;
  u.spentCost += res.costUsd;
}

const zero = (): TokenUsage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
function add(a: TokenUsage, b: TokenUsage): void {
  a.promptTokens += b.promptTokens;
  a.completionTokens += b.completionTokens;
  a.totalTokens += b.totalTokens;
}
const recordUsage = (u: TokenUsage): RecordUsage => ({
  prompt_tokens: u.promptTokens,
  completion_tokens: u.completionTokens,
  total_tokens: u.totalTokens,
});

/** A finished episode as its record: the result, scored once by the benchmark's scorer. */
export function recordFromResult(
  item: Item,
  r: EpisodeResult,
  metrics: Record<string, number>,
  latencyMs: number,
  stats: CallStats,
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
    usage: recordUsage(r.usage),
    cost: r.costUsd,
    // The runner's tally knows which calls the cache served; without it the record says nothing.
    ...(stats.usage ? { spent_usage: recordUsage(stats.usage.spent), spent_cost: stats.usage.spentCost } : {}),
    latency_ms: Math.round(latencyMs),
    cached_calls: stats.cachedCalls,
    error: null,
    ...(r.extra ?? {}),
  };
}

/** An infrastructure failure (InfraError) is recorded as an error, never scored as a wrong answer. */
export function errorRecord(
  item: Item,
  error: EpisodeError,
  latencyMs: number,
  stats: CallStats,
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
    n_calls: stats.calls,
    n_badcalls: 0,
    // The calls made before the failure, as far as the runner tallied them.
    usage: stats.usage ? recordUsage(stats.usage.total) : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    cost: stats.usage?.cost ?? 0,
    ...(stats.usage ? { spent_usage: recordUsage(stats.usage.spent), spent_cost: stats.usage.spentCost } : {}),
    latency_ms: Math.round(latencyMs),
    cached_calls: stats.cachedCalls,
    error,
  };
}
