// One writer per run folder (README "Reliability"): a second process on the same run would interleave and
// duplicate records. The lock must hold in races and in containers:
// - created atomically WITH its content: the holder is written to a temp file, then hard-linked to
//   the lock path (link(2) fails with EEXIST when the lock exists), so no reader ever sees an empty
//   or half-written lock;
// - it names the exact process: host, PID, the process start time (/proc/<pid>/stat field 22, clock
//   ticks since boot) and a random token. It is stale only when that process is gone: same host and
//   (PID not alive, or alive with another start time -- a PID reused, as PID 1 of a restarted
//   container in a new PID namespace). A lock from another host is never taken over;
// - a stale lock is removed by renaming it to a unique name, checking it is the very file judged
//   stale (same inode), then unlinking it; a fresh lock moved by mistake (a race) is linked back;
// - release removes the lock only while it still holds our token.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { isProcessAlive, removeStaleTempFiles, tempPathFor, forgetTempPath, toDiskError, writeAll, type Retry } from '../util/durable.js';

export const LOCK_FILE = '.lock';

export interface LockHolder {
  host: string;
  pid: number;
  /** /proc/<pid>/stat starttime (clock ticks since boot), null where /proc is not available. */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id: a lock from an earlier boot of this host is stale. */
  boot: string | null;
  token: string;
  /** When the lock was taken (ISO time), for messages. */
  since: string;
}

export interface RunLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Removes the lock if it is still ours; idempotent, never throws for a lock already gone. */
  release(): void;
}

/** Field 22 of /proc/<pid>/stat (starttime), or null. The command name (field 2) may hold spaces and ")". */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields 3...
    const v = rest[22 - 3];
    return v && /^\d+$/.test(v) ? v : null;
  } catch {
    return null;
  }
}

function bootId(): string | null {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function parseHolder(text: string): LockHolder | 'legacy' | undefined {
  // 0.1 wrote the bare PID: no host, no start time.
  if (/^\s*\d+\s*$/.test(text)) return 'legacy';
  try {
    const h = JSON.parse(text);
    if (typeof h?.host === 'string' && Number.isInteger(h.pid) && typeof h.token === 'string') {
      return { host: h.host, pid: h.pid, start: h.start ?? null, boot: h.boot ?? null, token: h.token, since: String(h.since ?? '') };
    }
  } catch {
    /* fall through */
  }
  return undefined;
}

type Verdict = { stale: true; why: string } | { stale: false };

/** Whether the process named in a lock is gone (see the header). */
export function judgeHolder(h: LockHolder, here = { host: os.hostname(), boot: bootId() }): Verdict {
  if (h.host !== here.host) return { stale: false }; // cannot see that host's processes
  if (h.boot && here.boot && h.boot !== here.boot) return { stale: true, why: 'taken before the last reboot' };
  if (!isProcessAlive(h.pid)) return { stale: true, why: `process ${h.pid} is gone` };
  const start = processStartTime(h.pid);
  if (h.start && start && start !== h.start) return { stale: true, why: `PID ${h.pid} now belongs to another process` };
  return { stale: false };
}

/**
 * The one rule for 0.1's lock, the bare PID (no host, no start time), whether the run is taken (acquireRunLock:
 * a resume) or only judged (lockState: merge, the report's status): it can be judged against this machine's
 * processes alone. Stale when that PID is gone here, or is ours (we never write this format: a bare-PID lock
 * naming us is a previous container's). A live one may be that run, or a lock copied from another machine
 * whose PID happens to be alive here: nothing here can tell, so it holds the run until a person deletes it.
 */
export function bareLockMayBeLive(pid: number): boolean {
  return pid !== process.pid && isProcessAlive(pid);
}

/** What to do about a bare-PID lock that may be live (bareLockMayBeLive), in resume's and merge's messages alike. */
export function bareLockAdvice(lockPath: string, pid: number): string {
  return `its run lock ${lockPath} is an old bare-PID lock naming process ${pid}, which is alive on this machine (such a lock does not say which host wrote it); wait for that run or stop it, or, if no process on this machine is running that run, delete ${lockPath}`;
}

/**
 * What a run folder's lock says, read only: held by a live process, held on another host (cannot tell), a
 * bare-PID lock whose PID is alive here (cannot tell: bareLockMayBeLive), or no live holder.
 */
export type LockState =
  { held: 'alive'; pid: number } | { held: 'other-host'; host: string } | { held: 'bare-pid'; pid: number } | { held: 'none' };

/** The report's status of a run and `merge` of its shards judge the lock by this, without taking it. */
export function lockState(dir: string): LockState {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8');
  } catch {
    return { held: 'none' };
  }
  const h = parseHolder(text);
  if (h === 'legacy') {
    const pid = Number(text.trim());
    return bareLockMayBeLive(pid) ? { held: 'bare-pid', pid } : { held: 'none' };
  }
  if (!h) return { held: 'none' };
  if (h.host !== os.hostname()) return { held: 'other-host', host: h.host };
  return judgeHolder(h).stale ? { held: 'none' } : { held: 'alive', pid: h.pid };
}

function describeHolder(h: LockHolder): string {
  return `process ${h.pid} on host ${h.host}${h.since ? ` since ${h.since}` : ''}`;
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The lock's inode and content, or undefined when it is gone. */
function readLock(file: string): { ino: number; text: string; mtimeMs: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    return { ino: st.ino, mtimeMs: st.mtimeMs, text: fs.readFileSync(fd, 'utf8') };
  } finally {
    fs.closeSync(fd);
  }
}

