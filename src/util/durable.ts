// Durable writes (README "Reliability"): a run's files are whole or absent, never torn, and a full or read-only
// disk is a one-line error naming the path and what to do.
// - writeAll loops: write(2) may write fewer bytes than asked (a nearly full disk, a signal), and
//   fs.writeSync returns that count without complaint.
// - appendRecord appends a whole line or nothing: on failure the file is cut back to its length before
//   the write, so a reader never meets half a record.
// - replaceFileAtomic writes a temp file in the same folder, fsyncs it, renames it over the target and
//   fsyncs the folder: readers see the old content or the new one, also after a crash.
// - removeStaleTempFiles removes `<name>.tmp-<pid>-<token>...` files left by killed writers.
// - writeOutputFile writes a file the user named (--out FILE): a symbolic link's target is replaced
//   (the link stays), a character device or a named pipe (/dev/null, /dev/stdout, a FIFO) is written
//   straight, never replaced by a regular file; a socket or a block device is refused (exit 2).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorCode } from '../errors.js';
import { checkOutputFile } from './safe-path.js';

/** The signature of fs.writeSync(fd, buffer, offset, length, position); tests inject short writers. */
export type WriteFn = (fd: number, buf: Uint8Array, offset: number, length: number, position: number | null) => number;

/** Exit status of a disk failure (sysexits EX_IOERR). */
export const DISK_EXIT_CODE = 74;

/**
 * What running the same command again does about a write that failed, which the advice says:
 * - `resume`: a run's own files (run log, manifest, recording, cache): the same command resumes the
 *   run where it stopped (the default);
 * - `rewrite`: an output file the user named (`report --out`, `export --out`, `bundle --out`, the label
 *   sheet), replaced atomically: the failed attempt left it untouched and the same command writes it
 *   whole; nothing resumes;
 * - `rebuild`: a run folder a command derives whole from other runs (`merge`): the failed attempt left
 *   no manifest in it (so nothing reads it as a run), and the same command writes every file again;
 * - `none`: a device, a named pipe or the shell's descriptor (/dev/full, /dev/stdout, a FIFO), written
 *   straight: part of the output reached it and no command takes it up again.
 * writeOutputFile picks `rewrite` or `none` by what it writes to; everything else is a run's.
 */
export type Retry = 'resume' | 'rewrite' | 'rebuild' | 'none';

const AGAIN: Record<Exclude<Retry, 'none'>, string> = {
  resume: 'then run the same command again (it resumes)',
  rewrite: 'then run the same command again (it writes the file whole; this attempt left it untouched)',
  rebuild: 'then run the same command again (it writes the whole folder again from its inputs)',
};

const STRAIGHT = 'the output is incomplete (written straight to a device, a pipe or a shell redirect, which no command resumes)';

/** The remedy for a full disk or quota: free space and run again, or, for a device, write elsewhere. */
const noSpace = (what: string) => (r: Retry) =>
  r === 'none' ? `${what}: ${STRAIGHT}; write it to a file on a disk with space` : `${what}: free some space, ${AGAIN[r]}`;

const ADVICE: Record<string, (retry: Retry) => string> = {
  ENOSPC: noSpace('no space left on the device'),
  EDQUOT: noSpace('the disk quota is exhausted'),
  EACCES: () => 'permission denied: make it writable by this user, or choose another folder',
  EPERM: () => 'operation not permitted: make it writable by this user, or choose another folder',
  EROFS: () => 'the file system is read-only: choose a folder on a writable disk',
  ENOTDIR: () => 'a part of this path is a file, not a folder: choose another path',
  EISDIR: () => 'this is a folder, not a file: remove it or choose another path',
  EIO: (r) =>
    r === 'none'
      ? `input/output error from the device: ${STRAIGHT}; check the device`
      : `input/output error from the device: check the disk, ${r === 'resume' ? 'then run the same command again' : AGAIN[r]}`,
  EFBIG: () => 'the file is too large for this file system: choose another folder',
};

