// What a run keeps in memory of each recorded episode: everything resume, progress, the summary, the
// limit counts and the benchmarks' summary notes read (index, metrics, outcome, error and its cause,
// usage and cost, the benchmark's own small fields), but not the trajectory text and steps, which stay
// in episodes.jsonl (the reports read them from there). This keeps a run's memory independent of its
// length (bench/memory.ts). Steps are reduced to the one fact the limit counts read from them: which
// turns were asked with earlier turns left out (--context-overflow truncate, docs/protocol.md §5).
import type { EpisodeRecord } from './schema.js';
import type { StepRecord } from './schema.js';

/** `rec` without its trajectory text; its steps only as limit notes (turnsDropped). Pure. */
export function slimRecord(rec: EpisodeRecord): EpisodeRecord {
  const steps = (rec.steps ?? []).filter((s) => (s.turnsDropped ?? 0) > 0).map((s) => ({ turnsDropped: s.turnsDropped }) as StepRecord);
  return { ...rec, traj: '', steps };
}
