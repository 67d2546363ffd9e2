// The run log's vocabulary: every shape a run folder holds, shared by benchmarks, methods, the runner
// and the report. An item, a step, what an episode produced, a metric; one line of episodes.jsonl
// (EpisodeRecord) in both run-log schemas and the upgrade from the old one; manifest.json
// (RunManifest) and the model and environment descriptions it records; a row of summary.csv
// (RunSummary); the lines of recording.jsonl and their parser. Files are opened by the store
// (src/runlog/store.ts) only. A leaf: it imports types of the model and environment layers and the
// error classes, so the contract (src/benchmarks/types.ts), the methods, the run and the report can all
// depend on it without a cycle, and plug-ins never import src/run/.
import type { TokenUsage } from '../llm/types.js';
import type { ContextLimit } from '../llm/context-limit.js';
import type { ResetResult, StepResult } from '../envs/types.js';
import { UserError } from '../errors.js';
import { JsonFields } from '../util/json-fields.js';

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

/** The part of a scored episode record (EpisodeRecord) the error analysis reads. */
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
  /** Calls aborted in flight (interrupt, budget stop, kill) or answered without usage: billed, by how much unknown. */
  paid_unknown_calls: number;
}

// ---------------------------------------------------------------------------------------------
// episodes.jsonl: one line per finished episode (run-log schema 2).
// The item, its scores under the benchmark's declared metrics, the notebook's "traj" and steps, and
// accounting. Benchmark- and method-specific fields (CoT-SC samples, forced_finish, ALFWorld
// task_type, WebShop instruction...) sit beside them under their own snake_case names.

export interface EpisodeError {
  /** 'llm' | 'env' (InfraError), 'internal' (a bug that escaped the method). */
  source: string;
  message: string;
}

export interface RecordUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What a line says of its episode in both schemas: the answer, the trajectory, the accounting, the extras. */
export interface EpisodeFields {
  answer: string | null;
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
   * Calls answered without usage (their server reported none, or the cache holds such an answer): usage
   * and cost leave them out, so they are not the episode's whole figures. Absent when every call had usage.
   */
  usage_unknown_calls?: number;
  /**
   * Tokens and cost of the calls that went to the model (cache misses): what the episode spent. Absent
   * in schema-1 records and in records written before it existed: read them with spentOf (spent = total).
   */
  spent_usage?: RecordUsage;
  spent_cost?: number;
  /**
   * Of the calls answered without usage, those that went to the model (not cache hits): spent_usage and
   * spent_cost leave them out. Present, 0 included, wherever a call came without usage; a record with
   * such calls that lacks it was written before it existed (src/run/meter.ts episodeCostStandings).
   */
  spent_usage_unknown_calls?: number;
  /** Its calls were metered with no known price: cost and spent_cost are $0 that is not money (src/run/meter.ts costKnown). */
  cost_unpriced?: true;
  latency_ms: number;
  /** Completion calls served entirely from the cache. */
  cached_calls: number;
  error: EpisodeError | null;
  /** The model limits the episode reached (docs/protocol.md §5), present only when it reached one (src/run/limit-outcomes.ts). */
  outcome?: string;
  outcome_step?: number | null;
  outcome_detail?: { server?: string; window?: number; prompt_tokens?: number; message?: string };
  max_tokens_stops?: number;
  silent_truncation?: { calls: number; first_call: number };
  /** Benchmark- and method-specific fields (samples, completions, majority_votes, forced_finish...). */
  [extra: string]: unknown;
}

/** A line of run-log schema 2 (RUN_LOG_SCHEMA). */
export interface EpisodeRecord extends EpisodeFields {
  /** The item's index in its benchmark (HotpotQA question_idx, ALFWorld game index, WebShop session number). */
  idx: number;
  /** The item as a person names it (question text, game name, session id). */
  item: string;
  /** The task text (question, claim, ALFWorld goal, WebShop instruction) where known. */
  input: string;
  gold: string | null;
  /** One value in [0, 1] per metric the benchmark declares (0 for error records). */
  metrics: Record<string, number>;
}

/**
 * A line of run-log schema 1 (HotpotQA/FEVER runs of 0.1): keyed by question_idx, the question as
 * item and input, EM and F1 at the top level; the rest as in schema 2.
 */
export interface EpisodeRecordV1 extends EpisodeFields {
  question_idx: number;
  question?: string;
  gold?: string | null;
  em?: number;
  f1?: number;
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
  'usage_unknown_calls',
  'spent_usage',
  'spent_cost',
  'spent_usage_unknown_calls',
  'cost_unpriced',
  'latency_ms',
  'cached_calls',
  'error',
]);