/** A write that the disk refused (full, read-only, no permission...): one line, path and remedy. */
export class DiskError extends UserError {
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, DISK_EXIT_CODE);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** Whether an errno code is one of the disk conditions above (a full disk, no permission, read-only...). */
export function isDiskErrorCode(code: string | undefined): code is string {
  return code !== undefined && Object.hasOwn(ADVICE, code);
}

/**
 * `e` as a DiskError when it is one of the disk conditions above (ENOSPC, EACCES, EROFS, ENOTDIR,
 * EISDIR...), else `e` unchanged. `doing` says what was being written ("writing the run log"); `retry`,
 * what running the command again does about it (Retry; a run's file unless told).
 */
export function toDiskError(e: unknown, file: string, doing = 'writing', retry: Retry = 'resume'): unknown {
  if (e instanceof DiskError) return e;
  const code = errorCode(e);
  if (!isDiskErrorCode(code)) return e;
  return new DiskError(file, code, `${file}: ${doing} failed (${code}): ${ADVICE[code](retry)}`, { cause: e });
}

const defaultWrite: WriteFn = (fd, buf, offset, length, position) => fs.writeSync(fd, buf, offset, length, position);

export interface WriteAllOptions {
  /** Where to write (pwrite); null/undefined: the current file position (or the end, for O_APPEND). */
  position?: number | null;
  /** Injected write for tests. */
  write?: WriteFn;
  /** Names the file in errors. */
  path?: string;
}

/** Writes every byte of `data` to `fd`, looping over short writes; throws (DiskError when it is one) otherwise. */
export function writeAll(fd: number, data: Uint8Array | string, opts: WriteAllOptions = {}): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const write = opts.write ?? defaultWrite;
  let off = 0;
  let eagain = 0;
  while (off < buf.length) {
    let n: number;
    try {
      n = write(fd, buf, off, buf.length - off, opts.position == null ? null : opts.position + off);
    } catch (e) {
      // a non-blocking descriptor (a pipe) that is momentarily full: try again
      if (errorCode(e) === 'EAGAIN' && ++eagain < 1000) continue;
      throw opts.path ? toDiskError(e, opts.path) : e;
    }
    if (!(n > 0)) {
      // write(2) returns 0 only when nothing can be written: treat as a full device
      const e = Object.assign(new Error(`write returned ${n} with ${buf.length - off} bytes left`), { code: 'ENOSPC' });
      throw opts.path ? toDiskError(e, opts.path) : e;
    }
    off += n;
  }
}

export interface AppendOptions {
  /** fsync after the append (the record survives a power loss, not just a crash). */
  fsync?: boolean;
  write?: WriteFn;
  /** What the file is, for messages ("the run log"). */
  what?: string;
  /**
   * The file's length before this append, when the caller tracks it (the value the previous append
   * returned: the one writer of a locked run folder); otherwise the file is asked (fstat).
   */
  size?: number;
}

/**
 * Appends `line` (plus "\n" unless it ends with one) to `fd` (opened on `file` with flag 'a'): the
 * whole line or nothing. On failure the file is truncated back to its previous length and a
 * DiskError (or the original error) is thrown. Returns the file's length after the append.
 */
export function appendRecord(fd: number, file: string, line: string, opts: AppendOptions = {}): number {
  const data = Buffer.from(line.endsWith('\n') ? line : line + '\n', 'utf8');
  const before = opts.size ?? fs.fstatSync(fd).size;
  try {
    writeAll(fd, data, { write: opts.write });
    if (opts.fsync) fs.fsyncSync(fd);
    return before + data.length;
  } catch (e) {
    let restored = true;
    try {
      fs.ftruncateSync(fd, before);
    } catch {
      restored = false;
    }
    const err = toDiskError(e, file, `appending to ${opts.what ?? 'the file'}`);
    if (!restored && err instanceof DiskError) {
      err.message += ` (the last line could not be removed: the next resume repairs it)`;
    }
    throw err;
  }
}

/**
 * Cuts a torn last line (no final "\n", left by a crash before appendRecord existed or by a power
 * loss) off `file`. Returns the bytes removed (0 when the file is whole or absent).
 */
