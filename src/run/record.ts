// One line of episodes.jsonl (run-log schema 2): the item, its scores under the benchmark's declared
// metrics, the notebook's "traj" and steps, and accounting. Benchmark- and method-specific fields
// (CoT-SC samples, forced_finish, ALFWorld task_type, WebShop instruction...) sit beside them under
// their own snake_case names. Written and read only through src/run/run-log.ts.
import type { EpisodeResult, StepRecord } from '../methods/types.js';
import type { Item } from '../benchmarks/types.js';

export interface EpisodeError {
  /** 'llm' | 'env' (InfraError), 'internal' (a bug that escaped the method). */
  source: string;
  message: string;
}

export interface EpisodeRecord {
  /** The item's index in its benchmark (HotpotQA question_idx, ALFWorld game index, WebShop session number). */
  idx: number;
  /** The item as a person names it (question text, game name, session id). */
  item: string;
  /** The task text (question, claim, ALFWorld goal, WebShop instruction) where known. */
  input: string;
  gold: string | null;
  answer: string | null;
  /** One value in [0, 1] per metric the benchmark declares (0 for error records). */
  metrics: Record<string, number>;
  /** The last environment step's reward (QA: the wrapper's int(EM)); null without an environment. */
  reward: number | null;
  traj: string;
  steps: StepRecord[];
  n_calls: number;
  n_badcalls: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  cost: number;
  latency_ms: number;
  /** Completion calls served entirely from the cache. */
  cached_calls: number;
  error: EpisodeError | null;
  /** Benchmark- and method-specific fields (samples, completions, majority_votes, forced_finish...). */
  [extra: string]: unknown;
}

/** The fields every record has; anything else is an extra. */
export const CORE_RECORD_FIELDS = new Set([
  'idx', 'item', 'input', 'gold', 'answer', 'metrics', 'reward', 'traj', 'steps', 'n_calls', 'n_badcalls', 'usage',
  'cost', 'latency_ms', 'cached_calls', 'error',
]);

export function recordExtras(r: EpisodeRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (!CORE_RECORD_FIELDS.has(k)) out[k] = v;
  return out;
}

export interface CallStats {
  calls: number;
  cachedCalls: number;
}

/** A finished episode as its record: the result, scored once by the benchmark's scorer. */
export function recordFromResult(item: Item, r: EpisodeResult, metrics: Record<string, number>, latencyMs: number, stats: CallStats): EpisodeRecord {
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
    usage: { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens, total_tokens: r.usage.totalTokens },
    cost: r.costUsd,
    latency_ms: Math.round(latencyMs),
    cached_calls: stats.cachedCalls,
    error: null,
    ...(r.extra ?? {}),
  };
}

/** An infrastructure failure (InfraError) is recorded as an error, never scored as a wrong answer. */
export function errorRecord(item: Item, error: EpisodeError, latencyMs: number, stats: CallStats, metricKeys: readonly string[]): EpisodeRecord {
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
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    cost: 0,
    latency_ms: Math.round(latencyMs),
    cached_calls: stats.cachedCalls,
    error,
  };
}