/** Calls whose usage a record's figures leave out (answered without usage); 0 for records without the field. */
export function usageUnknownCalls(r: Pick<EpisodeRecord, 'usage_unknown_calls'>): number {
  return typeof r.usage_unknown_calls === 'number' ? r.usage_unknown_calls : 0;
}

/** What an episode spent (calls that went to the model); records without the field spent what they used. */
export function spentOf(r: Pick<EpisodeRecord, 'usage' | 'cost' | 'spent_usage' | 'spent_cost'>): { usage: RecordUsage; cost: number } {
  return { usage: r.spent_usage ?? r.usage ?? { ...NO_USAGE }, cost: r.spent_cost ?? r.cost ?? 0 };
}

const NO_USAGE: RecordUsage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/** The record's benchmark- and method-specific fields, in record order. */
export function recordExtras(r: EpisodeRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).filter(([k]) => !CORE_RECORD_FIELDS.has(k)));
}

/**
 * A parsed episodes.jsonl line as a schema-2 record. Schema 1 (question_idx, question, em, f1 at the
 * top level) becomes idx/item/input and metrics {em, f1}, its other fields kept in their order.
 * Throws on a line that is no record.
 */
export function upgradeRecord(raw: unknown): EpisodeRecord {
  const f = JsonFields.of(raw);
  if (!f) throw new Error('not a JSON object');
  if (isSchema2(raw, f)) return raw;
  if (f.num('question_idx') === undefined) throw new Error('no idx');
  return upgradeV1(raw as EpisodeRecordV1);
}

function isSchema2(raw: unknown, f: JsonFields): raw is EpisodeRecord {
  return f.num('idx') !== undefined && typeof f.get('metrics') === 'object' && f.get('metrics') !== null;
}

function upgradeV1(r: EpisodeRecordV1): EpisodeRecord {
  const { question_idx, question, em, f1, ...rest } = r;
  return {
    ...rest,
    idx: question_idx,
    item: String(question ?? ''),
    input: String(question ?? ''),
    gold: r.gold ?? null,
    metrics: { em: Number(em ?? 0), f1: Number(f1 ?? 0) },
  };
}

// ---------------------------------------------------------------------------------------------
// manifest.json: everything needed to know what a run computed and to redo it.

/**
 * The model as the manifest records it (CompletionModel.describe(), the cache included): the fields
 * the report, the meter and bundles read, and whatever else the backend says about itself.
 */
export interface ModelDescription {
  backend?: string;
  model?: string;
  api?: string;
  /** Prices the run's costs use; source says where they came from ('none'/'unknown': no price). */
  pricesUsdPer1M?: { source?: string; prompt?: number | null; completion?: number | null };
  /** The completion cache (src/llm/cache/), or the bundle a replay is served from. */
  cache?: { mode?: string; path?: string | null; bundle?: string; sha256?: string };
  [field: string]: unknown;
}

/** The environment's fingerprint (Wikipedia backend and snapshot hash, server version, game list hash). */
export interface EnvironmentDescription {
  /** The backend (Wikipedia: offline, api, html...). */
  kind?: string;
  [field: string]: unknown;
}

/** stoppedBy of a session that never closed (killed, crashed), as the next session on the run finds it. */
export const PROCESS_GONE = 'process gone';

/** A closed session's outcome as people read it: "complete", "stopped (max-cost)", "interrupted (SIGINT)"... */
export function statusText(status: string, stoppedBy?: string): string {
  if (status !== 'interrupted') return status;
  return stoppedBy === 'max-cost' ? 'stopped (max-cost)' : `interrupted${stoppedBy ? ` (${stoppedBy})` : ''}`;
}

/** Whether a run's cost figures mean money: a known price, none known (unknown), or no bill at all (free). */
export type PriceStatus = 'known' | 'unknown' | 'free';

