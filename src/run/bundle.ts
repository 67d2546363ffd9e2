// `react-repro bundle`: one file that holds finished runs and everything needed to re-run them
// offline, byte for byte (README "Publishable runs and exports"): the run folders as they are (manifest,
// episodes, summary, recording.jsonl with every environment answer and model call), the completion
// cache entries the runs used, and bundle.json (schema, members with size and sha256, what each run
// holds). `run --from-bundle` (from-bundle.ts) re-runs it.
//
// Format: a gzip'd POSIX tar (src/util/tar.ts; zlib from Node's standard library). Chosen over one
// JSON/JSONL.gz because a reader can open it with `tar xzf` and get run folders that `report` and
// `export` read as they are, while the JSON members stay plain text (diffable, greppable).
// Cache entries are JSON lines (cache/completions.jsonl), not a SQLite file: text, deterministic, and
// no SQLite needed to read them. Each entry is exported from the SQLite completion cache
// (src/llm/cache/file.ts tables `completions` and `requests`) by the exact keys the episodes' model calls
// used, as recording.jsonl names them; a run made with --cache off (nothing in the cache) takes the
// completions from its recording instead, and so does a key whose cached samples are not the ones the
// episode received.
import { openSqlite, type SqliteDatabase } from '../util/sqlite.js';
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { sha256 } from '../util/hash.js';
import { removeStaleTempFiles, writeOutputFile } from '../util/durable.js';
import { tarPack, tarUnpack, type TarEntry } from '../util/tar.js';
import {
  hasRecording,
  isRunFolder,
  readManifest,
  readRecording,
  readRecords,
  recordingFile,
  runFolderFiles,
  MANIFEST_FILE,
  RECORDING_FILE,
} from '../runlog/store.js';
import { softwareInfo } from './manifest.js';
import type { RunManifest, LlmLine, ParsedRecording } from '../runlog/schema.js';
import { nodeZlib } from '../util/lazy-builtins.js';

export const BUNDLE_SCHEMA = 1;
export const BUNDLE_MANIFEST = 'bundle.json';
export const CACHE_MEMBER = 'cache/completions.jsonl';
export const RUNS_FOLDER = 'runs';

/**
 * Episode record fields a re-run cannot reproduce, left out of the comparison: wall-clock time. (The
 * accounting fields usage, cost, spent_*, cached_calls are reproduced: the recording keeps each
 * call's own accounting.)
 */
export const NONDETERMINISTIC_FIELDS = ['latency_ms'] as const;

export interface BundleMember {
  path: string;
  size: number;
  sha256: string;
}

export interface BundleRun {
  runId: string;
  /** The run folder inside the bundle: runs/<runId>. */
  folder: string;
  task: string;
  method: string;
  split: string;
  model: string;
  episodes: number;
  /** Environment calls (resets and steps) and model calls of the episodes a re-run replays. */
  envCalls: number;
  modelCalls: number;
  /** The files of the run folder, as packed. */
  files: string[];
}

export interface BundleManifest {
  schema: number;
  kind: 'react-repro-bundle';
  createdAt: string;
  software: RunManifest['software'];
  /** Record fields left out when a re-run is compared with the bundled episodes. */
  nondeterministic: string[];
  runs: BundleRun[];
  cache: {
    file: string;
    /** Keys (distinct requests) and samples exported. */
    entries: number;
    samples: number;
    /** Entries from the SQLite cache, and from the runs' recordings (--cache off, or cache lacking them). */
    fromCache: number;
    fromRecording: number;
  };
  /** Every other member with its size and sha256 (bundle.json itself excepted). */
  members: BundleMember[];
}

/** One line of cache/completions.jsonl. */
export interface CacheEntry {
  key: string;
  model: string;
  /** The canonical request JSON the key hashes (src/llm/cache/key.ts canonicalRequest); null when not cached. */
  request: string | null;
  samples: Array<{
    index: number;
    text: string;
    finishReason: string;
    callN?: number | null;
    promptTokens?: number | null;
    completionTokens?: number | null;
    totalTokens?: number | null;
  }>;
  source: 'cache' | 'recording';
}

