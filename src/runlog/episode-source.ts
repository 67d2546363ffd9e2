// What a report keeps of a run's episodes in memory (a slim record: no trajectory text, steps without
// their text) and how it reads a full record back from episodes.jsonl when a page or a sheet needs it
// (EpisodeSource). The reader that fills them is src/report/episode-reader.ts.
import type { EpisodeRecord, StepRecord } from './schema.js';

/** Reads full records back from a run's episodes.jsonl. */
export interface EpisodeSource {
  readonly file: string;
  /** The full record of item `idx` as stored (its latest line). */
  read(idx: number): EpisodeRecord;
  /** The full records of these items, in this order, one at a time (the file is open while iterating). */
  each(indices: Iterable<number>): Generator<EpisodeRecord>;
}

/**
 * What the report keeps of a record in memory: every field but the texts (traj, input, the steps'
 * thoughts, actions and observations). Steps keep their number (a step limit is counted from it) and
 * the one fact the limit notes read (turnsDropped, docs/protocol.md §5). Pure.
 */
export function reportSlim(rec: EpisodeRecord): EpisodeRecord {
  const steps = Array.isArray(rec.steps) ? rec.steps.map(textless) : rec.steps;
  return { ...rec, traj: '', input: '', steps };
}

/** A step without its text: shared per step number when it carries nothing else, so it costs a pointer. */
function textless(s: StepRecord): StepRecord {
  if ((s.turnsDropped ?? 0) > 0) return { step: s.step, action: '', observation: '', turnsDropped: s.turnsDropped };
  let bare = bareSteps.get(s.step);
  if (!bare) {
    bare = Object.freeze({ step: s.step, action: '', observation: '' });
    if (bareSteps.size < SHARED_MAX) bareSteps.set(s.step, bare);
  }
  return bare;
}

const NO_USAGE = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/**
 * Values many slim records hold alike, shared: the same scores ({em: 1, f1: 1}...) and the same
 * text-less steps. Frozen (no reader changes a record); at most SHARED_MAX of each
 * kind, so a run of all-distinct scores costs no more than without sharing.
 */
const SHARED_MAX = 4096;
const sharedMetrics = new Map<string, Readonly<Record<string, number>>>();
const bareSteps = new Map<number, Readonly<StepRecord>>();
const sharedSteps = new Map<string, StepRecord[]>();

function shareMetrics(m: Record<string, number>): Record<string, number> {
  if (!m || typeof m !== 'object') return m;
  const key = JSON.stringify(m);
  const hit = sharedMetrics.get(key);
  if (hit) return hit;
  if (sharedMetrics.size >= SHARED_MAX) return m;
  const frozen = Object.freeze({ ...m });
  sharedMetrics.set(key, frozen);
  return frozen;
}

function shareSteps(steps: StepRecord[]): StepRecord[] {
  if (!Array.isArray(steps) || steps.some((s) => s !== bareSteps.get(s.step))) return steps;
  const key = steps.map((s) => s.step).join(',');
  const hit = sharedSteps.get(key);
  if (hit) return hit;
  if (sharedSteps.size < SHARED_MAX) {
    Object.freeze(steps);
    sharedSteps.set(key, steps);
  }
  return steps;
}

/**
 * A slim record once its run's summary is computed: its accounting (calls, tokens, cost, latency) is
 * in RunView.summary and read from nowhere else, so it is zeroed here (the full record has it); scores
 * and bare steps alike are shared. Pure but for the sharing.
 */
export function withoutAccounting(rec: EpisodeRecord): EpisodeRecord {
  const { spent_usage: _su, spent_cost: _sc, ...rest } = rec;
  return {
    ...rest,
    metrics: shareMetrics(rec.metrics),
    steps: shareSteps(rec.steps),
    n_calls: 0,
    n_badcalls: 0,
    usage: NO_USAGE,
    cost: 0,
    latency_ms: 0,
    cached_calls: 0,
  };
}

export interface SlimEpisodes {
  /** Latest record per index, slim (reportSlim), in file order of their latest line. */
  records: Map<number, EpisodeRecord>;
  source: EpisodeSource;
  /** Lines that are records, replaced ones included (LoadResult.lines). */
  lines: number;
}
