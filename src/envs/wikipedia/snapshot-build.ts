// Building an offline Wikipedia snapshot (the database snapshot.ts serves): pages read from dumps
// (snapshot-source-readers.ts) into a SQLite database with an FTS5 index built on two threads. Kept out
// of snapshot.ts so a run loads none of it (node:worker_threads, node:readline, unbzip2-stream) unless
// a database must be built (bench/results-start.md).
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { sha256File } from '../../util/hash.js';
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { openSqlite, sqliteModulePath, type SqliteDatabase } from '../../util/sqlite.js';
import { forgetTempPath, removeStaleTempFiles, tempPathFor } from '../../util/durable.js';
import { checkWritableDir } from '../../util/safe-path.js';
import { listSourceFiles, readSourceFile } from './snapshot-source-readers.js';
import { SNAPSHOT_FORMAT, normalizeTitle } from './snapshot.js';

export interface BuildOptions {
  /** Files or directories of dumps (see snapshot-sources.ts). */
  from: string[];
  out: string;
  /** Called every `progressEvery` pages and at the end. */
  onProgress?: (pages: number, done: boolean) => void;
  progressEvery?: number;
  /** Pages handed to an FTS5 indexer at a time (default 1,000). */
  batch?: number;
  /** FTS5 in-memory term buffer of each indexer before a segment is written (default 256 MB). */
  hashBytes?: number;
}

export interface BuildResult {
  path: string;
  pages: number;
  seconds: number;
  bytes: number;
  sourceSha256: string;
}

const FTS_TABLE_SQL = `CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, content='', tokenize='unicode61 remove_diacritics 2')`;

/**
 * Build-time settings shared by the database and the indexing worker's shard: no journal and no fsync
 * (the build writes a temporary file that is renamed into place only when complete, so a crash loses
 * nothing a reader could see), a large in-memory FTS5 term buffer (a segment is written each time it
 * fills: fewer, bigger segments) and no incremental merging (merging rewrites the index: at 1M pages it
 * cost more time than the segments it removes cost searches; see buildSnapshot).
 */
function buildSetupSql(hashBytes: number): string {
  return `
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    PRAGMA cache_size = -200000;
    ${FTS_TABLE_SQL};
    INSERT INTO pages_fts(pages_fts, rank) VALUES ('hashsize', ${Math.trunc(hashBytes)});
    INSERT INTO pages_fts(pages_fts, rank) VALUES ('automerge', 0);
    INSERT INTO pages_fts(pages_fts, rank) VALUES ('crisismerge', 64);
  `;
}

/** The sha256 naming the sources: a single file's own sha256, else one over each file's name and sha256. */
async function sourcesSha256(files: string[], roots: string[]): Promise<string> {
  if (files.length === 1) return sha256File(files[0]);
  const h = createHash('sha256');
  for (const f of files) {
    const root = roots.find((r) => f.startsWith(r)) ?? '';
    h.update(`${path.relative(root, f)}\t${await sha256File(f)}\n`);
  }
  return h.digest('hex');
}

/** A batch of consecutive pages for an FTS5 indexer: rowids firstId, firstId+1, ... */
interface FtsBatch {
  firstId: number;
  titles: string[];
  bodies: string[];
}

/**
 * The indexing worker's code. Plain CommonJS in a string (run with `eval: true`) so it loads the same
 * way under tsx, vitest and plain node, with no TypeScript loader in the worker; better-sqlite3 is
 * required by the absolute path the main thread resolved. It indexes the batches it is sent into its
 * own shard database (one long transaction, so segments are only written when the term buffer is full),
 * counts finished batches in shared memory (the main thread reads that without waiting for messages),
 * and on 'end' commits (writing its last segment) and closes.
 */