export interface PackOptions {
  /** The SQLite completion cache to export from (default: each run's, as its manifest names it). */
  cachePath?: string;
}

export interface PackResult {
  file: string;
  bytes: number;
  sha256: string;
  manifest: BundleManifest;
}

interface RunToPack {
  dir: string;
  manifest: RunManifest;
  recording: ParsedRecording;
  files: TarEntry[];
}

/** Reads and checks one run folder: a finished, recorded run (UserError naming the folder otherwise). */
function readRunToPack(dir: string): RunToPack {
  if (!isRunFolder(dir)) throw new UserError(`bundle: ${dir} is not a run folder (no ${MANIFEST_FILE})`);
  const manifest = readManifest(dir);
  if (manifest.kind === 'merge' && !mergedRunBundlable(dir)) {
    throw new UserError(
      `bundle: ${dir} is a merge of shard runs without ${RECORDING_FILE} (merged by an older version, or a shard had no recording); merge the shards again, or bundle the shard run folders`,
    );
  }
  if (manifest.kind === 'combination')
    throw new UserError(
      `bundle: ${dir} is a combination of other runs; bundle its base runs (${(manifest.sources ?? []).map((s) => String(s.runId)).join(', ')}) instead`,
    );
  const records = readRecords(dir);
  const missing = manifest.indices.filter((i) => !records.has(i));
  if (missing.length) {
    throw new UserError(
      `bundle: ${dir} is unfinished (${missing.length} of ${manifest.indices.length} episodes missing, first: item ${missing[0]}); finish it with --resume ${manifest.runId} first`,
    );
  }
  const recording = readRecording(dir);
  for (const i of manifest.indices) {
    if (!recording.final.has(i)) {
      const file = recordingFile(dir);
      // other items recorded, or this one begun: the file was cut, not made before recordings existed
      const started = recording.attempts.some((a) => a.item === i) || recording.final.size > 0;
      if (recording.torn !== undefined || started) {
        const where =
          recording.torn !== undefined
            ? `${file}:${recording.torn}: the recording is cut short there (a torn line)`
            : `${file}:${recording.lines ?? 0}: the recording ends before item ${i}'s episode is complete (the file was cut short)`;
        throw new UserError(`bundle: ${where}, so item ${i} has no complete recording; re-run the run into a new folder to bundle it`);
      }
      throw new UserError(
        `bundle: ${file} has no recorded episode for item ${i} (it ran before recordings existed?); re-run it (--retry-errors does not help) to bundle it`,
      );
    }
  }
  const files = runFolderFiles(dir);
  return { dir, manifest, recording, files };
}

/**
 * A merged run (merge.ts) carries the recorded attempts of the episodes it kept (merge-dedupe.ts): it
 * then bundles, and replays offline, as one run; the shards' completions travel in that recording.
 */
export function mergedRunBundlable(dir: string): boolean {
  return hasRecording(dir);
}

/** The model calls a re-run will make: those of each item's final attempt, in the planned order. */
function replayedCalls(run: RunToPack): LlmLine[] {
  return run.manifest.indices.flatMap((i) => run.recording.final.get(i)!.llm.filter((l) => !l.error));
}

function cachePathOf(run: RunToPack, opts: PackOptions): string | null {
  if (opts.cachePath) return path.resolve(opts.cachePath);
  const c = run.manifest.modelDescription?.cache;
  return c && c.mode !== 'off' && typeof c.path === 'string' ? c.path : null;
}

type CacheRow = {
  index: number;
  text: string;
  finishReason: string;
  model: string;
  callN: number;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
};

/** Reads entries of the SQLite completion cache (read-only; the tables of src/llm/cache/file.ts). */
class CacheReader {
  private readonly dbs = new Map<string, SqliteDatabase | null>();

  rows(file: string | null, key: string): { rows: CacheRow[]; request: string | null } | null {
    if (!file) return null;
    try {
      return this.read(file, key);
    } catch (e) {
      if (e instanceof UserError) throw e;
      // a damaged or foreign file (SQLITE_CORRUPT, SQLITE_NOTADB): one line, not a stack trace
      throw new UserError(
        `bundle: the completion cache ${file} cannot be read (${errorMessage(e).split('\n')[0]}); name a sound copy with --cache-path`,
      );
    }
  }