export interface SessionInfo {
  startedAt: string;
  endedAt?: string;
  status?: 'running' | 'complete' | 'interrupted' | 'failed' | 'partial';
  written?: number;
  /** The record lines episodes.jsonl held when the session began (a report checks the file against it). */
  linesAtStart?: number;
  retryErrors?: boolean;
  /** What stopped an interrupted session: a signal, the --max-cost budget, or PROCESS_GONE. */
  stoppedBy?: string;
  /** A pool of environment servers (src/envs/pool.ts): item index → the member that served it this session. */
  envServers?: Record<string, string>;
  /** A pool of environment servers: each member's state as this session ended (url, healthy, leftOut, leftOutAt). */
  envPool?: unknown;
  /** The session's id in recording.jsonl (its attempts are "<id>.<n>"): where its spend is proven. */
  recording?: string;
  /** What this invocation paid for (src/run/meter.ts); filled from the recording after a kill. */
  spent?: Spend;
  /** Whether this invocation's model had a known price (src/llm/pricing.ts); absent in older runs. */
  price?: PriceStatus;
  /**
   * The model endpoints this invocation was given, as modelDescription.endpoints writes them (scheme,
   * host, port, path: src/llm/endpoints.ts safeEndpointLabel): a resume may call another server than
   * the settings name. Absent in older runs and when it called none (an embedded model, --cache
   * replay, a re-run from a bundle).
   */
  endpoints?: string[];
  /** --max-consecutive-failures as given to this invocation (a resume keeps it). */
  maxConsecutiveFailures?: number;
}

/** A base run of a combination or a shard run of a merge, as the derived run's manifest names it. */
export interface SourceRun {
  runId?: string;
  [field: string]: unknown;
}

export interface RunManifest {
  schema: number;
  runId: string;
  /** 'run' (episodes computed here), 'combination' (from two base runs), 'merge' (from shards). */
  kind: 'run' | 'combination' | 'merge';
  /** The benchmark (hotpotqa, fever, alfworld, webshop...): the name it is registered under. */
  task: string;
  /** The metrics the benchmark declared when the run was made (schema 2; absent in schema 1). */
  metrics?: MetricDef[];
  method: string;
  split: string;
  /** K/N or null. */
  shard: string | null;
  model: string;
  /** Dataset indices this run covers, in split order (after --indices/--limit/--shard). */
  indices: number[];
  /** Sharded runs: the whole selection the shards divide (merge checks coverage against it). */
  selection?: number[];
  /** The benchmark's run-id tag (Benchmark.runIdTag), when it gave one: a merge of the shards keeps it. */
  runIdTag?: string;
  /** Model limits its episodes reached (context window, max_tokens, silent truncation): src/run/limit-outcomes.ts. */
  limits?: Record<string, unknown>;
  /** What determines the results: hashed into the run id, compared on resume and by merge. */
  identity: Record<string, unknown>;
  /** Every setting as resolved (flags, experiment file, defaults); no secrets. */
  settings: Record<string, unknown>;
  /** The choices where paper and released code differ, and our explicit framings (§4, §5). */
  fidelity: Record<string, unknown>;
  /** sha256 of the repo files the run read (prompts, data, environment data), computed at run start. */
  inputs: Record<string, string | null>;
  /** Input files whose bytes differ from the vendored sha256 in data/manifest.json. */
  changedInputs?: string[];
  modelDescription: ModelDescription;
  environment: EnvironmentDescription | null;
  split_description?: string;
  software: { package: string; version: string; git: { commit: string; dirty: boolean } | null; node: string; platform: string };
  startedAt: string;
  sessions: SessionInfo[];
  /** Combinations: the base runs; merges: the shard runs. */
  sources?: SourceRun[];
  /** A run re-run from a bundle (run --from-bundle): the bundle and the run it replays. */
  fromBundle?: { file: string; sha256: string; schema: number; createdAt: string; runId: string };
}

/**
 * A parsed manifest.json with the fields every reader relies on checked (`where` names the file in
 * the UserError): a JSON object with non-empty runId, task, method, split, model and a list of item
 * indices. The rest is taken as written.
 */
export function checkManifest(raw: unknown, where: string): RunManifest {
  const bad = (what: string) => new UserError(`${where}: ${what}`);
  const f = JsonFields.of(raw);
  if (!f) throw bad('not a JSON object');
  for (const k of ['runId', 'task', 'method', 'split', 'model']) if (!f.str(k)) throw bad(`${k}: expected a non-empty string`);
  if (!f.arr('indices')?.every((i) => Number.isInteger(i))) throw bad('indices: expected a list of item indices');
  return raw as RunManifest;
}

// ---------------------------------------------------------------------------------------------
// summary.csv: one row per run (src/run/summary.ts computes it).

export interface RunMeta {
  runId: string;
  /** The benchmark (manifest.task). */
  task: string;
  method: string;
  split: string;
  model: string;
  shard?: string | null;
}

