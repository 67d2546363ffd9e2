// The run-folder store: the one module that opens the files of a run folder, results/<run-id>/
// {manifest.json, episodes.jsonl, summary.csv, recording.jsonl}; their shapes are src/runlog/schema.ts.
// Every writer (a run, a combination, a merge, a re-run from a bundle) and every reader (resume, the
// report, bundles, merges, replays) goes through it.
// episodes.jsonl is append-only: each finished episode is one line, written whole and fsync'ed (in
// groups, off the event loop) before it counts as written, and the latest line per idx wins (so
// --retry-errors appends a replacement rather than rewriting the file). A kill -9 can leave at most a
// partial last line, one without its newline: opening the store drops it. A whole line that is no
// record (the last one too) is an edit or corruption: every reader refuses the file, naming the line.
// Schema-1 records are upgraded on read (upgradeRecord), so old runs still report (a schema-1 run
// cannot be resumed: its identity names the environment differently; start it again, its completions
// come from the cache).
// The other files are written whole (replaced atomically) or appended line by line (the recording).
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { removeStaleTempFiles, replaceFileAtomic, toDiskError, truncateTornTail, isTempFileName, type Retry } from '../util/durable.js';
import { GroupCommitLog } from '../util/group-commit.js';
import { forEachLine } from './episode-lines.js';
import { slimRecord } from './slim-record.js';
import { acquireRunLock, LOCK_FILE, type RunLock } from '../run/lock.js';
import { checkManifest, parseRecording, upgradeRecord, type EpisodeRecord, type ParsedRecording, type RunManifest } from './schema.js';

export { RUN_LOG_SCHEMA } from './schema.js';

// The files of a run folder, named here only.
export const MANIFEST_FILE = 'manifest.json';
export const EPISODES_FILE = 'episodes.jsonl';
export const SUMMARY_FILE = 'summary.csv';
export const RECORDING_FILE = 'recording.jsonl';

/**
 * Writes a file so that readers see either the old or the new content, never half of it. `retry`: what
 * running the command again does after a failed write, for its disk advice (default: a run's file, it
 * resumes; a folder `merge` derives from its shards, 'rebuild').
 */
export function writeFileAtomic(file: string, content: string, what = 'the file', retry?: Retry): void {
  replaceFileAtomic(file, content, { what, retry });
}

export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read (${errorCode(e) ?? errorMessage(e)})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`${file}: not valid JSON (${errorMessage(e)})`);
  }
}

/** Creates a run folder a derived run (a combination, a merge) is written into; `doing` names it in a disk error. */
export function makeRunFolder(dir: string, doing = 'creating the run folder', retry?: Retry): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw toDiskError(e, dir, doing, retry);
  }
}

/** Whether `dir` holds a run (its manifest.json exists). */
export function isRunFolder(dir: string): boolean {
  return fs.existsSync(path.join(dir, MANIFEST_FILE));
}

/** A run folder's manifest.json, its key fields checked (UserError naming the file when missing, not JSON or incomplete). */
export function readManifest(dir: string): RunManifest {
  const file = path.join(dir, MANIFEST_FILE);
  return checkManifest(readJsonFile(file), file);
}

/** The manifest of `dir`, or null when it holds no run. */
export function manifestIfAny(dir: string): RunManifest | null {
  return isRunFolder(dir) ? readManifest(dir) : null;
}

/** manifest.json's text, as every writer writes it. */
export function manifestText(manifest: object): string {
  return JSON.stringify(manifest, null, 2) + '\n';
}

/** Replaces a run folder's manifest.json (text from manifestText, checked for secrets by the caller). */
export function writeManifest(dir: string, text: string, retry?: Retry): void {
  writeFileAtomic(path.join(dir, MANIFEST_FILE), text, 'the manifest', retry);
}

/**
 * Removes a run folder's manifest.json before a command writes the whole folder again (`merge` over its
 * earlier merge): until the new manifest is written last, the folder reads as no run, never as the old
 * manifest over new episodes.
 */
export function withdrawManifest(dir: string): void {
  const file = path.join(dir, MANIFEST_FILE);
  try {
    fs.rmSync(file, { force: true });
  } catch (e) {
    throw toDiskError(e, file, 'removing the earlier manifest', 'rebuild');
  }
}