  private read(file: string, key: string): { rows: CacheRow[]; request: string | null } | null {
    let db = this.dbs.get(file);
    if (db === undefined) {
      db = fs.existsSync(file) ? openSqlite(file, { readonly: true, fileMustExist: true }) : null;
      this.dbs.set(file, db);
    }
    if (!db) return null;
    const rows = db
      .prepare(
        `SELECT sample_index AS "index", text, finish_reason AS finishReason, model, call_n AS callN, prompt_tokens AS promptTokens,
                completion_tokens AS completionTokens, total_tokens AS totalTokens FROM completions WHERE key = ? ORDER BY sample_index`,
      )
      .all(key) as CacheRow[];
    const req = db.prepare('SELECT request FROM requests WHERE key = ?').get(key) as { request: string } | undefined;
    return { rows, request: req?.request ?? null };
  }

  close(): void {
    for (const db of this.dbs.values()) db?.close();
  }
}

/** The cache entries of the runs' model calls: from the SQLite cache when it holds what the episodes received. */
function exportCacheEntries(runs: RunToPack[], opts: PackOptions): CacheEntry[] {
  if (opts.cachePath && !fs.existsSync(opts.cachePath)) throw new UserError(`bundle --cache-path: ${opts.cachePath} does not exist`);
  const entries = new Map<string, CacheEntry & { owner: string }>();
  const reader = new CacheReader();
  try {
    for (const run of runs) {
      const file = cachePathOf(run, opts);
      for (const call of replayedCalls(run)) {
        const got = (call.choices ?? []).map((c) => ({ text: c.text, finishReason: c.finishReason }));
        const have = entries.get(call.key);
        if (have) {
          // the same request in two episodes or runs: they must have received the same samples
          const same = got.every(
            (c, i) => have.samples[i] && have.samples[i].text === c.text && have.samples[i].finishReason === c.finishReason,
          );
          if (!same) {
            throw new UserError(
              `bundle: ${run.manifest.runId} (item ${call.item}) and ${have.owner} received different completions for the same request (cache key ${call.key.slice(0, 12)}, e.g. sampling with --cache off); bundle them separately`,
            );
          }
          if (got.length <= have.samples.length) continue;
        }
        const cached = reader.rows(file, call.key);
        const rows = cached?.rows ?? [];
        const fromCache =
          got.length > 0 &&
          rows.length >= got.length &&
          got.every((c, i) => rows[i].index === i && rows[i].text === c.text && rows[i].finishReason === c.finishReason);
        const entry: CacheEntry & { owner: string } = fromCache
          ? {
              key: call.key,
              model: rows[0].model,
              request: cached!.request,
              samples: rows.slice(0, Math.max(got.length, have?.samples.length ?? 0)).map((r) => ({
                index: r.index,
                text: r.text,
                finishReason: r.finishReason,
                callN: r.callN,
                promptTokens: r.promptTokens,
                completionTokens: r.completionTokens,
                totalTokens: r.totalTokens,
              })),
              source: 'cache',
              owner: run.manifest.runId,
            }
          : {
              key: call.key,
              model: run.recording.final.get(call.item)!.session.model,
              request: cached?.request ?? null,
              samples: got.map((c, index) => ({ index, ...c })),
              source: 'recording',
              owner: run.manifest.runId,
            };
        entries.set(call.key, entry);
      }
    }
  } finally {
    reader.close();
  }
  return [...entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ owner: _o, ...e }) => e);
}