/** Moves the lock judged stale out of the way, unless it is no longer that file. */
function removeStale(file: string, ino: number): void {
  const grave = `${tempPathFor(file)}-stale`;
  try {
    if (fs.lstatSync(file).ino !== ino) return; // replaced meanwhile: judge again
    fs.renameSync(file, grave);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return; // another process removed it
    throw e;
  }
  try {
    if (fs.lstatSync(grave).ino !== ino) {
      // Between the check and the rename the stale lock was replaced by a fresh one: put it back
      // (EEXIST: a third process locked meanwhile; it then holds the lock and the moved one's owner
      // will find its token gone at release).
      try {
        fs.linkSync(grave, file);
      } catch {
        /* see above */
      }
    }
  } finally {
    fs.rmSync(grave, { force: true });
    forgetTempPath(grave);
  }
}

/** Writes a temp file holding `content` in `dir` (fsync'ed) and returns its path. */
function writeTemp(lockPath: string, content: string, retry: Retry): string {
  const tmp = tempPathFor(lockPath);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', 0o644);
    writeAll(fd, content);
    fs.fsyncSync(fd);
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    // A folder that refuses the file itself (EACCES, EROFS) is said by the caller; a full disk here
    // names the lock's own path, not the temp's (the one the user can see), with what to do.
    const full = errorCode(e) === 'ENOSPC' || errorCode(e) === 'EDQUOT';
    if (fd === undefined && !full) throw e;
    throw toDiskError(e, lockPath, 'writing the run lock', retry);
  }
  fs.closeSync(fd);
  return tmp;
}

// Filesystems without hard links (some FUSE/SMB mounts): exclusive create, then write. A reader may
// then meet an empty lock for a moment: it waits, and only a lock unreadable for this long is stale.
const UNREADABLE_STALE_MS = 10_000;
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

function tryCreate(lockPath: string, tmp: string, content: string): boolean {
  try {
    fs.linkSync(tmp, lockPath);
    return true;
  } catch (e) {
    const code = errorCode(e) ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_LINK.has(code)) throw e;
  }
  let fd: number;
  try {
    fd = fs.openSync(lockPath, 'wx', 0o644);
  } catch (e) {
    if (errorCode(e) === 'EEXIST') return false;
    throw e;
  }
  try {
    writeAll(fd, content, { path: lockPath });
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Takes the run lock of `dir` (which must exist). Throws a UserError naming the folder and the holder
 * when another live process (or this one) holds it; a DiskError when the lock cannot be written, whose
 * advice is `retry` (a run resumes; `merge` writes its folder again).
 */
export function acquireRunLock(dir: string, retry: Retry = 'resume'): RunLock {
  const name = LOCK_FILE;
  const lockPath = path.join(dir, name);
  const here = { host: os.hostname(), boot: bootId() };
  const me: LockHolder = {
    host: here.host,
    pid: process.pid,
    start: processStartTime(process.pid),
    boot: here.boot,
    token: randomBytes(16).toString('hex'),
    since: new Date().toISOString(),
  };
  const content = JSON.stringify(me) + '\n';
  removeStaleTempFiles(dir, `${name}.tmp-`); // left by acquirers killed mid-way
  let tmp: string;
  try {
    tmp = writeTemp(lockPath, content, retry);
  } catch (e) {
    const code = errorCode(e);
    if (e instanceof UserError) throw e;
    throw new UserError(`${dir}: cannot create the run lock (${code ?? errorMessage(e)}): the results folder must be a writable folder`);
  }
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (tryCreate(lockPath, tmp, content)) return makeLock(lockPath, me);
      const seen = readLock(lockPath);
      if (!seen) continue; // released meanwhile
      const holder = parseHolder(seen.text);
      if (holder === undefined) {
        // being written (no-link fallback) or corrupt: wait, and only an old one is stale
        if (Date.now() - seen.mtimeMs < UNREADABLE_STALE_MS) {
          sleepSync(20);
          continue;
        }
        removeStale(lockPath, seen.ino);
        continue;
      }
      if (holder === 'legacy') {
        const pid = Number(seen.text.trim());
        if (bareLockMayBeLive(pid)) throw new UserError(`${dir}: this run may be in progress: ${bareLockAdvice(lockPath, pid)}`);
        removeStale(lockPath, seen.ino);
        continue;
      }
      const v = judgeHolder(holder, here);
      if (v.stale) {
        removeStale(lockPath, seen.ino);
        continue;
      }
      if (holder.pid === process.pid && holder.host === here.host) {
        throw new UserError(`${dir}: this run is already open in this process`);
      }
      const elsewhere = holder.host !== here.host ? `; if that host no longer runs it, delete ${lockPath}` : '';
      throw new UserError(`${dir}: this run is in progress in ${describeHolder(holder)}; wait for it or stop it first${elsewhere}`);
    }
    throw new UserError(`${dir}: could not take the run lock ${lockPath} (it kept changing hands)`);
  } finally {
    fs.rmSync(tmp, { force: true });
    forgetTempPath(tmp);
  }
}

function makeLock(lockPath: string, me: LockHolder): RunLock {
  let released = false;
  return {
    path: lockPath,
    holder: me,
    release() {
      if (released) return;
      released = true;
      const seen = readLock(lockPath);
      if (!seen) return;
      const h = parseHolder(seen.text);
      // Only while it is still ours: a lock judged stale and retaken by another process is theirs.
      if (h && h !== 'legacy' && h.token === me.token) fs.rmSync(lockPath, { force: true });
    },
  };
}