export function truncateTornTail(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r+');
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return 0;
    throw toDiskError(e, file, 'opening');
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return 0;
    // read backwards in blocks until a "\n" is found
    const block = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const n = fs.readSync(fd, block, 0, end - start, start);
      const nl = block.subarray(0, n).lastIndexOf(0x0a);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep < size) fs.ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    fs.ftruncateSync(fd, 0);
    return size;
  } finally {
    fs.closeSync(fd);
  }
}

/** The temp paths this process made: a file with our PID but not in here is a previous process's (same PID in a new container). */
const ourTemps = new Set<string>();

/** A temp file name next to `file`: `<file>.tmp-<pid>-<token>` (removeStaleTempFiles knows the shape). */
export function tempPathFor(file: string): string {
  const p = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  ourTemps.add(path.resolve(p));
  return p;
}

/** Tells removeStaleTempFiles that this process is done with a temp path of its own (renamed or removed). */
export function forgetTempPath(p: string): void {
  ourTemps.delete(path.resolve(p));
}

/** fsync a folder so a rename in it is durable (not supported everywhere: then skipped). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (e) {
    const code = errorCode(e);
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'EBADF') throw toDiskError(e, dir, 'syncing the folder');
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export interface ReplaceOptions {
  write?: WriteFn;
  /** File mode of a new file (default 0o644, umask applies). */
  mode?: number;
  what?: string;
  /** What running the command again does about a failed write, for its message (default: a run's file, it resumes). */
  retry?: Retry;
}

/**
 * Replaces `file` with `content` atomically: temp file in the same folder, every byte written, fsync,
 * rename over `file`, fsync of the folder. On failure the temp file is removed, `file` keeps its old
 * content (or stays absent), and a DiskError (or the original error) is thrown.
 */
export function replaceFileAtomic(file: string, content: Uint8Array | string | Iterable<string>, opts: ReplaceOptions = {}): void {
  const tmp = tempPathFor(file);
  const doing = `writing ${opts.what ?? 'the file'}`;
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', opts.mode ?? 0o644);
    if (typeof content === 'string' || content instanceof Uint8Array) writeAll(fd, content, { write: opts.write });
    else writeChunks(fd, content, opts.write);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
    ourTemps.delete(path.resolve(tmp));
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* already failing */
      }
    }
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      /* never created (ENOTDIR...) */
    }
    ourTemps.delete(path.resolve(tmp));
    // name the target, not the temp: that is the path the user knows
    throw toDiskError(e, file, doing, opts.retry);
  }
  fsyncDir(path.dirname(path.resolve(file)));
}

/**
 * Where an output file the user named (--out FILE) is written, its symbolic links followed:
 * - `replace`: a regular file, a new path, or a symbolic link's target (also a dangling link's: the
 *   path it names): replaced atomically (replaceFileAtomic), so the link stays a link;
 * - `stream`: a character device or a named pipe (/dev/null, a FIFO): written straight, no temp file
 *   and no rename ("whole or absent" cannot apply to a device, and a rename would put a regular file
 *   in its place);
 * - `fd`: one of this process's own descriptors (/dev/stdout, /dev/fd/N: ownDescriptor), written
 *   through it, never closed.
 */
export type OutputTarget = { kind: 'replace'; path: string } | { kind: 'stream'; path: string } | { kind: 'fd'; fd: number; path: string };

/**
 * The paths a chain of symbolic links passes through, `abs` first and the path it ends at last (a
 * dangling link's target, or `abs` itself when it is not a link); a relative target is relative to the
 * link's real folder, as the kernel resolves it. At most 40 hops (the kernel's limit).
 */
function linkChain(abs: string): string[] {
  const chain = [abs];
  for (let hops = 0; hops < 40; hops++) {
    const p = chain[chain.length - 1];
    let target: string;
    try {
      target = fs.readlinkSync(p);
    } catch {
      return chain; // not a link (or not there): the chain ends here
    }
    let dir = path.dirname(p);
    try {
      dir = fs.realpathSync.native(dir);
    } catch {
      /* the kernel will say what is wrong when it is written */
    }
    chain.push(path.resolve(dir, target));
  }
  return chain;
}