/** Packs the run folders into one bundle file at `out` (written atomically). */
export function packBundle(runDirs: string[], out: string, opts: PackOptions = {}): PackResult {
  if (runDirs.length === 0) throw new UserError('bundle: name the run folders to bundle');
  const seen = new Set<string>();
  const runs: RunToPack[] = [];
  for (const d of runDirs.map((x) => path.resolve(x))) {
    const run = readRunToPack(d);
    if (seen.has(run.manifest.runId)) continue; // the same run given twice (or a copy of it)
    seen.add(run.manifest.runId);
    runs.push(run);
  }
  const entries = exportCacheEntries(runs, opts);
  const members: TarEntry[] = [];
  const bundleRuns: BundleRun[] = [];
  for (const run of runs) {
    const folder = `${RUNS_FOLDER}/${run.manifest.runId}`;
    for (const f of run.files) members.push({ name: `${folder}/${f.name}`, data: f.data });
    const finals = run.manifest.indices.map((i) => run.recording.final.get(i)!);
    bundleRuns.push({
      runId: run.manifest.runId,
      folder,
      task: run.manifest.task,
      method: run.manifest.method,
      split: run.manifest.split,
      model: run.manifest.model,
      episodes: run.manifest.indices.length,
      envCalls: finals.reduce((a, f) => a + f.env.length, 0),
      modelCalls: finals.reduce((a, f) => a + f.llm.length, 0),
      files: run.files.map((f) => f.name),
    });
  }
  members.push({ name: CACHE_MEMBER, data: Buffer.from(entries.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8') });
  const manifest: BundleManifest = {
    schema: BUNDLE_SCHEMA,
    kind: 'react-repro-bundle',
    createdAt: new Date().toISOString(),
    software: softwareInfo(),
    nondeterministic: [...NONDETERMINISTIC_FIELDS],
    runs: bundleRuns,
    cache: {
      file: CACHE_MEMBER,
      entries: entries.length,
      samples: entries.reduce((a, e) => a + e.samples.length, 0),
      fromCache: entries.filter((e) => e.source === 'cache').length,
      fromRecording: entries.filter((e) => e.source === 'recording').length,
    },
    members: members.map((m) => ({ path: m.name, size: m.data.length, sha256: sha256(m.data) })),
  };
  const mtime = Math.floor(Date.parse(manifest.createdAt) / 1000);
  const tar = tarPack(
    [{ name: BUNDLE_MANIFEST, data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n', 'utf8') }, ...members].map((m) => ({
      ...m,
      mtime,
    })),
  );
  const gz = nodeZlib().gzipSync(tar, { level: 9 });
  const file = path.resolve(out);
  // a bundle killed while writing left <out>.tmp-<pid>-<token>: remove those whose process is gone
  removeStaleTempFiles(path.dirname(file), `${path.basename(file)}.tmp-`);
  // a device or a named pipe (--out /dev/stdout) is written straight, a symbolic link's target replaced
  writeOutputFile(file, gz, { flag: 'bundle --out', what: 'the bundle' });
  return { file, bytes: gz.length, sha256: sha256(gz), manifest };
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface OpenedBundle {
  file: string;
  sha256: string;
  manifest: BundleManifest;
  /** Members by path (bundle.json excepted), each checked against its size and sha256. */
  members: Map<string, Buffer>;
}

/**
 * Bounds on what a bundle may inflate to (a published bundle is input we do not control: a gzip bomb
 * must be refused before it fills memory). Far above any real bundle: runs are JSON text that
 * compresses 5-20 times; a gzip bomb compresses about 1000 times.
 */
export const BUNDLE_LIMITS = {
  /** Uncompressed tar, bytes. */
  totalBytes: 256 * 1024 * 1024,
  /** One member, bytes. */
  memberBytes: 128 * 1024 * 1024,
  /** Members (a bundle has a handful per run). */
  members: 10_000,
  /** Uncompressed / compressed size. */
  ratio: 200,
};

/** The tar inside a bundle's gzip, refused once it passes BUNDLE_LIMITS' total or ratio (memory stays bounded). */
function inflateBundle(gz: Buffer, file: string): Buffer {
  const cap = Math.min(BUNDLE_LIMITS.totalBytes, Math.max(1024 * 1024, gz.length * BUNDLE_LIMITS.ratio));
  try {
    return nodeZlib().gunzipSync(gz, { maxOutputLength: cap });
  } catch (e) {
    if (errorCode(e) === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new UserError(
        `${file}: refused: it inflates to more than ${cap} bytes (${gz.length} bytes compressed; a bundle may hold at most ${BUNDLE_LIMITS.totalBytes} bytes, ${BUNDLE_LIMITS.ratio} times its size): not a react-repro bundle, or a compression bomb`,
      );
    }
    throw new UserError(
      `${file}: not a react-repro bundle (not gzip data: ${errorMessage(e)}); make one with \`react-repro bundle RUN_DIR... --out FILE\``,
    );
  }
}

/** Reads a bundle and checks every member against bundle.json (UserError naming the member otherwise). */
export function openBundle(file: string): OpenedBundle {
  const abs = path.resolve(file);
  let gz: Buffer;
  try {
    const st = fs.statSync(abs);
    if (!st.isFile()) throw new UserError(`--from-bundle ${file}: not a file`);
    if (st.size > BUNDLE_LIMITS.totalBytes)
      throw new UserError(`--from-bundle ${file}: ${st.size} bytes, more than a bundle may hold (${BUNDLE_LIMITS.totalBytes})`);
    gz = fs.readFileSync(abs);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`--from-bundle ${file}: cannot read (${errorCode(e) ?? errorMessage(e)})`);
  }
  const tar = inflateBundle(gz, file);
  const entries = tarUnpack(tar, file, BUNDLE_LIMITS);
  const head = entries[0];
  if (!head || head.name !== BUNDLE_MANIFEST)
    throw new UserError(`${file}: not a react-repro bundle (its first member is not ${BUNDLE_MANIFEST})`);
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(head.data.toString('utf8')) as BundleManifest;
  } catch (e) {
    throw new UserError(`${file}: ${BUNDLE_MANIFEST} is not valid JSON (${errorMessage(e)})`);
  }
  if (manifest.kind !== 'react-repro-bundle' || typeof manifest.schema !== 'number')
    throw new UserError(`${file}: ${BUNDLE_MANIFEST} is not a react-repro bundle manifest`);
  if (manifest.schema > BUNDLE_SCHEMA)
    throw new UserError(
      `${file}: bundle schema ${manifest.schema} was made by a newer react-repro (this one reads schema ${BUNDLE_SCHEMA}); upgrade`,
    );
  const members = new Map<string, Buffer>();
  for (const e of entries.slice(1)) {
    if (members.has(e.name)) throw new UserError(`${file}: member ${e.name} appears twice`);
    members.set(e.name, e.data);
  }
  const listed = new Set<string>();
  for (const m of manifest.members ?? []) {
    listed.add(m.path);
    const data = members.get(m.path);
    if (!data) throw new UserError(`${file}: member ${m.path} is listed in ${BUNDLE_MANIFEST} but missing`);
    const got = sha256(data);
    if (data.length !== m.size || got !== m.sha256) {
      throw new UserError(
        `${file}: member ${m.path} does not match ${BUNDLE_MANIFEST} (sha256 ${got.slice(0, 12)}…, expected ${String(m.sha256).slice(0, 12)}…): the bundle was altered or damaged`,
      );
    }
  }
  for (const name of members.keys())
    if (!listed.has(name)) throw new UserError(`${file}: member ${name} is not listed in ${BUNDLE_MANIFEST}`);
  return { file: abs, sha256: sha256(gz), manifest, members };
}

/** A member as text (UserError when absent). */
export function memberText(b: OpenedBundle, name: string): string {
  const data = b.members.get(name);
  if (!data) throw new UserError(`${b.file}: no member ${name}`);
  return data.toString('utf8');
}

/** cache/completions.jsonl by key. */
export function bundleCacheEntries(b: OpenedBundle): Map<string, CacheEntry> {
  const out = new Map<string, CacheEntry>();
  memberText(b, b.manifest.cache?.file ?? CACHE_MEMBER)
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let e: CacheEntry;
      try {
        e = JSON.parse(line) as CacheEntry;
      } catch {
        throw new UserError(`${b.file}: ${CACHE_MEMBER}:${i + 1} is not JSON`);
      }
      if (typeof e?.key !== 'string' || !Array.isArray(e.samples))
        throw new UserError(`${b.file}: ${CACHE_MEMBER}:${i + 1}: expected {"key", "samples": [...]}`);
      out.set(e.key, e);
    });
  return out;
}
