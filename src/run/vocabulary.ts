// The run log's vocabulary, shared by benchmarks, methods, the runner and the report: an item, a step,
// what an episode produced, a metric. A leaf module (it imports nothing), so the contract
// (src/benchmarks/types.ts), the methods and the run log can all depend on it without a cycle.

/** The run-log schema this version writes (manifest.schema). */
export const RUN_LOG_SCHEMA = 2;

/** One unit of evaluation: a question or claim, a game, a shopping session. */
export interface Item {
  /** Position in the benchmark's full item list; the key of its episode record. */
  index: number;
  /** What a person calls it: the question text, the game name, the session id. */
  id: string;
  /** The task text as far as it is known before reset (question, claim; '' when the env tells it). */
  input: string;
  /** The gold answer, where the benchmark has one (HotpotQA answer, FEVER label). */
  gold?: string;
  meta?: Record<string, unknown>;
}

export interface Split {
  benchmark: string;
  name: string;
  /** How the split was made, for --help, `data sample` and the run manifest. */
  description: string;
  /** Item indices, in run order. */
  indices: number[];
}

/** A score a benchmark reports: every metric is a per-episode number in [0, 1], shown as mean × 100. */
export interface MetricDef {
  key: string;
  /** Column label ("EM", "F1", "Acc", "Success", "Score"). */
  label: string;
}

/** One Thought/Action/Observation turn (thought absent for Act and for ALFWorld/WebShop turns). */
export interface StepRecord {
  step: number;
  thought?: string;
  action: string;
  observation: string;
  /** The environment's reward for this step (ALFWorld/WebShop; absent for HotpotQA/FEVER). */
  reward?: number;
  /** True when the completion did not split into thought and action (the bad-call fallback ran). */
  badcall?: boolean;
  /** True when the model gave an empty action (the released code would crash; we step it as invalid). */
  emptyAction?: boolean;
  /** True when a completion of this turn ended on max_tokens (finish_reason "length"). */
  maxTokensStop?: boolean;
  /** --context-overflow truncate: how many earlier turns were left out of this turn's prompt. */
  turnsDropped?: number;
}

/**
 * What one episode produced, before scoring. The runner scores it once, with the benchmark's scorer
 * (Benchmark.score), and writes the record; its tokens and cost are the meter's (src/run/meter.ts).
 */
export interface EpisodeResult {
  /** The final answer where the benchmark has one (QA: finish[...] or "Answer:"); null otherwise. */
  answer: string | null;
  /** The environment's info of the last step (won, reward...), for the scorer. */
  finalInfo?: Record<string, unknown>;
  /** The reward of the last environment step (0 when the episode never ended). */
  reward?: number;
  /** True when the environment said done. */
  done?: boolean;
  /** The notebook's "traj": the full final prompt (interactive), or prompt + completion. */
  traj: string;
  steps: StepRecord[];
  n_calls: number;
  n_badcalls: number;
  /** Method- or benchmark-specific fields written into the record as they are (snake_case keys). */
  extra?: Record<string, unknown>;
}

/** The part of a scored episode record (src/run/record.ts) the error analysis reads. */
export interface AnalysedEpisode {
  idx: number;
  metrics: Record<string, number>;
  steps: Pick<StepRecord, 'action' | 'observation'>[];
  /** Benchmark- and method-specific record fields (forced_finish, samples...). */
  [extra: string]: unknown;
}

/** A label a person gives a sampled trajectory, or a tag the trajectory shows by itself. */
export interface AnalysisLabel {
  /** Written in the labels CSV; a category key starts with success_ (correct) or failure_ (incorrect). */
  key: string;
  /** Row label in the tables. */
  label: string;
}

/** What one invocation (or a whole run) paid for: answered calls that went to the model. */
export interface Spend {
  /** Answered calls that went to the model (cache misses and top-ups). */
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  /** Calls aborted in flight (interrupt, budget stop, kill): the server may have billed them. */
  paid_unknown_calls: number;
}