const SHARD_WORKER_JS = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.file);
db.exec(workerData.setupSql);
const ins = db.prepare('INSERT INTO pages_fts(rowid, title, body) VALUES (?, ?, ?)');
const done = new Int32Array(workerData.done);
db.exec('BEGIN');
parentPort.on('message', (m) => {
  if (m === 'end') {
    db.exec('COMMIT');
    db.close();
    parentPort.postMessage('closed');
    parentPort.close();
    return;
  }
  for (let i = 0; i < m.titles.length; i++) ins.run(m.firstId + i, m.titles[i], m.bodies[i]);
  Atomics.add(done, 0, 1);
});
`;

/** A worker thread building part of the FTS5 index into its own database file (merged by mergeShard). */
class FtsShardWorker {
  private readonly worker: Worker;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private sent = 0;
  private failure: Error | undefined;
  private readonly closed: Promise<void>;

  constructor(readonly file: string, setupSql: string) {
    this.worker = new Worker(SHARD_WORKER_JS, {
      eval: true,
      execArgv: [], // no TypeScript loader needed (or wanted: it costs startup time) in the worker
      workerData: { file, setupSql, done: this.done.buffer, sqlite: sqliteModulePath() },
    });
    this.closed = new Promise<void>((resolve, reject) => {
      let closed = false;
      this.worker.on('message', (m) => m === 'closed' && ((closed = true), resolve()));
      this.worker.on('error', (e) => reject((this.failure = e)));
      this.worker.on('exit', (code) => closed || reject((this.failure ??= new Error(`FTS5 indexing worker exited (code ${code})`))));
    });
    this.closed.catch(() => {}); // observed through finish() or throwIfFailed()
  }

  /** Batches sent but not yet indexed. */
  get pending(): number {
    return this.sent - Atomics.load(this.done, 0);
  }

  send(b: FtsBatch): void {
    this.worker.postMessage(b);
    this.sent++;
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** Resolves once the worker has indexed everything and closed its database. */
  finish(): Promise<void> {
    this.worker.postMessage('end');
    return this.closed;
  }

  async abort(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * Builds a snapshot into a temporary file next to `out` and renames it into place, so a concurrent or
 * killed build never leaves a half database where a reader would open it.
 *
 * Speed (bench/results-wiki.md): FTS5 tokenising and indexing is most of the work and SQLite does it on
 * one thread, so the index is built in two shards on two threads. The main thread reads and parses the
 * dumps, writes the `pages` table, and hands batches of pages to a worker thread that indexes them into
 * a shard database; when the worker is busy (`MAX_PENDING` batches queued) the main thread indexes the
 * batch itself, so the split follows whichever thread has spare time. At the end the worker's segments
 * are copied into the database (mergeShard). Which shard indexed a page does not matter: FTS5 answers
 * from the union of its segments, and BM25 uses whole-index statistics (row count, token totals,
 * per-document sizes), which the merge sums, so search results are identical to a single-threaded build
 * (checked query by query on the shipped pages and on 200,000 synthetic ones).
 * Segments are not merged into one ('optimize'): at 1M pages that took 8 s of a 50 s build, and the
 * 3 segments left (one per full 256 MB term buffer per thread) leave search times unchanged.
 */
export async function buildSnapshot(opts: BuildOptions): Promise<BuildResult> {
  const t0 = process.hrtime.bigint();
  const files = opts.from.flatMap(listSourceFiles);
  // hashed while the build reads the same files (the OS cache serves the second reader)
  const sha = sourcesSha256(files, opts.from);
  sha.catch(() => {}); // awaited below; an error then fails the build
  let sourceSha256: string;
  checkWritableDir(path.dirname(path.resolve(opts.out)), `the snapshot database ${opts.out}`, { create: true });
  // A killed build leaves <out>.tmp-<pid>-<token>[-shard] behind: remove those whose process is gone.
  removeStaleTempFiles(path.dirname(path.resolve(opts.out)), `${path.basename(opts.out)}.tmp-`);
  const tmp = tempPathFor(opts.out);
  const shardFile = `${tmp}-shard`;
  const setupSql = buildSetupSql(opts.hashBytes ?? 256 * 1024 * 1024);
  const shard = new FtsShardWorker(shardFile, setupSql);
  let db: SqliteDatabase | undefined;
  let pages = 0;
  try {
    // opened inside the try: if it fails, the worker is stopped (a live worker would keep the process up)
    db = openSqlite(tmp);
    db.exec(setupSql);
    db.exec(`
      CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE pages(id INTEGER PRIMARY KEY, title TEXT NOT NULL, norm TEXT NOT NULL, lower TEXT NOT NULL, paragraphs TEXT NOT NULL);
      -- created before the rows: filled while the worker indexes, rather than sorted at the end while
      -- the worker has nothing left to do
      CREATE INDEX pages_norm ON pages(norm, id);
      CREATE INDEX pages_lower ON pages(lower, id);
    `);
    const insPage = db.prepare('INSERT INTO pages(id, title, norm, lower, paragraphs) VALUES (?, ?, ?, ?, ?)');
    const insFts = db.prepare('INSERT INTO pages_fts(rowid, title, body) VALUES (?, ?, ?)');
    const indexHere = (b: FtsBatch) => {
      for (let i = 0; i < b.titles.length; i++) insFts.run(b.firstId + i, b.titles[i], b.bodies[i]);
    };
    // A few batches queued keep the worker busy while the main thread parses; more would only hold memory.
    const MAX_PENDING = 3;
    const batchSize = opts.batch ?? 1000;
    const every = opts.progressEvery ?? 50_000;
    let nextReport = every;
    let batch: FtsBatch = { firstId: 1, titles: [], bodies: [] };
    const flush = () => {
      if (batch.titles.length === 0) return;
      shard.throwIfFailed();
      if (shard.pending < MAX_PENDING) shard.send(batch);
      else indexHere(batch);
      batch = { firstId: pages + 1, titles: [], bodies: [] };
      if (pages >= nextReport) {
        opts.onProgress?.(pages, false);
        nextReport += every;
      }
    };
    // One transaction for the whole build: FTS5 writes a segment at every commit, and with the journal
    // off a long transaction costs nothing.
    db.exec('BEGIN');
    for (const f of files) {
      for await (const page of readSourceFile(f)) {
        pages++;
        const norm = normalizeTitle(page.title);
        insPage.run(pages, page.title, norm, norm.toLowerCase(), JSON.stringify(page.paragraphs));
        batch.titles.push(page.title);
        batch.bodies.push(page.paragraphs.join('\n'));
        if (batch.titles.length >= batchSize) flush();
      }
    }
    flush();
    const shardDone = shard.finish(); // the worker writes its last segment while this thread commits
    db.exec('COMMIT');
    sourceSha256 = await sha;
    const meta = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
    meta.run('format', String(SNAPSHOT_FORMAT));
    meta.run('pages', String(pages));
    meta.run('source_sha256', sourceSha256);
    meta.run('sources', JSON.stringify(files.map((f) => path.basename(f))));
    meta.run('built_at', new Date().toISOString());
    await shardDone;
    mergeShard(db, shardFile);
    db.close();
    // The build ran without a journal or syncs (speed); make the bytes durable before the rename
    // publishes the file, so a power loss cannot leave a corrupt database at the final path.
    fsyncFile(tmp);
    renameSync(tmp, opts.out);
  } catch (e) {
    await shard.abort();
    if (db?.open) db.close();
    rmSync(tmp, { force: true });
    throw e;
  } finally {
    rmSync(shardFile, { force: true });
    forgetTempPath(tmp);
  }
  opts.onProgress?.(pages, true);
  return {
    path: opts.out,
    pages,
    seconds: Number(process.hrtime.bigint() - t0) / 1e9,
    bytes: statSync(opts.out).size,
    sourceSha256,
  };
}

// ---- Merging the worker's FTS5 shard (FTS5's on-disk format, sqlite3.c fts5_index.c "Details") ----
// An FTS5 index lives in shadow tables: %_data holds the averages record (rowid 1: varint row count, then
// a varint token total per column), the structure record (rowid 10: a 4-byte config cookie, varints
// levels, segments, write counter, then per level: segments being merged, segment count, and per segment
// its id, first and last leaf page) and every segment's pages (rowid = segment id << 37 | page);
// %_idx maps (segment id, term) to leaf pages; %_docsize holds each row's token count per column.

/** SQLite's varint (as FTS5 records use it): big-endian groups of 7 bits, high bit = more follow. */
function getVarint(b: Uint8Array, pos: number): [value: number, next: number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = b[pos + i];
    v = v * 128 + (c & 0x7f);
    if (c < 0x80) return [v, pos + i + 1];
  }
  return [v * 256 + b[pos + 8], pos + 9]; // the 9th byte carries 8 bits
}

function putVarint(v: number, out: number[]): void {
  // counts here stay far below 2^53; the 9-byte form (values ≥ 2^56) never occurs
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`FTS5 merge: bad varint value ${v}`);
  const groups: number[] = [];
  do {
    groups.unshift(v % 128);
    v = Math.floor(v / 128);
  } while (v > 0);
  groups.forEach((g, i) => out.push(i < groups.length - 1 ? g | 0x80 : g));
}

function getVarints(b: Uint8Array): number[] {
  const out: number[] = [];
  for (let pos = 0; pos < b.length; ) {
    const [v, next] = getVarint(b, pos);
    out.push(v);
    pos = next;
  }
  return out;
}

interface FtsSegment {
  id: number;
  firstPage: number;
  lastPage: number;
}
interface FtsStructure {
  cookie: Uint8Array;
  writeCounter: number;
  levels: FtsSegment[][];
}

function decodeStructure(b: Uint8Array): FtsStructure {
  // The V2 layout (FF 00 00 01 after the cookie) is only used by contentless_delete=1 tables.
  if (b[4] === 0xff) throw new Error('FTS5 merge: unexpected V2 structure record');
  let pos = 4;
  const next = () => {
    const [v, p] = getVarint(b, pos);
    pos = p;
    return v;
  };
  const nLevel = next();
  next(); // total segments: recounted on encoding
  const writeCounter = next();
  const levels: FtsSegment[][] = [];
  for (let l = 0; l < nLevel; l++) {
    if (next() !== 0) throw new Error('FTS5 merge: a merge is in progress'); // never with automerge off
    const n = next();
    const segs: FtsSegment[] = [];
    for (let i = 0; i < n; i++) segs.push({ id: next(), firstPage: next(), lastPage: next() });
    levels.push(segs);
  }
  return { cookie: b.subarray(0, 4), writeCounter, levels };
}

function encodeStructure(s: FtsStructure): Buffer {
  const out = [...s.cookie];
  putVarint(s.levels.length, out);
  putVarint(s.levels.reduce((n, l) => n + l.length, 0), out);
  putVarint(s.writeCounter, out);
  for (const level of s.levels) {
    putVarint(0, out);
    putVarint(level.length, out);
    for (const seg of level) [seg.id, seg.firstPage, seg.lastPage].forEach((v) => putVarint(v, out));
  }
  return Buffer.from(out);
}

/**
 * Adds the worker's shard (a database holding the same FTS5 table over other rowids) to `db`'s index:
 * its segments are copied under fresh segment ids and appended to the structure record, its docsize rows
 * are copied as they are (rowids are disjoint) and the averages (row count, tokens per column) are summed.
 * Writing shadow tables needs SQLite's defensive mode off (better-sqlite3's unsafeMode) while copying.
 */
function mergeShard(db: SqliteDatabase, shardFile: string): void {
  db.prepare('ATTACH DATABASE ? AS shard').run(shardFile);
  const record = (schema: string, id: number) =>
    db.prepare<[number], { block: Buffer }>(`SELECT block FROM ${schema}.pages_fts_data WHERE id = ?`).get(id)?.block;
  const mine = decodeStructure(record('main', 10)!);
  const theirs = decodeStructure(record('shard', 10)!);
  const averages = (schema: string) => getVarints(record(schema, 1) ?? Buffer.alloc(0));
  const [a, b] = [averages('main'), averages('shard')];
  const summed: number[] = [];
  for (const v of Array.from({ length: Math.max(a.length, b.length) }, (_, i) => (a[i] ?? 0) + (b[i] ?? 0))) putVarint(v, summed);

  db.unsafeMode(true); // before preparing: statements writing shadow tables are refused in defensive mode
  try {
    const copyPages = db.prepare(
      'INSERT INTO main.pages_fts_data(id, block) SELECT id - @from + @to, block FROM shard.pages_fts_data WHERE id >= @from AND id < @from + (1 << 37)',
    );
    const copyIdx = db.prepare('INSERT INTO main.pages_fts_idx(segid, term, pgno) SELECT ?, term, pgno FROM shard.pages_fts_idx WHERE segid = ?');
    let nextId = Math.max(0, ...mine.levels.flat().map((s) => s.id)) + 1;
    const levels = Array.from({ length: Math.max(mine.levels.length, theirs.levels.length) }, (_, l) => [...(mine.levels[l] ?? [])]);
    db.transaction(() => {
      theirs.levels.forEach((segs, l) => {
        for (const seg of segs) {
          const id = nextId++;
          copyPages.run({ from: BigInt(seg.id) << 37n, to: BigInt(id) << 37n });
          copyIdx.run(id, seg.id);
          levels[l].push({ ...seg, id });
        }
      });
      db.exec('INSERT INTO main.pages_fts_docsize(id, sz) SELECT id, sz FROM shard.pages_fts_docsize');
      const put = db.prepare('INSERT OR REPLACE INTO main.pages_fts_data(id, block) VALUES (?, ?)');
      if (summed.length > 0) put.run(1, Buffer.from(summed)); // absent while a table has no rows
      put.run(10, encodeStructure({ cookie: mine.cookie, writeCounter: mine.writeCounter + theirs.writeCounter, levels }));
    })();
  } finally {
    db.unsafeMode(false);
    db.exec('DETACH DATABASE shard');
  }
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