export interface RunSummary extends RunMeta {
  /** Episodes the run is meant to cover (its split after --indices / --limit / --shard). */
  n_planned: number;
  /** Episodes with a record (scored or error). */
  n_done: number;
  /** Scored episodes (no infrastructure error): every metric is over these. */
  n_scored: number;
  n_errors: number;
  /** Each declared metric in percent (one decimal, rounded once) over scored episodes; null when none scored. */
  metrics: Record<string, number | null>;
  /** Each metric's exact sum over the scored episodes (for the progress line; not in summary.csv). */
  sums: Record<string, number>;
  n_calls: number;
  /** Tokens and cost of every model call, cache hits included (what the run would cost uncached). */
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  /** Calls answered without usage (fresh or from the cache): the token and cost figures above leave them out. */
  usage_unknown_calls: number;
  cached_calls: number;
  /** Tokens and cost of the calls that went to the model (cache misses): what this run spent. */
  spent_tokens: number;
  spent_cost_usd: number;
  /** Scored episodes that ended because the prompt outgrew the model's context window (a failure outcome, not an error). */
  n_context_exceeded: number;
  /**
   * Calls that went to the model whose billing is unknown (answered without usage, or cut off in flight):
   * the spent figures leave them out (the sessions' paid_unknown_calls; 0 for older runs).
   */
  paid_unknown_calls: number;
  /** False when the model had no known price: the cost figures are 0 but mean no money (blank in summary.csv). */
  cost_known?: false;
  /**
   * True when every session billed nothing by its rates (src/run/meter.ts costFree): the calls the cost
   * figures leave out cost nothing either, so their $0 is whole. Not a column of summary.csv.
   */
  cost_free?: true;
}

// ---------------------------------------------------------------------------------------------
// recording.jsonl: everything an episode received from outside (src/run/run-recording.ts writes it; the
// model calls' lines come from the recording layer of the episode's model chain, src/run/model-chain.ts).
// Each episode attempt records, in order:
//   {"t":"env", item, attempt, step, call, action?, result|error}     every reset/step (src/envs/recording.ts)
//   {"t":"llm", item, attempt, call, step, key, n, choices, cached, usage, cost | error}   every model call
//   {"t":"end", item, attempt, written}                                 whether the runner wrote its record
// after one {"t":"session", session, model, api, startedAt} line per session.

/** Version of the recording's line shapes (the session line carries it). */
export const RECORDING_SCHEMA = 1;

/** An error as recorded: enough to throw the same kind of error again. */
export interface RecordedError {
  /** The error's class name: InfraError, FatalRunError, AbortError, TypeError... */
  name: string;
  message: string;
  /** InfraError's source. */
  source?: 'llm' | 'env';
  /** The call was cut short by an interrupt (Ctrl-C, another episode's fatal error): not replayable. */
  aborted?: true;
  /** An aborted model call none of whose requests can have been billed (src/llm/types.ts AbortedUnsentError). */
  unsent?: true;
  /** A context-length refusal (a model limit, an outcome of the episode): what the server said. */
  contextLimit?: ContextLimit | { message: string };
}

export interface EnvEvent {
  /** Item index (Item.index) of the episode. */
  item: number;
  /** Which episode of the item this event belongs to (unique within one recording). */
  attempt: string;
  /** 0 for reset, k for the k-th step after it. */
  step: number;
  call: 'reset' | 'step';
  /** The action sent (step only). */
  action?: string;
  result?: ResetResult | StepResult;
  error?: RecordedError;
}

export interface SessionLine {
  t: 'session';
  v: number;
  session: string;
  startedAt: string;
  /** The model name and the api string of its cache keys (what cacheKey() needs besides the request). */
  model: string;
  api: string;
}

export interface EnvLine extends EnvEvent {
  t: 'env';
}

export interface LlmLine {
  t: 'llm';
  item: number;
  attempt: string;
  /** 0-based model call number within the attempt. */
  call: number;
  /** The environment step this call precedes (env steps so far + 1). */
  step: number;
  /** The completion cache key of the request (src/llm/cache/key.ts). */
  key: string;
  n: number;
  /** What the episode received (the cache's samples 0..n-1). */
  choices?: Array<{ text: string; finishReason: string }>;
  /** The call's accounting as the episode counted it (CompletionResult's cachedChoices, usage, costUsd). */
  cached?: number;
  usage?: TokenUsage;
  cost?: number;
  /** The server reported no usage for the call: what it was billed is unknown (CompletionResult.usageUnknown). */
  usageUnknown?: true;
  /** Answered from a bundle (CompletionResult.replayed): usage/cost are the original call's, nothing was spent. */
  replayed?: true;
  /** The cache's "every call" accounting of a hit or partial hit (CompletionResult.total, set by src/llm/cache/store.ts). */
  total?: { usage: TokenUsage; costUsd: number; usageUnknown?: true };
  error?: RecordedError;
}

