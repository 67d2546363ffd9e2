// The report's notes on model limits (README "Reliability"): under every table, for each run it draws
// on whose episodes reached a limit, one sentence per limit ("HotpotQA ReAct (run): 12 of 20 episodes
// outgrew the model's 2,048-token window..."), and the tags the trajectory browser filters on.
// Such episodes are scored failures, counted in the scores like any wrong answer: the notes say so.
import { isContextExceeded, limitCounts, limitSentences } from '../run/limit-outcomes.js';
import type { ReportFigure, ReportTable, RunView } from './model.js';
import type { MethodLabelOf, TitleOf } from './names.js';
import type { EpisodeRecord } from '../runlog/schema.js';

/** One note per limit reached, per run (the run as stored: all its episodes). */
export function limitNotes(runs: readonly RunView[], titleOf: TitleOf, methodLabel: MethodLabelOf): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of runs) {
    const run = r.full ?? r;
    if (seen.has(run.manifest.runId)) continue;
    seen.add(run.manifest.runId);
    for (const s of limitSentences(limitCounts(run.records)))
      out.push(`${titleOf(run.manifest.task)} ${methodLabel(run.manifest.task, run.manifest.method)} (${run.manifest.runId}): ${s}.`);
  }
  return out;
}

/** The run ids behind a table's numbers of ours (its rows' and cells' provenance), or none when it names none. */
export function runIdsOf(t: ReportTable): Set<string> {
  const ids = new Set<string>();
  for (const r of t.rows)
    for (const s of [{ source: r.source, ref: r.ref }, ...Object.values(r.cellSources ?? {})])
      if (s.source === 'ours' && s.ref) for (const id of s.ref.split(' ')) ids.add(id);
  return ids;
}

/**
 * Adds the limit notes to tables and figures: a table gets the notes of the runs its numbers come from
 * (runIdsOf); a figure, or a table that names no run, those of the runs of the benchmarks that produced
 * it (`producedBy`: table or figure id → benchmark names), else all.
 */
export function addLimitNotes(
  items: readonly (ReportTable | ReportFigure)[],
  runs: readonly RunView[],
  titleOf: TitleOf,
  methodLabel: MethodLabelOf,
  producedBy: ReadonlyMap<string, readonly string[]> = new Map(),
): void {
  for (const t of items) {
    const ids = 'rows' in t ? runIdsOf(t) : new Set(t.runIds);
    const tasks = producedBy.get(t.id);
    // A combination makes no calls: the limits its numbers carry are those its base runs reached.
    for (const r of runs) if (ids.has(r.manifest.runId)) for (const s of r.manifest.sources ?? []) if (s.runId) ids.add(s.runId);
    const drawnOn = ids.size
      ? runs.filter((r) => ids.has(r.manifest.runId))
      : tasks
        ? runs.filter((r) => tasks.includes(r.manifest.task))
        : runs;
    const notes = limitNotes(drawnOn, titleOf, methodLabel);
    t.notes.push(...notes.filter((n) => !t.notes.includes(n)));
  }
}

/** Tags of an episode that reached a limit, for the trajectory browser's filter. */
export function limitTags(r: EpisodeRecord): string[] {
  const out: string[] = [];
  if (isContextExceeded(r)) out.push('context_exceeded');
  if (typeof r.max_tokens_stops === 'number' && r.max_tokens_stops > 0) out.push('max_tokens');
  if (r.silent_truncation) out.push('silent_truncation');
  if ((r.steps ?? []).some((s) => (s.turnsDropped ?? 0) > 0)) out.push('context_truncated');
  return out;
}