/**
 * The file descriptor a path names, when it is one of this process's own (/dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N, or a link to one): written through that descriptor, so `--out /dev/stdout
 * >> file` appends where the shell's redirect points instead of replacing the file behind it.
 */
function ownDescriptor(abs: string): number | undefined {
  const own = new RegExp(`^/proc/(?:self|${process.pid})/fd/(\\d+)$`);
  for (const p of linkChain(abs)) {
    const m = /^\/dev\/(stdout|stderr)$/.exec(p) ?? /^\/dev\/fd\/(\d+)$/.exec(p) ?? own.exec(p);
    if (m) return m[1] === 'stdout' ? 1 : m[1] === 'stderr' ? 2 : Number(m[1]);
  }
  return undefined;
}

const EXPECTED_OUTPUT = 'expected a regular file, a new file, a character device (such as /dev/null or /dev/stdout) or a named pipe';

/** What `file` is, for the message refusing it. */
function kindOf(st: fs.Stats): string {
  if (st.isSocket()) return 'a socket';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file';
}

/**
 * Where `file` (an --out FILE; `flag` names it in messages) is written: see OutputTarget. A folder, a
 * socket, a block device or a loop of links is a UserError (exit 2) naming the flag and the path.
 */
export function outputTarget(file: string, flag: string): OutputTarget {
  const abs = path.resolve(file);
  const fd = ownDescriptor(abs);
  if (fd !== undefined) return { kind: 'fd', fd, path: abs };
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT') return { kind: 'replace', path: linkChain(abs).at(-1)! };
    if (code === 'ELOOP') throw new UserError(`${flag}: ${file} is a loop of symbolic links; ${EXPECTED_OUTPUT}`);
    return { kind: 'replace', path: abs }; // EACCES, ENOTDIR...: the write says it, naming the path
  }
  if (st.isCharacterDevice() || st.isFIFO()) return { kind: 'stream', path: abs };
  if (st.isDirectory()) throw new UserError(`${flag}: ${file} is a folder; name a file`);
  if (!st.isFile()) throw new UserError(`${flag}: ${file} is ${kindOf(st)}; ${EXPECTED_OUTPUT}`);
  let real = abs;
  try {
    real = fs.realpathSync.native(abs);
  } catch {
    /* raced away: written as named */
  }
  return { kind: 'replace', path: real };
}

/**
 * Checks an --out FILE before a command does its work (`flag` names it: "--out", "bundle --out"): a
 * device or a named pipe is accepted as it is (its folder, /dev, need not be writable); a file or a
 * link's target must be one checkOutputFile accepts (its folder exists and is writable, not under
 * /proc or /sys). Returns the absolute path as given (writeOutputFile resolves it again as it writes).
 */
export function checkOutputPath(file: string, flag: string): string {
  if (typeof file !== 'string' || file === '' || file.includes('\0')) return checkOutputFile(file, flag);
  const t = outputTarget(file, flag);
  const abs = path.resolve(file);
  if (t.kind === 'replace') checkOutputFile(t.path === abs ? file : t.path, flag);
  if (t.kind === 'fd') {
    try {
      fs.fstatSync(t.fd);
    } catch {
      throw new UserError(`${flag}: ${file} names file descriptor ${t.fd}, which this process does not have open`);
    }
  }
  return abs;
}

export interface OutputOptions extends ReplaceOptions {
  /** The flag that named the file ("--out"), for the message refusing it. */
  flag: string;
}

/** Exit status of a write whose reader went away (as a process killed by SIGPIPE; src/cli/stdio.ts). */
const SIGPIPE_EXIT = 141;

/**
 * Writes `content` to an output file the user named (see OutputTarget): a regular file, a new path or
 * a symbolic link's target is replaced atomically (replaceFileAtomic); a character device or a named
 * pipe is opened and written straight. A full device (/dev/full) is a DiskError (exit 74, one line),
 * a pipe whose reader went away a one-line error with exit 141; a socket or a block device is refused
 * (exit 2) with nothing written.
 */
