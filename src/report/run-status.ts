// A run's status as a report shows it, from the run's own record: the last session in its manifest
// (complete, partial, failed, interrupted by a signal, stopped at --max-cost) and, for a session that
// never closed (status still "running"), its lock: it is running only while the process holding the
// lock is alive. A run killed with -9 leaves "running" and a lock whose process is gone: interrupted.
// And from its episodes.jsonl: a run whose file holds fewer record lines than its sessions wrote (a
// cut or partial copy) is "records missing" whatever its sessions say (README "Reports").
import { lockState, type LockState } from '../run/lock.js';
import { PROCESS_GONE, statusText, type RunManifest } from '../runlog/schema.js';

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

/** How the Runs table's status of a run with records missing begins. */
export const RECORDS_MISSING = 'records missing';

/** The Runs table's status of a run with records missing. */
export function missingRecordsStatus(miss: MissingRecords): string {
  return `${RECORDS_MISSING} (${miss.held} of ${miss.written} written in episodes.jsonl)`;
}

/** The one-line warning when a run with records missing is read (`file`: its episodes.jsonl). */
export function missingRecordsWarning(file: string, miss: MissingRecords): string {
  return `${file} holds ${miss.held} of the ${miss.written} episode records its manifest's sessions wrote (${miss.written - miss.held} missing: cut short, or a partial copy?); only those are read`;
}

/**
 * "complete", "partial", "failed", "interrupted (SIGINT)", "stopped (max-cost)", "running",
 * "interrupted (process gone)"...: the last session's outcome. Combinations and merges say what they are.
 * Given `lines` (the record lines episodes.jsonl holds), a run with records missing says so instead.
 */
export function runStatus(
  m: Pick<RunManifest, 'kind' | 'sessions'>,
  dir: string,
  lock: (dir: string) => LockState = lockState,
  lines?: number,
): string {
  const last = m.sessions?.at(-1);
  const kind = m.kind && m.kind !== 'run' ? ` (${m.kind})` : '';
  const miss = lines === undefined ? null : missingRecords(m, lines);
  if (miss) return `${missingRecordsStatus(miss)}${kind}`;
  if (!last?.status) return m.kind && m.kind !== 'run' ? m.kind : 'unknown';
  switch (last.status) {
    case 'running': {
      const l = lock(dir);
      if (l.held === 'alive') return `running${kind}`;
      // A bare-PID lock whose PID is alive here (lock.ts bareLockMayBeLive) holds the run, but that PID may
      // be another process's: "running?", as merge says "may still be running".
      if (l.held === 'bare-pid') return `running?${kind}`;
      if (l.held === 'other-host') return `running on ${l.host}?${kind}`;
      // The session never closed and no live process holds the run: killed (-9), crashed or the machine went down.
      return `interrupted (${PROCESS_GONE})${kind}`;
    }
    default:
      return `${statusText(last.status, last.stoppedBy)}${kind}`;
  }
}
