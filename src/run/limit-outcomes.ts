// Model limits are outcomes, not outages (README "Reliability"): what the runner adds to an episode's
// record when the model reached one of its limits, how a run counts them, and the lines that say so
// (closing lines of `run`, the manifest, report notes). The context window: the episode ends as a
// failure outcome (scored, metrics 0, `outcome: "context_exceeded"`), never an error episode, never
// retried by --retry-errors, never counted by the circuit breaker. max_tokens: each completion that
// stopped there is counted on its step and episode. Silent truncation: a server that cuts a long prompt
// without refusing it is detected from the prompt tokens it reports (src/llm/context-limit.ts).
import type { ContextOverflow, EpisodeResult, StepRecord } from '../methods/types.js';
import { UserError } from '../errors.js';
import { thousands as n } from '../util/numbers.js';
import {
  CONTEXT_EXCEEDED,
  contextExceededFields,
  silentTruncations,
  type ContextLengthError,
  type PromptObservation,
} from '../llm/context-limit.js';
import type { EpisodeRecord } from '../runlog/schema.js';

/** What one episode's calls showed about the model's limits (the episode's meter notes it: src/run/meter.ts). */
export interface LimitWatch {
  /** Choices that ended on max_tokens (finish_reason "length"). */
  lengthStops: number;
  /** Single-choice calls in order: prompt size and the prompt tokens the server reported. */
  prompts: PromptObservation[];
}

/** Record fields from the watch: only what happened (an episode within every limit gets none). */
export function watchFields(w: LimitWatch): Pick<EpisodeRecord, 'max_tokens_stops' | 'silent_truncation'> {
  const out: Pick<EpisodeRecord, 'max_tokens_stops' | 'silent_truncation'> = {};
  if (w.lengthStops > 0) out.max_tokens_stops = w.lengthStops;
  const cut = silentTruncations(w.prompts);
  if (cut.length > 0) out.silent_truncation = { calls: cut.length, first_call: cut[0] + 1 };
  return out;
}

/**
 * The result of an episode whose method let the context-length refusal through (a single-call method:
 * Standard, CoT, CoT-SC): nothing answered, so every metric scores 0; the calls made are the meter's.
 */
export function overflowResult(e: ContextLengthError, calls: number): EpisodeResult {
  return {
    answer: null,
    finalInfo: {},
    reward: 0,
    done: false,
    traj: '',
    steps: [],
    n_calls: calls,
    n_badcalls: 0,
    extra: contextExceededFields(e, null),
  };
}

export function isContextExceeded(r: { error?: unknown; outcome?: unknown }): boolean {
  return !r.error && r.outcome === CONTEXT_EXCEEDED;
}

/** A run's limit outcomes, over its records (latest per item). */
export interface LimitCounts {
  /** Scored episodes. */
  episodes: number;
  /** Episodes that ended because the prompt outgrew the context window. */
  contextExceeded: number;
  /** The windows the servers named for them (distinct, ascending). */
  windows: number[];
  /** Episodes with at least one completion that stopped on max_tokens, and those completions. */
  maxTokensEpisodes: number;
  maxTokensStops: number;
  /** Episodes whose reported prompt tokens show the server cut the prompt silently. */
  silentTruncationEpisodes: number;
  /** --context-overflow truncate: episodes with at least one turn asked with earlier turns left out. */
  truncatedEpisodes: number;
}

export function limitCounts(records: readonly EpisodeRecord[]): LimitCounts {
  const scored = records.filter((r) => !r.error);
  const exceeded = scored.filter(isContextExceeded);
  const windows = new Set<number>();
  for (const r of exceeded) {
    const w = r.outcome_detail?.window;
    if (typeof w === 'number') windows.add(w);
  }
  const stops = (r: EpisodeRecord) => (typeof r.max_tokens_stops === 'number' ? r.max_tokens_stops : 0);
  return {
    episodes: scored.length,
    contextExceeded: exceeded.length,
    windows: [...windows].sort((a, b) => a - b),
    maxTokensEpisodes: scored.filter((r) => stops(r) > 0).length,
    maxTokensStops: scored.reduce((a, r) => a + stops(r), 0),
    silentTruncationEpisodes: scored.filter((r) => r.silent_truncation).length,
    truncatedEpisodes: scored.filter((r) => (r.steps ?? []).some((s: StepRecord) => (s.turnsDropped ?? 0) > 0)).length,
  };
}