export function writeOutputFile(file: string, content: Uint8Array | string | Iterable<string>, opts: OutputOptions): void {
  const { flag, ...replace } = opts;
  const target = outputTarget(file, flag);
  // Nothing resumes an output file: it is written whole again; a device or a pipe not even that.
  if (target.kind === 'replace') return replaceFileAtomic(target.path, content, { ...replace, retry: 'rewrite' });
  const doing = `writing ${opts.what ?? 'the file'}`;
  // Written where it points, no temp file and no rename: a device or a named pipe opened here (and
  // closed), or the shell's own descriptor (its offset, its O_APPEND; never closed here).
  let opened: number | undefined;
  try {
    let fd: number;
    if (target.kind === 'fd') fd = target.fd;
    else {
      // no O_CREAT, no O_TRUNC: it exists, and if it is no longer a device it is not ours to truncate
      opened = fd = fs.openSync(target.path, fs.constants.O_WRONLY);
      const st = fs.fstatSync(fd);
      if (!st.isCharacterDevice() && !st.isFIFO())
        throw new UserError(
          `${flag}: ${file} changed while it was opened (it is no longer a device or a named pipe); run the command again`,
        );
    }
    if (typeof content === 'string' || content instanceof Uint8Array) writeAll(fd, content, { write: opts.write });
    else writeChunks(fd, content, opts.write);
    if (opened !== undefined) {
      const closing = opened;
      opened = undefined;
      fs.closeSync(closing);
    }
  } catch (e) {
    if (opened !== undefined) {
      try {
        fs.closeSync(opened);
      } catch {
        /* already failing */
      }
    }
    if (errorCode(e) === 'EPIPE')
      throw new UserError(`${file}: ${doing} failed (EPIPE): the reader of the pipe went away; the output is incomplete`, SIGPIPE_EXIT);
    throw toDiskError(e, file, doing, 'none');
  }
}

/**
 * Text produced piece by piece (a page too large to be one string; a piece that throws aborts the
 * write, and replaceFileAtomic then removes the temp file), the chunks encoded into one reused 1 MiB buffer, written each time it fills: no batch string or
 * buffer per MiB (those are large objects V8 frees only in a full collection, so a page of hundreds
 * of MB written in MiB batches piled them up). A chunk ending in half a surrogate pair waits for the
 * next, so the bytes are those of the joined text.
 */
function writeChunks(fd: number, chunks: Iterable<string>, write: WriteFn | undefined): void {
  const buf = Buffer.allocUnsafe(1 << 20);
  let used = 0;
  let carry = '';
  const flush = () => {
    if (used) writeAll(fd, buf.subarray(0, used), { write });
    used = 0;
  };
  const put = (c: string) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (used + c.length * 3 > buf.length) {
      flush();
      if (c.length * 3 > buf.length) return writeAll(fd, c, { write });
    }
    used += buf.write(c, used, 'utf8');
  };
  for (let c of chunks) {
    if (carry) {
      c = carry + c;
      carry = '';
    }
    const last = c.charCodeAt(c.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      carry = c.slice(-1);
      c = c.slice(0, -1);
    }
    if (c) put(c);
  }
  if (carry) put(carry);
  flush();
}

/** Whether a process with this PID exists (in our PID namespace). EPERM: it exists, owned by another user. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === 'EPERM';
  }
}

const TEMP_NAME = /\.tmp-(\d+)-[0-9a-z]{1,16}(?:-[a-z]+)*$/;

/** Whether a file name is a writer's temp file (tempPathFor's shape, SQLite's suffixes included). */
export function isTempFileName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * Removes the temp files in `dir` left by writers that are gone: names `<prefix>...tmp-<pid>-<token>`
 * (with optional suffixes such as "-shard", "-journal", "-wal") whose PID is not a live process (or
 * is ours but the name was not made by this process), and that start with `prefix` when one is
 * given. Files of other live processes are kept (a concurrent build's; a PID reused in another
 * container keeps its files too: removing a live writer's file would be worse). Returns the names.
 */
export function removeStaleTempFiles(dir: string, prefix = ''): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const full = path.resolve(dir, name);
    if (pid === process.pid ? [...ourTemps].some((t) => full.startsWith(t)) : isProcessAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(name);
    } catch {
      /* another cleaner got it, or not ours to remove: leave it */
    }
  }
  return removed;
}
