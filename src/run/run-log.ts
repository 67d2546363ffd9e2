// The run log: the one module that writes and reads a run folder, results/<run-id>/{manifest.json,
// episodes.jsonl, summary.csv}. Schema 2 (RUN_LOG_SCHEMA): records keyed by `idx` with a `metrics`
// object; schema-1 records (HotpotQA/FEVER runs of 0.1: question_idx, question, em, f1) are upgraded
// on read, so old runs still report and resume.
// episodes.jsonl is append-only: each finished episode is one line, written and fsync'ed before the
// next one, and the latest line per question_idx wins (so --retry-errors appends a replacement rather
// than rewriting the file). A kill -9 can leave at most a partial last line: opening the store drops it.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import type { EpisodeRecord } from './record.js';
import type { RunManifest } from './manifest.js';

/** The run-log schema this version writes (manifest.schema). */
export const RUN_LOG_SCHEMA = 2;

export const MANIFEST_FILE = 'manifest.json';
export const EPISODES_FILE = 'episodes.jsonl';
export const SUMMARY_FILE = 'summary.csv';
const LOCK_FILE = '.lock';

/** Writes a file so that readers see either the old or the new content, never half of it. */
export function writeFileAtomic(file: string, content: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncDir(path.dirname(file));
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  }
}

export function readJsonFile<T = unknown>(file: string): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new UserError(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

/**
 * A parsed episodes.jsonl line as a schema-2 record. Schema 1 (question_idx, question, em, f1 at the
 * top level) becomes idx/item/input and metrics {em, f1}. Throws on a line that is no record.
 */
export function upgradeRecord(raw: unknown): EpisodeRecord {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('not a JSON object');
  const r = raw as Record<string, unknown>;
  if (typeof r.idx === 'number' && r.metrics && typeof r.metrics === 'object') return r as EpisodeRecord;
  if (typeof r.question_idx !== 'number') throw new Error('no idx');
  const { question_idx, question, em, f1, ...rest } = r;
  return {
    ...rest,
    idx: question_idx,
    item: String(question ?? ''),
    input: String(question ?? ''),
    gold: (r.gold as string | undefined) ?? null,
    metrics: { em: Number(em ?? 0), f1: Number(f1 ?? 0) },
  } as unknown as EpisodeRecord;
}

/** A run folder's manifest.json (UserError naming the file when missing or not JSON). */
export function readManifest(dir: string): RunManifest {
  return readJsonFile<RunManifest>(path.join(dir, MANIFEST_FILE));
}

export interface LoadResult {
  /** Latest record per question_idx, in file order of their latest line. */
  records: Map<number, EpisodeRecord>;
  /** Bytes of a partial or unreadable last line that were dropped (0 when the file was clean). */
  droppedBytes: number;
  lines: number;
}

/**
 * Reads episodes.jsonl, keeping the latest record per question_idx. With `repair`, a partial last line
 * (no newline, or not JSON) is truncated away so that appends continue on a clean line boundary.
 */
export function loadEpisodes(file: string, opts: { repair?: boolean } = {}): LoadResult {
  const records = new Map<number, EpisodeRecord>();
  if (!fs.existsSync(file)) return { records, droppedBytes: 0, lines: 0 };
  const buf = fs.readFileSync(file);
  let end = buf.length;
  let dropped = 0;
  const lastNl = buf.lastIndexOf(0x0a);
  if (lastNl + 1 < buf.length) {
    // The tail after the last newline is an episode whose write was cut off.
    end = lastNl + 1;
    dropped = buf.length - end;
  }
  const text = buf.subarray(0, end).toString('utf8');
  const lines = text.split('\n');
  lines.pop(); // '' after the final newline
  let goodEnd = end;
  let count = 0;
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const lineBytes = Buffer.byteLength(line, 'utf8') + 1;
    if (line.trim() === '') {
      offset += lineBytes;
      continue;
    }
    let rec: EpisodeRecord;
    try {
      rec = upgradeRecord(JSON.parse(line));
    } catch (e) {
      if (i === lines.length - 1) {
        // A last line that is not a record: treat it like a partial write.
        goodEnd = offset;
        dropped += end - offset;
        break;
      }
      throw new UserError(`${file}: line ${i + 1} is not an episode record (${(e as Error).message}); the file was edited or corrupted`);
    }
    records.delete(rec.idx); // keep insertion order = order of the latest line
    records.set(rec.idx, rec);
    count++;
    offset += lineBytes;
  }
  if (dropped > 0 && opts.repair) fs.truncateSync(file, goodEnd);
  return { records, droppedBytes: dropped, lines: count };
}

export class RunStore {
  readonly records: Map<number, EpisodeRecord>;
  /** Bytes of a cut-off last line dropped when the store was opened (after a kill -9). */
  readonly recoveredBytes: number;
  private fd: number | null;
  private locked: boolean;

  private constructor(readonly dir: string, loaded: LoadResult, fd: number, locked: boolean) {
    this.records = loaded.records;
    this.recoveredBytes = loaded.droppedBytes;
    this.fd = fd;
    this.locked = locked;
  }

  /** Opens (creating) a run directory for writing: takes the lock, repairs and loads episodes.jsonl. */
  static open(dir: string, opts: { lock?: boolean } = {}): RunStore {
    fs.mkdirSync(dir, { recursive: true });
    const locked = opts.lock !== false;
    if (locked) acquireLock(dir);
    try {
      const file = path.join(dir, EPISODES_FILE);
      const loaded = loadEpisodes(file, { repair: true });
      const fd = fs.openSync(file, 'a');
      return new RunStore(dir, loaded, fd, locked);
    } catch (e) {
      if (locked) releaseLock(dir);
      throw e;
    }
  }

  get manifestPath(): string {
    return path.join(this.dir, MANIFEST_FILE);
  }

  /** Appends one finished episode and makes it durable before returning. */
  append(rec: EpisodeRecord): void {
    if (this.fd === null) throw new Error('RunStore is closed');
    fs.writeSync(this.fd, JSON.stringify(rec) + '\n');
    fs.fsyncSync(this.fd);
    this.records.delete(rec.idx);
    this.records.set(rec.idx, rec);
  }

  writeManifest(manifest: unknown): void {
    writeFileAtomic(this.manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  }

  writeSummary(csv: string): void {
    writeFileAtomic(path.join(this.dir, SUMMARY_FILE), csv);
  }

  close(): void {
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
    if (this.locked) {
      releaseLock(this.dir);
      this.locked = false;
    }
  }
}

/** One writer per run directory: a second process on the same run would interleave and duplicate. */
function acquireLock(dir: string): void {
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new UserError(`${dir}: this run is in progress in process ${pid}; wait for it or stop it first`);
      }
      if (pid === process.pid) throw new UserError(`${dir}: this run is already open in this process`);
      fs.rmSync(file, { force: true }); // stale lock from a killed process
    }
  }
  throw new UserError(`${dir}: cannot take the run lock`);
}

function releaseLock(dir: string): void {
  fs.rmSync(path.join(dir, LOCK_FILE), { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
