// A run's status as a report shows it, from the run's own record: the last session in its manifest
// (complete, partial, failed, interrupted by a signal, stopped at --max-cost) and, for a session that
// never closed (status still "running"), its lock: it is running only while the process holding the
// lock is alive. A run killed with -9 leaves "running" and a lock whose process is gone: interrupted.
// And from its episodes.jsonl: a run whose file holds fewer record lines than its sessions wrote (a
// cut or partial copy) is "records missing" whatever its sessions say (README "Reports").
import { lockState, type LockState } from '../run/lock.js';
import { PROCESS_GONE, statusText, type RunManifest } from '../runlog/schema.js';
import { missingRecords, type MissingRecords } from '../runlog/missing-records.js';

/** How the Runs table's status of a run with records missing begins. */
export const RECORDS_MISSING = 'records missing';

/** The Runs table's status of a run with records missing. */
export function missingRecordsStatus(miss: MissingRecords): string {
  return `${RECORDS_MISSING} (${miss.held} of ${miss.written} written in episodes.jsonl)`;
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