/**
 * Whether `dir` holds nothing but what writing a derived run folder leaves before its manifest (a
 * `merge` stopped by a full disk or a kill): its files, the run lock, temp files. Such a folder is no
 * run (isRunFolder) and the same command may write it again.
 */
export function holdsUnfinishedRunFiles(dir: string): boolean {
  const own = new Set([EPISODES_FILE, RECORDING_FILE, SUMMARY_FILE, LOCK_FILE]);
  return fs.readdirSync(dir).every((f) => own.has(f) || isTempFileName(f));
}

/** Replaces a run folder's summary.csv. */
export function writeSummary(dir: string, csv: string, retry?: Retry): void {
  writeFileAtomic(path.join(dir, SUMMARY_FILE), csv, 'the summary', retry);
}

/** Writes a derived run's episodes.jsonl whole (a combination, a merge); `what` names it in a disk error. */
export function writeEpisodes(dir: string, lines: string, what: string, retry?: Retry): void {
  writeFileAtomic(path.join(dir, EPISODES_FILE), lines, what, retry);
}

/** A run folder's episodes.jsonl as written (every line, replaced ones included). */
export function episodesText(dir: string): string {
  return fs.readFileSync(episodesFile(dir), 'utf8');
}

/** Where a run folder's episodes.jsonl is (for messages). */
export function episodesFile(dir: string): string {
  return path.join(dir, EPISODES_FILE);
}

/** A run folder's records: the latest per item, upgraded to schema 2 (none when episodes.jsonl is absent). */
export function readRecords(dir: string): Map<number, EpisodeRecord> {
  return loadEpisodes(episodesFile(dir)).records;
}

/** A run folder read whole: its checked manifest and its records. */
export function readRun(dir: string): { dir: string; manifest: RunManifest; records: Map<number, EpisodeRecord> } {
  return { dir, manifest: readManifest(dir), records: readRecords(dir) };
}

/** Where a run folder's recording.jsonl is (its recorder appends to it: src/run/run-recording.ts). */
export function recordingFile(dir: string): string {
  return path.join(dir, RECORDING_FILE);
}

/** Opens recording.jsonl (`recordingFile(dir)`) for appending; a torn last line (kill -9) is cut first, so it cannot glue to the next line. */
export function openRecording(file: string): number {
  try {
    truncateTornTail(file);
    return fs.openSync(file, 'a');
  } catch (e) {
    throw toDiskError(e, file, 'opening the run recording');
  }
}

export function hasRecording(dir: string): boolean {
  return fs.existsSync(recordingFile(dir));
}

/** recording.jsonl's text, or null when the run has none. */
export function recordingText(dir: string): string | null {
  const file = recordingFile(dir);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
}

/** A run folder's recording, parsed (UserError when the run has none). */
export function readRecording(dir: string): ParsedRecording {
  const text = recordingText(dir);
  if (text === null) {
    throw new UserError(
      `${dir}: no ${RECORDING_FILE} (the run was made by a version that did not record its environment and model traffic); re-run it to bundle it`,
    );
  }
  return parseRecording(text, recordingFile(dir));
}

/**
 * Replaces a derived run's recording.jsonl (a merge: the kept episodes' attempts), or removes an earlier
 * one when the run has none (`text` null), so no recording of other episodes stays beside it.
 */
export function writeRecording(dir: string, text: string | null, retry?: Retry): void {
  const file = recordingFile(dir);
  if (text !== null) return writeFileAtomic(file, text, 'the merged recording', retry);
  try {
    fs.rmSync(file, { force: true });
  } catch (e) {
    throw toDiskError(e, file, 'removing the earlier recording', retry);
  }
}

/** The files of a run folder as a bundle packs them, by name: not the lock, not a killed writer's temp file. */
export function runFolderFiles(dir: string): { name: string; data: Buffer }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && d.name !== LOCK_FILE && !isTempFileName(d.name))
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, data: fs.readFileSync(path.join(dir, name)) }));
}

export interface LoadResult {
  /** Latest record per question_idx, in file order of their latest line. */
  records: Map<number, EpisodeRecord>;
  /** Bytes of a partial last line (no newline) that were dropped (0 when the file was clean). */
  droppedBytes: number;
  lines: number;
}

