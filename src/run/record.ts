// One line of episodes.jsonl: what the notebook keeps per episode (§4) plus accounting.
// Field names follow the released code's snake_case (question_idx, n_calls...), so the files read like
// the notebook's logs.
import type { EpisodeOutcome } from '../methods/types.js';
import type { Example } from '../tasks/types.js';

export interface EpisodeError {
  /** 'llm' | 'env' (InfraError), 'internal' (a bug that escaped the method). */
  source: string;
  message: string;
}

/** The outcome fields stored under the same names; the rest are renamed to snake_case below. */
type StoredOutcome = Pick<EpisodeOutcome, 'answer' | 'em' | 'f1' | 'reward' | 'traj' | 'steps' | 'n_calls' | 'n_badcalls'>;

export interface EpisodeRecord extends StoredOutcome {
  question_idx: number;
  question: string;
  gold: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  cost: number;
  latency_ms: number;
  /** Completion calls served entirely from the cache. */
  cached_calls: number;
  error: EpisodeError | null;
  /** CoT-SC: each sample's answer, in sample order (the Figure 2 sweep and the combinations read it). */
  samples?: (string | null)[];
  /** CoT-SC: each sample's raw completion (the reasoning chains behind `samples`). */
  completions?: string[];
  majority_votes?: number;
  /** ReAct/Act: the episode ended by the forced finish[] after the step limit. */
  forced_finish?: boolean;
  /** Combinations: which base run's answer was used. */
  answer_from?: string;
}

export interface CallStats {
  calls: number;
  cachedCalls: number;
}

export function recordFromOutcome(ex: Example, o: EpisodeOutcome, latencyMs: number, stats: CallStats): EpisodeRecord {
  const r: EpisodeRecord = {
    question_idx: ex.index,
    question: ex.question,
    gold: ex.answer,
    answer: o.answer,
    em: o.em,
    f1: o.f1,
    reward: o.reward,
    traj: o.traj,
    steps: o.steps,
    n_calls: o.n_calls,
    n_badcalls: o.n_badcalls,
    usage: {
      prompt_tokens: o.usage.promptTokens,
      completion_tokens: o.usage.completionTokens,
      total_tokens: o.usage.totalTokens,
    },
    cost: o.costUsd,
    latency_ms: Math.round(latencyMs),
    cached_calls: stats.cachedCalls,
    error: null,
  };
  if (o.samples) r.samples = o.samples;
  if (o.completions) r.completions = o.completions;
  if (o.majorityVotes !== undefined) r.majority_votes = o.majorityVotes;
  if (o.forcedFinish !== undefined) r.forced_finish = o.forcedFinish;
  return r;
}

/** An infrastructure failure (InfraError) is recorded as an error, never scored as a wrong answer. */
export function errorRecord(ex: Example, error: EpisodeError, latencyMs: number, stats: CallStats): EpisodeRecord {
  return {
    question_idx: ex.index,
    question: ex.question,
    gold: ex.answer,
    answer: null,
    em: 0,
    f1: 0,
    reward: 0,
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
