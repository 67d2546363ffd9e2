// Whether a run folder's episodes.jsonl holds fewer record lines than its manifest's sessions wrote: a
// file cut short or a partial copy (README "Reports"). The report marks such a run ("records missing"),
// and `merge` names such a shard as a copy to redo rather than a run to resume.
import type { RunManifest } from './schema.js';

/** Record lines a run's episodes.jsonl lacks: what its sessions say they wrote and what the file holds. */
export interface MissingRecords {
  written: number;
  held: number;
}

/**
 * Whether episodes.jsonl holds fewer record lines (`lines`: every line that is a record, replaced ones
 * included) than the run's sessions left in it: a session that recorded the lines it found
 * (linesAtStart) left those plus the ones it wrote (written: one appended line each; a killed session
 * counted none), whatever happened to the file before it, so the latest such session says what the
 * file must hold; before sessions recorded it, every session's written lines added up. A merge is not
 * judged: its sessions are its shards', whose lines it de-duplicated. Null when nothing is missing.
 */
export function missingRecords(m: Pick<RunManifest, 'kind' | 'sessions'>, lines: number): MissingRecords | null {
  if (m.kind === 'merge') return null;
  const sessions = m.sessions ?? [];
  const wrote = (s: (typeof sessions)[number]) => (typeof s.written === 'number' && s.written > 0 ? s.written : 0);
  let from = sessions.length - 1;
  while (from >= 0 && typeof sessions[from].linesAtStart !== 'number') from--;
  // Where no session recorded it, the first one found none.
  const found = from >= 0 ? sessions[from].linesAtStart! : 0;
  const written = sessions.slice(Math.max(from, 0)).reduce((n, s) => n + wrote(s), found);
  return lines < written ? { written, held: lines } : null;
}

/** What a run with records missing lacks, in words (`file`: its episodes.jsonl). */
export function missingRecordsText(file: string, miss: MissingRecords): string {
  return `${file} holds ${miss.held} of the ${miss.written} episode records its manifest's sessions wrote (${miss.written - miss.held} missing: cut short, or a partial copy?)`;
}

/** The one-line warning when a run with records missing is read. */
export function missingRecordsWarning(file: string, miss: MissingRecords): string {
  return `${missingRecordsText(file, miss)}; only those are read`;
}