const episodesOf = (k: number, of: number) => `${n(k)} of ${n(of)} episode${of === 1 ? '' : 's'}`;

function windowText(windows: readonly number[]): string {
  if (windows.length === 0) return "the model's context window";
  if (windows.length === 1) return `the model's ${n(windows[0])}-token window`;
  return `the model's context window (${windows.map(n).join(', ')} tokens)`;
}

/**
 * One sentence per limit reached, for the closing lines, the manifest and the report notes
 * ("12 of 20 episodes outgrew the model's 2,048-token window"). Empty when no limit was reached.
 */
export function limitSentences(c: LimitCounts): string[] {
  const out: string[] = [];
  if (c.contextExceeded > 0) {
    out.push(
      `${episodesOf(c.contextExceeded, c.episodes)} outgrew ${windowText(c.windows)}: each ended there as a failure (scored 0, outcome context_exceeded), not an error`,
    );
  }
  if (c.truncatedEpisodes > 0) {
    out.push(
      `${episodesOf(c.truncatedEpisodes, c.episodes)} went on with their oldest turns left out of the prompt (--context-overflow truncate, a deviation)`,
    );
  }
  if (c.maxTokensStops > 0) {
    out.push(
      `${n(c.maxTokensStops)} completion${c.maxTokensStops === 1 ? '' : 's'} in ${episodesOf(c.maxTokensEpisodes, c.episodes)} stopped at max_tokens (finish_reason length), recorded on their steps`,
    );
  }
  if (c.silentTruncationEpisodes > 0) {
    out.push(
      `${episodesOf(c.silentTruncationEpisodes, c.episodes)} had prompts the server appears to have cut without refusing them (the prompt tokens it reported stopped growing or fell far short of the prompt): its context window is likely too small (e.g. Ollama's num_ctx)`,
    );
  }
  return out;
}

/** The manifest's `limits` block: the counts and their sentences. */
export function manifestLimits(c: LimitCounts): Record<string, unknown> {
  return {
    context_exceeded: c.contextExceeded,
    ...(c.windows.length ? { context_windows: c.windows } : {}),
    max_tokens_episodes: c.maxTokensEpisodes,
    max_tokens_stops: c.maxTokensStops,
    silent_truncation_episodes: c.silentTruncationEpisodes,
    context_truncated_episodes: c.truncatedEpisodes,
    notes: limitSentences(c),
  };
}

/** The manifest's `limits` block of a run's records (a run's, a merge's). */
export function manifestLimitsOf(records: readonly EpisodeRecord[]): Record<string, unknown> {
  return manifestLimits(limitCounts(records));
}

/** What --context-overflow truncate changes, as the manifest's fidelity records it. */
export const TRUNCATE_DEVIATION =
  "context-overflow=truncate: a turn whose prompt outgrows the model's context window is asked again with the oldest turns left out " +
  '(instruction, exemplars and the task line kept), until it fits; the released code has no such step (it fails the call)';

/** --context-overflow as settings give it: 'fail' (default) or 'truncate'; anything else is bad input. */
export function contextOverflowOf(v: unknown): ContextOverflow {
  if (v === undefined || v === null || v === 'fail') return 'fail';
  if (v === 'truncate') return 'truncate';
  throw new UserError(`--context-overflow: expected fail or truncate, got ${JSON.stringify(v)}`);
}

/** "<run id>: <sentence>" for each limit a run's records reached (the closing lines of `run`). */
export function limitLinesOf(runId: string, records: readonly EpisodeRecord[]): string[] {
  return limitSentences(limitCounts(records)).map((s) => `${runId}: ${s}`);
}
