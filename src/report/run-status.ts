// A run's status as a report shows it, from the run's own record: the last session in its manifest
// (complete, partial, failed, interrupted by a signal, stopped at --max-cost) and, for a session that
// never closed (status still "running"), its lock: it is running only while the process holding the
// lock is alive. A run killed with -9 leaves "running" and a lock whose process is gone: interrupted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { judgeHolder, LOCK_FILE, parseHolder } from '../run/lock.js';
import { isProcessAlive } from '../util/durable.js';
import { PROCESS_GONE, statusText, type RunManifest } from '../runlog/schema.js';

/** What the run folder's lock says: held by a live process, held on another host (cannot tell), or no live holder. */
export type LockState = { held: 'alive'; pid: number } | { held: 'other-host'; host: string } | { held: 'none' };

export function lockState(dir: string): LockState {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8');
  } catch {
    return { held: 'none' };
  }
  const h = parseHolder(text);
  // 0.1 wrote the bare PID.
  if (h === 'legacy') {
    const pid = Number(text.trim());
    return isProcessAlive(pid) ? { held: 'alive', pid } : { held: 'none' };
  }
  if (!h) return { held: 'none' };
  if (h.host !== os.hostname()) return { held: 'other-host', host: h.host };
  return judgeHolder(h).stale ? { held: 'none' } : { held: 'alive', pid: h.pid };
}

/**
 * "complete", "partial", "failed", "interrupted (SIGINT)", "stopped (max-cost)", "running",
 * "interrupted (process gone)"...: the last session's outcome. Combinations and merges say what they are.
 */
export function runStatus(m: Pick<RunManifest, 'kind' | 'sessions'>, dir: string, lock: (dir: string) => LockState = lockState): string {
  const last = m.sessions?.at(-1);
  const kind = m.kind && m.kind !== 'run' ? ` (${m.kind})` : '';
  if (!last?.status) return m.kind && m.kind !== 'run' ? m.kind : 'unknown';
  switch (last.status) {
    case 'running': {
      const l = lock(dir);
      if (l.held === 'alive') return `running${kind}`;
      if (l.held === 'other-host') return `running on ${l.host}?${kind}`;
      // The session never closed and no live process holds the run: killed (-9), crashed or the machine went down.
      return `interrupted (${PROCESS_GONE})${kind}`;
    }
    default:
      return `${statusText(last.status, last.stoppedBy)}${kind}`;
  }
}