/**
 * Reads episodes.jsonl, keeping the latest record per question_idx (as `keep` maps it, given the byte
 * offset its line starts at: the run store keeps slim records, src/runlog/slim-record.ts; the report,
 * src/runlog/episode-source.ts, where to read each full record back). A partial last line (no
 * newline: a kill -9 mid-append) is dropped, and with `repair` truncated away so that appends continue
 * on a clean line boundary; any whole line that is no record, the last one included, is a UserError
 * naming the file and line. The file is read in chunks (src/runlog/episode-lines.ts): memory holds
 * the records kept, not the file.
 */
export function loadEpisodes(
  file: string,
  opts: { repair?: boolean; keep?: (rec: EpisodeRecord, offset: number) => EpisodeRecord } = {},
): LoadResult {
  const records = new Map<number, EpisodeRecord>();
  if (!fs.existsSync(file)) return { records, droppedBytes: 0, lines: 0 };
  let count = 0;
  const { complete, size } = forEachLine(file, (bytes, offset, i) => {
    const line = bytes.toString('utf8');
    if (line.trim() === '') return;
    let rec: EpisodeRecord;
    try {
      rec = upgradeRecord(JSON.parse(line));
    } catch (e) {
      // A line with its newline was written whole (appendRecord writes the newline last), so a bad
      // one is an edit or corruption wherever it is, the last line too: never dropped.
      throw new UserError(`${file}: line ${i + 1} is not an episode record (${errorMessage(e)}); the file was edited or corrupted`);
    }
    if (opts.keep) rec = opts.keep(rec, offset);
    records.delete(rec.idx); // keep insertion order = order of the latest line
    records.set(rec.idx, rec);
    count++;
  });
  // The tail after the last newline is an episode whose write was cut off (a kill -9).
  const dropped = size - complete;
  if (dropped > 0 && opts.repair) fs.truncateSync(file, complete);
  return { records, droppedBytes: dropped, lines: count };
}

export class RunStore {
  /** Latest record per index, slim (src/runlog/slim-record.ts): no trajectory text; episodes.jsonl has it. */
  readonly records: Map<number, EpisodeRecord>;
  /** Bytes of a cut-off last line dropped when the store was opened (after a kill -9). */
  readonly recoveredBytes: number;
  /** The record lines episodes.jsonl held when the store was opened (replaced ones included). */
  readonly linesAtOpen: number;
  private log: GroupCommitLog | null;
  private lock: RunLock | null;

  private constructor(
    readonly dir: string,
    loaded: LoadResult,
    fd: number,
    lock: RunLock | null,
  ) {
    this.records = loaded.records;
    this.recoveredBytes = loaded.droppedBytes;
    this.linesAtOpen = loaded.lines;
    this.log = new GroupCommitLog(fd, path.join(dir, EPISODES_FILE), { what: 'the run log' });
    this.lock = lock;
  }

  /**
   * Opens (creating) a run directory for writing: takes the lock (src/run/lock.ts: atomic, safe
   * across PID namespaces), removes temp files of killed writers, repairs and loads episodes.jsonl.
   */
  static open(dir: string, opts: { lock?: boolean } = {}): RunStore {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw toDiskError(e, dir, 'creating the run folder');
    }
    const lock = opts.lock !== false ? acquireRunLock(dir) : null;
    try {
      removeStaleTempFiles(dir);
      const file = path.join(dir, EPISODES_FILE);
      const loaded = loadEpisodes(file, { repair: true, keep: slimRecord });
      let fd: number;
      try {
        fd = fs.openSync(file, 'a');
      } catch (e) {
        throw toDiskError(e, file, 'opening the run log');
      }
      return new RunStore(dir, loaded, fd, lock);
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  /**
   * Appends one finished episode, whole or not at all (a failed write throws here, the file as it
   * was); the promise resolves once the episode is durable (fsync'd, grouped with the episodes that
   * finished meanwhile: src/util/group-commit.ts) and rejects with a DiskError when the fsync fails.
   */
  append(rec: EpisodeRecord): Promise<void> {
    if (this.log === null) throw new Error('RunStore is closed');
    const durable = this.log.append(JSON.stringify(rec));
    this.records.delete(rec.idx);
    this.records.set(rec.idx, slimRecord(rec));
    return durable;
  }

  writeSummary(csv: string): void {
    writeSummary(this.dir, csv);
  }

  close(): void {
    this.log?.close();
    this.log = null;
    this.lock?.release();
    this.lock = null;
  }
}
