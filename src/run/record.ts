// One line of episodes.jsonl (run-log schema 2): the item, its scores under the benchmark's declared
// metrics, the notebook's "traj" and steps, and accounting. Benchmark- and method-specific fields
// (CoT-SC samples, forced_finish, ALFWorld task_type, WebShop instruction...) sit beside them under
// their own snake_case names. Written and read only through src/run/run-log.ts.
import type { EpisodeResult, Item, StepRecord } from './vocabulary.js';
import type { TokenUsage } from '../llm/types.js';
import { noTally, type EpisodeMeter, type Tally } from './meter.js';

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
  /** Tokens of every model call of the episode, cache hits included (a replayed run is not "free"). */
  usage: RecordUsage;
  /** Cost in USD of every call at the run's prices, cache hits included. */
  cost: number;
  /**
   * Tokens and cost of the calls that went to the model (cache misses): what the episode spent. Absent
   * in schema-1 records and in records written before it existed: read them with spentOf (spent = total).
   */
  spent_usage?: RecordUsage;
  spent_cost?: number;
  latency_ms: number;
  /** Completion calls served entirely from the cache. */
  cached_calls: number;
  error: EpisodeError | null;
  /** Benchmark- and method-specific fields (samples, completions, majority_votes, forced_finish...). */
  [extra: string]: unknown;
}

export interface RecordUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The fields every record has; anything else is an extra. */
export const CORE_RECORD_FIELDS = new Set([
  'idx',
  'item',
  'input',
  'gold',
  'answer',
  'metrics',
  'reward',
  'traj',
  'steps',
  'n_calls',
  'n_badcalls',
  'usage',
  'cost',
  'spent_usage',
  'spent_cost',
  'latency_ms',
  'cached_calls',
  'error',
]);

/** What an episode spent (calls that went to the model); records without the field spent what they used. */
export function spentOf(r: Pick<EpisodeRecord, 'usage' | 'cost' | 'spent_usage' | 'spent_cost'>): { usage: RecordUsage; cost: number } {
  return { usage: r.spent_usage ?? r.usage ?? { ...NO_USAGE }, cost: r.spent_cost ?? r.cost ?? 0 };
}

const NO_USAGE: RecordUsage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export function recordExtras(r: EpisodeRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (!CORE_RECORD_FIELDS.has(k)) out[k] = v;
  return out;
}

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
    // Only an episode some call of which was answered says what it spent.
    ...(meter && meter.answers > 0 ? { spent_usage: recordUsage(meter.spent.usage), spent_cost: meter.spent.costUsd } : {}),
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