export interface EndLine {
  t: 'end';
  item: number;
  attempt: string;
  /** False when the runner drops the episode (interrupted, or the run stopped on a fatal error). */
  written: boolean;
}

export type RecordingLine = SessionLine | EnvLine | LlmLine | EndLine;

export interface RecordedAttempt {
  attempt: string;
  item: number;
  session: SessionLine;
  env: EnvEvent[];
  llm: LlmLine[];
  written: boolean;
}

export interface ParsedRecording {
  sessions: SessionLine[];
  /** Every attempt, in the order their first line appears. */
  attempts: RecordedAttempt[];
  /**
   * Per item, the attempt whose episode record is the run's (the last attempt the runner wrote:
   * later attempts of an item are --retry-errors or resumes, and episodes.jsonl keeps the latest line).
   */
  final: Map<number, RecordedAttempt>;
  /** Lines of the file (the last complete one's number). */
  lines?: number;
  /** The line number of a cut last line (not JSON), when there is one. */
  torn?: number;
}

/** One recording line's text as a line, or undefined when it is not JSON (a torn line). */
export function recordingLine(raw: string): RecordingLine | undefined {
  try {
    return JSON.parse(raw) as RecordingLine;
  } catch {
    return undefined;
  }
}

/**
 * What a parsed line lacks that its kind needs (a session line its id; an env, llm or end line its
 * attempt id and item index), or null: a hand-edited or hostile file is refused in one line, not
 * followed into a crash.
 */
function missingRecordingField(l: unknown): string | null {
  if (l === null || typeof l !== 'object' || Array.isArray(l)) return 'line is not a JSON object';
  const o = l as Record<string, unknown>;
  // another schema's session line is refused by its version, which says more
  if (o.t === 'session') return typeof o.session === 'string' || o.v !== RECORDING_SCHEMA ? null : 'session line has no "session" id';
  if (o.t === 'env' || o.t === 'llm' || o.t === 'end') {
    if (typeof o.attempt !== 'string' || !o.attempt.includes('.')) return `${o.t} line has no "attempt" id`;
    if (typeof o.item !== 'number' || !Number.isSafeInteger(o.item)) return `${o.t} line has no "item" index`;
  }
  return null;
}

/** Parses recording.jsonl text (`where` names it in errors). A cut last line (kill -9) is ignored. */
export function parseRecording(text: string, where: string): ParsedRecording {
  const lines = text.split('\n');
  const sessions: SessionLine[] = [];
  const bySession = new Map<string, SessionLine>();
  const attempts = new Map<string, RecordedAttempt>();
  const final = new Map<number, RecordedAttempt>();
  const attemptOf = (l: { item: number; attempt: string }, i: number): RecordedAttempt => {
    let a = attempts.get(l.attempt);
    if (!a) {
      const session = bySession.get(l.attempt.slice(0, l.attempt.lastIndexOf('.')));
      if (!session) throw new UserError(`${where}:${i + 1}: attempt ${l.attempt} has no session line before it`);
      a = { attempt: l.attempt, item: l.item, session, env: [], llm: [], written: false };
      attempts.set(l.attempt, a);
    }
    return a;
  };
  let torn: number | undefined;
  let count = 0;
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    const l = recordingLine(raw);
    if (l === undefined) {
      if (i === lines.length - 1) {
        torn = i + 1;
        return; // a torn last line: that attempt has no "end" and is not used
      }
      throw new UserError(`${where}:${i + 1}: not a JSON line of a run recording`);
    }
    count = i + 1;
    const missing = missingRecordingField(l);
    if (missing) throw new UserError(`${where}:${i + 1}: a run recording's ${missing}; the file was edited or corrupted`);
    switch (l?.t) {
      case 'session':
        if (l.v !== RECORDING_SCHEMA)
          throw new UserError(`${where}:${i + 1}: recording schema ${l.v}; this version reads schema ${RECORDING_SCHEMA}`);
        sessions.push(l);
        bySession.set(l.session, l);
        return;
      case 'env': {
        const { t: _t, ...ev } = l;
        attemptOf(l, i).env.push(ev);
        return;
      }
      case 'llm':
        attemptOf(l, i).llm.push(l);
        return;
      case 'end': {
        const a = attemptOf(l, i);
        a.written = l.written;
        if (l.written) {
          final.delete(l.item); // keep map order = order of the final attempts
          final.set(l.item, a);
        }
        return;
      }
      default:
        throw new UserError(`${where}:${i + 1}: unknown recording line (expected t = session, env, llm or end)`);
    }
  });
  return { sessions, attempts: [...attempts.values()], final, lines: count, ...(torn !== undefined ? { torn } : {}) };
}
