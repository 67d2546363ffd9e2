// The persistent completion cache: re-run from cache at zero cost, replay offline (team brief).
//
// SQLite (better-sqlite3) in WAL mode with a busy timeout, so several processes (shards of one run) can
// write one file at once, and each response is stored in its own transaction, so a kill -9 loses at most
// the call in progress. The key is the sha256 of the canonical JSON of what determines the completion
// (model, prompt, stop, sampling parameters, api mode), never the endpoint or the key. Each of the n
// samples is its own row (key, sample_index): a later request for fewer samples is served from the
// cache, and a request for more only asks the backend for the missing ones. A request the server
// refused because its prompt outgrew the model's context window (a ContextLengthError, scored as the
// outcome context_exceeded) is kept too, as a refusal under the same key (table `refusals`), so that
// --cache replay re-runs such a run; a completion stored for the key replaces it.
import { SqliteUnavailable, openSqlite, type SqliteDatabase, type SqliteStatement } from '../util/sqlite.js';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigError, FatalRunError, RunStop, errorMessage, errorCode } from '../errors.js';
import { createHash, type Hash } from 'node:crypto';
import { sha256 } from '../util/hash.js';
import { checkWritableDir } from '../util/safe-path.js';
import type { CompletionChoice, CompletionModel, CompletionRequest, CompletionResult, TokenUsage } from './types.js';
import { LlmAccumulator } from './stats.js';
import { costUsd, pricesOfModel, ZERO_USAGE } from './pricing.js';
import { abortReason } from '../util/clock.js';
import type { ModelLayer } from './layer.js';
import { ContextLengthError, contextLimitFromJson, type ContextLimit } from './context-limit.js';
import { JsonFields } from '../util/json-fields.js';

export type CacheMode = 'rw' | 'off' | 'replay';

/** Bump when the meaning of a key changes (old entries then simply stop matching). */
const KEY_VERSION = 1;

/** The canonical request JSON: fixed field order, absent values as null, n excluded (samples are rows). */
export function canonicalRequest(model: string, api: string, req: CompletionRequest): string {
  return JSON.stringify({
    v: KEY_VERSION,
    model,
    api,
    prompt: req.prompt,
    stop: req.stop ?? [],
    maxTokens: req.maxTokens,
    temperature: req.temperature,
    topP: req.topP,
    seed: req.seed ?? null,
    frequencyPenalty: req.frequencyPenalty,
    presencePenalty: req.presencePenalty,
  });
}

export function cacheKey(model: string, api: string, req: CompletionRequest): string {
  return sha256(canonicalRequest(model, api, req));
}

/** The canonical JSON up to the prompt's opening quote: `{"v":1,"model":...,"api":...,"prompt":"`. */
function canonicalHead(model: string, api: string): string {
  return JSON.stringify({ v: KEY_VERSION, model, api }).slice(0, -1) + ',"prompt":"';
}

/** The canonical JSON after the prompt's closing quote: `,"stop":[...],...}` (the fields canonicalRequest writes after it). */
function canonicalTail(req: CompletionRequest): string {
  return (
    ',' +
    JSON.stringify({
      stop: req.stop ?? [],
      maxTokens: req.maxTokens,
      temperature: req.temperature,
      topP: req.topP,
      seed: req.seed ?? null,
      frequencyPenalty: req.frequencyPenalty,
      presencePenalty: req.presencePenalty,
    }).slice(1)
  );
}

/**
 * cacheKey for the calls of one conversation, hashed incrementally: a ReAct episode's prompt is the
 * one before it plus the model's step and the observation (docs/protocol.md §4 webthink), so the
 * sha256 state after the previous prompt's text is kept and only the new text is escaped and hashed.
 * The key is the same as cacheKey's, byte for byte: JSON escapes each character on its own, except a
 * surrogate pair, so a prompt ending in half of one is never kept as a prefix.
 */
export class ConversationKeyer {
  private last: { model: string; api: string; prompt: string; state: Hash } | undefined;

  key(model: string, api: string, req: CompletionRequest): string {
    const prompt = req.prompt;
    const last = this.last;
    let h: Hash;
    let rest: string;
    if (last !== undefined && last.model === model && last.api === api && prompt.startsWith(last.prompt)) {
      // the kept state itself (not a copy): it is replaced below, before anything can ask for it again
      h = last.state;
      rest = prompt.slice(last.prompt.length);
    } else {
      h = createHash('sha256').update(canonicalHead(model, api));
      rest = prompt;
    }
    const escaped = JSON.stringify(rest);
    h.update(escaped.slice(1, -1));
    const end = prompt.charCodeAt(prompt.length - 1);
    this.last = end >= 0xd800 && end <= 0xdbff ? undefined : { model, api, prompt, state: h.copy() };
    return h.update('"' + canonicalTail(req)).digest('hex');
  }
}

/** A request's key, computed once per call (see `sharedCacheKey`); its canonical JSON is made only if a cache stores it. */
interface KeyedRequest {
  model: string;
  api: string;
  key: string;
}

// The key of a call in flight, left by the layer that computed it (the recording) for the cache store
// below it on the same request object, so one call hashes its request once. The store takes it (reads
// and forgets it) and the recording forgets it when the call ends, so a request object the caller
// changes and sends again is hashed afresh.
const inFlightKeys = new WeakMap<CompletionRequest, KeyedRequest>();

/**
 * cacheKey(model, api, req), also left for the cache store that serves this same call (CacheStore
 * complete): the recording layer and the cache share one hash per call, with or without a cache.
 * `keyer`: the conversation's incremental hasher (the same key, hashing only what is new).
 */
export function sharedCacheKey(model: string, api: string, req: CompletionRequest, keyer?: ConversationKeyer): string {
  const key = keyer ? keyer.key(model, api, req) : cacheKey(model, api, req);
  inFlightKeys.set(req, { model, api, key });
  return key;
}

/** Forgets the key `sharedCacheKey` left for `req` (the call is over; no cache may have taken it). */
export function forgetSharedCacheKey(req: CompletionRequest): void {
  inFlightKeys.delete(req);
}

/** The key of `req` and its canonical JSON (made on demand): the key a layer above left for this call, or computed here. */
function takeKeyedRequest(model: string, api: string, req: CompletionRequest): { canonical: () => string; key: string } {
  const left = inFlightKeys.get(req);
  inFlightKeys.delete(req);
  const canonical = () => canonicalRequest(model, api, req);
  if (left && left.model === model && left.api === api) return { canonical, key: left.key };
  return { canonical, key: sha256(canonical()) };
}

export interface StoredChoice {
  sampleIndex: number;
  text: string;
  finishReason: string;
  /** Samples of the backend call that produced this one, and that call's usage (null: not reported). */
  callN?: number;
  promptTokens?: number | null;
  completionTokens?: number | null;
}

/**
 * What serving `rows` from the cache stands for: the prompt once (as a fresh request of n samples
 * counts it), and each sample's share of the completion tokens of the call that produced it.
 * Rows whose backend reported no usage count 0 (usageUnknownIn says whether any did).
 */
export function storedUsage(rows: readonly StoredChoice[], withPrompt = true): TokenUsage {
  const prompt = withPrompt ? (rows.find((r) => typeof r.promptTokens === 'number')?.promptTokens ?? 0) : 0;
  const completion = Math.round(
    rows.reduce((a, r) => a + (typeof r.completionTokens === 'number' ? r.completionTokens / Math.max(1, r.callN ?? 1) : 0), 0),
  );
  return { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion };
}

/**
 * Whether some of `rows` came from a call answered without usage: stored with no token counts, or (in a
 * cache written before such answers were marked) with 0 and 0, which no server that reports usage
 * gives (a prompt has tokens).
 */
export function usageUnknownIn(rows: readonly StoredChoice[]): boolean {
  return rows.some((r) => !((r.promptTokens ?? 0) > 0) && !((r.completionTokens ?? 0) > 0));
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS completions (
  key TEXT NOT NULL,
  sample_index INTEGER NOT NULL,
  text TEXT NOT NULL,
  finish_reason TEXT NOT NULL,
  model TEXT NOT NULL,
  -- usage of the backend call that produced this sample (shared by its call_n samples)
  call_n INTEGER NOT NULL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  total_tokens INTEGER,
  created_at TEXT NOT NULL,
  PRIMARY KEY (key, sample_index)
);
CREATE TABLE IF NOT EXISTS requests (
  key TEXT PRIMARY KEY,
  request TEXT NOT NULL,
  created_at TEXT NOT NULL
);
-- Requests the server refused in a way that is part of the result (one row per key, the latest
-- refusal); a file made before this table gains it when opened for writing, and an older version
-- of react-repro reads the file as before. kind 'context_length': a ContextLengthError, its message
-- and its ContextLimit as JSON in detail (null when it carried none).
CREATE TABLE IF NOT EXISTS refusals (
  key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  detail TEXT,
  model TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`;

/** A refusal stored for a request key (table `refusals`): what the error that reported it carried. */
export interface StoredRefusal {
  kind: 'context_length';
  message: string;
  limit?: ContextLimit;
}

/** The refusal a ContextLengthError stands for, with `scrub` applied to the server's words. */
function refusalOf(e: ContextLengthError, scrub: (text: string) => string = (t) => t): StoredRefusal {
  return {
    kind: 'context_length',
    message: scrub(e.message),
    ...(e.limit ? { limit: { ...e.limit, message: scrub(e.limit.message) } } : {}),
  };
}

/** The error a stored refusal was: the same class, message and fields. */
function refusalError(r: StoredRefusal): ContextLengthError {
  return new ContextLengthError(r.message, r.limit);
}

function isBusy(e: unknown): boolean {
  const code = errorCode(e);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_SNAPSHOT';
}

/** One cache file. Open it with `CompletionCache.open` (shared per path within a process). */
export class CompletionCache {
  private static readonly openFiles = new Map<string, { cache: CompletionCache; refs: number }>();
  private readonly db: SqliteDatabase;
  private readonly selectStmt: SqliteStatement;
  private readonly insertStmt: SqliteStatement;
  private readonly insertReqStmt: SqliteStatement;
  private readonly countStmt: SqliteStatement;
  /** Undefined in a file opened read-only that predates the `refusals` table. */
  private readonly selectRefusalStmt?: SqliteStatement;
  private readonly insertRefusalStmt?: SqliteStatement;
  private readonly deleteRefusalStmt?: SqliteStatement;
  private tag = '';

  private readonly busyTimeoutMs: number;

  private constructor(
    readonly file: string,
    opts: { readonly?: boolean; busyTimeoutMs?: number },
  ) {
    this.busyTimeoutMs = opts.busyTimeoutMs ?? 30_000;
    if (!opts.readonly) checkWritableDir(path.dirname(file), 'the completion cache folder', { create: true });
    this.db = openSqlite(file, { readonly: !!opts.readonly, fileMustExist: !!opts.readonly, timeout: this.busyTimeoutMs });
    this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    if (!opts.readonly) {
      // Switching to WAL takes an exclusive lock; another process may hold the file for a moment.
      retryBusy(() => this.db.pragma('journal_mode = WAL'));
      this.db.pragma('synchronous = NORMAL');
      retryBusy(() => this.db.exec(SCHEMA));
    }
    this.selectStmt = this.db.prepare(
      'SELECT sample_index AS sampleIndex, text, finish_reason AS finishReason, call_n AS callN, prompt_tokens AS promptTokens, completion_tokens AS completionTokens FROM completions WHERE key = ? ORDER BY sample_index',
    );
    this.countStmt = this.db.prepare('SELECT COUNT(*) AS n FROM completions');
    this.insertStmt = opts.readonly
      ? this.selectStmt
      : this.db.prepare(
          `INSERT OR IGNORE INTO completions (key, sample_index, text, finish_reason, model, call_n, prompt_tokens, completion_tokens, total_tokens, created_at)
           VALUES (@key, @sampleIndex, @text, @finishReason, @model, @callN, @promptTokens, @completionTokens, @totalTokens, @createdAt)`,
        );
    this.insertReqStmt = opts.readonly
      ? this.selectStmt
      : this.db.prepare('INSERT OR IGNORE INTO requests (key, request, created_at) VALUES (?, ?, ?)');
    const hasRefusals = !!this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'refusals'").get();
    if (hasRefusals) {
      this.selectRefusalStmt = this.db.prepare('SELECT kind, message, detail FROM refusals WHERE key = ?');
    }
    if (!opts.readonly) {
      this.insertRefusalStmt = this.db.prepare(
        'INSERT OR REPLACE INTO refusals (key, kind, message, detail, model, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      this.deleteRefusalStmt = this.db.prepare('DELETE FROM refusals WHERE key = ?');
    }
  }

  /** Opens (creating if needed) the cache file; the same path in one process shares one connection. */
  static open(file: string, opts: { readonly?: boolean; busyTimeoutMs?: number } = {}): CompletionCache {
    const abs = path.resolve(file);
    const tag = `${abs}\0${opts.readonly ? 'ro' : 'rw'}`;
    const hit = CompletionCache.openFiles.get(tag);
    if (hit) {
      hit.refs++;
      return hit.cache;
    }
    const cache = new CompletionCache(abs, opts);
    CompletionCache.openFiles.set(tag, { cache, refs: 1 });
    cache.tag = tag;
    return cache;
  }

  /** The samples stored for `key` from index 0 up to the first gap. */
  get(key: string): StoredChoice[] {
    const rows = this.selectStmt.all(key) as StoredChoice[];
    const out: StoredChoice[] = [];
    for (const r of rows) {
      if (r.sampleIndex !== out.length) break;
      out.push(r);
    }
    return out;
  }

  /** The refusal stored for `key`, if any (a kind this version does not know is none). */
  getRefusal(key: string): StoredRefusal | undefined {
    const row = JsonFields.of(this.selectRefusalStmt?.get(key));
    const message = row?.str('message');
    if (row?.str('kind') !== 'context_length' || message === undefined) return undefined;
    const detail = row.str('detail');
    let limit: ContextLimit | undefined;
    if (detail !== undefined) {
      try {
        limit = contextLimitFromJson(JSON.parse(detail));
      } catch {
        limit = undefined; // a damaged detail: the error without the window it named
      }
    }
    return { kind: 'context_length', message, ...(limit ? { limit } : {}) };
  }

  /**
   * Stores `choices` at sample indices start, start+1, ... in one transaction and returns what the file
   * holds at those indices afterwards (another process may have stored them first: its rows win, so
   * every reader sees the same samples). A refusal stored for `key` is removed: the request was answered.
   */
  put(
    key: string,
    canonical: string,
    model: string,
    start: number,
    choices: Array<{ text: string; finishReason: string }>,
    usage: TokenUsage | undefined,
    callN: number,
  ): StoredChoice[] {
    // IMMEDIATE: take the write lock up front so the busy timeout applies (no deadlock on upgrade).
    return retryBusy(() => this.putOnce(key, canonical, model, start, choices, usage, callN), this.busyAttempts);
  }

  /** Synchronous attempts of put (putInterruptible makes one at a time). */
  private busyAttempts = 20;

  /**
   * put, waiting for another process's write lock in short synchronous slices with the event loop free
   * between them (a synchronous SQLite wait would hold off Ctrl-C and SIGTERM for the whole busy
   * timeout): an aborted `signal` ends the wait with its reason. Gives up as put does, after about the
   * same total wait.
   */
  async putInterruptible(
    key: string,
    canonical: string,
    model: string,
    start: number,
    choices: Array<{ text: string; finishReason: string }>,
    usage: TokenUsage | undefined,
    callN: number,
    signal?: AbortSignal,
  ): Promise<StoredChoice[]> {
    return this.interruptible(() => this.put(key, canonical, model, start, choices, usage, callN), signal);
  }

  /** Stores `refusal` for `key` (replacing an earlier one), waiting for the write lock as putInterruptible does. */
  async putRefusalInterruptible(
    key: string,
    canonical: string,
    model: string,
    refusal: StoredRefusal,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.interruptible(() => this.putRefusal(key, canonical, model, refusal), signal);
  }

  /** Stores `refusal` for `key`, replacing an earlier one, in one transaction. */
  putRefusal(key: string, canonical: string, model: string, refusal: StoredRefusal): void {
    const insert = this.insertRefusalStmt;
    if (!insert) throw new Error('the completion cache was opened read-only');
    const detail = refusal.limit ? JSON.stringify(refusal.limit) : null;
    retryBusy(() => {
      const createdAt = new Date().toISOString();
      this.db
        .transaction(() => {
          this.insertReqStmt.run(key, canonical, createdAt);
          insert.run(key, refusal.kind, refusal.message, detail, model, createdAt);
        })
        .immediate();
    }, this.busyAttempts);
  }

  /** `write` (a put), retried in short busy-timeout slices with the event loop free between them. */
  private async interruptible<T>(write: () => T, signal?: AbortSignal): Promise<T> {
    const t0 = Date.now();
    for (;;) {
      this.db.pragma(`busy_timeout = ${BUSY_SLICE_MS}`);
      this.busyAttempts = 1;
      try {
        return write();
      } catch (e) {
        if (!isBusy(e) || Date.now() - t0 > this.busyTimeoutMs * 20) throw e;
      } finally {
        this.busyAttempts = 20;
        this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      }
      if (signal?.aborted) throw abortReason(signal);
      await new Promise((r) => setTimeout(r, 20));
      if (signal?.aborted) throw abortReason(signal);
    }
  }

  private putOnce(
    key: string,
    canonical: string,
    model: string,
    start: number,
    choices: Array<{ text: string; finishReason: string }>,
    usage: TokenUsage | undefined,
    callN: number,
  ): StoredChoice[] {
    const createdAt = new Date().toISOString();
    const run = this.db.transaction(() => {
      this.insertReqStmt.run(key, canonical, createdAt);
      this.deleteRefusalStmt?.run(key);
      choices.forEach((c, k) =>
        this.insertStmt.run({
          key,
          sampleIndex: start + k,
          text: c.text,
          finishReason: c.finishReason,
          model,
          callN,
          promptTokens: usage?.promptTokens ?? null,
          completionTokens: usage?.completionTokens ?? null,
          totalTokens: usage?.totalTokens ?? null,
          createdAt,
        }),
      );
      return (this.selectStmt.all(key) as StoredChoice[]).filter((r) => r.sampleIndex >= start && r.sampleIndex < start + choices.length);
    });
    return run.immediate();
  }

  /** Number of stored samples (all keys). */
  size(): number {
    return (this.countStmt.get() as { n: number }).n;
  }

  close(): void {
    const entry = CompletionCache.openFiles.get(this.tag);
    if (entry && --entry.refs > 0) return;
    CompletionCache.openFiles.delete(this.tag);
    if (this.db.open) this.db.close();
  }
}

/** One synchronous wait for a write lock in putInterruptible, ms. */
const BUSY_SLICE_MS = 200;

function retryBusy<T>(fn: () => T, attempts = 20): T {
  for (let i = 1; ; i++) {
    try {
      return fn();
    } catch (e) {
      if (!isBusy(e) || i >= attempts) throw e;
      // busy_timeout already waited; a short synchronous pause before trying again.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 * i);
    }
  }
}

/** A replay-mode request that the cache file does not hold. */
export class CacheMissError extends FatalRunError {}

export interface CachedModelOptions {
  mode: CacheMode;
  /** Cache file (ignored when mode is off). */
  path: string;
  /** Goes into the key: 'completions', 'chat', 'llama'... */
  api: string;
  accumulator?: LlmAccumulator;
  /** Where the one warning goes when the cache file fails (default: stderr). */
  warn?: (line: string) => void;
  /**
   * Secret values (API keys) a completion must not carry: a model that echoes the key gets it replaced
   * before the cache, the recording or the results see it (and a cache entry written before is
   * served redacted).
   */
  secrets?: readonly (string | undefined)[];
}

/**
 * The run's cache: one file and one lock per request key, opened once and shared by every episode of
 * the process (each episode's chain wraps it with `cacheLayer`, src/run/model-chain.ts). All modes,
 * 'off' included: it also counts calls for the run totals and keeps secrets out of completions.
 * Concurrent identical requests within the process are serialised, so the second is a cache hit.
 */
export class CacheStore {
  readonly accumulator: LlmAccumulator;
  private readonly cache?: CompletionCache;
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Set when the cache file failed (full disk, I/O error): the run goes on uncached (README "Reliability"). */
  private cacheFailed = false;
  private closed = false;

  constructor(private readonly o: CachedModelOptions) {
    this.accumulator = o.accumulator ?? new LlmAccumulator();
    if (o.mode === 'replay' && !fs.existsSync(o.path)) {
      throw new CacheMissError(
        `--cache replay: the cache file ${o.path} does not exist (replay mode makes no model calls; fill it with --cache rw first)`,
      );
    }
    if (o.mode !== 'off') {
      try {
        this.cache = CompletionCache.open(o.path);
      } catch (e) {
        if (e instanceof SqliteUnavailable) throw e; // SQLite itself missing: said as it is, not as a bad path
        // A full or failing disk (SQLITE_FULL, SQLITE_IOERR_*) only costs the cache in rw mode (README "Reliability").
        if (o.mode !== 'rw' || !/^SQLITE_(FULL|IOERR)/.test(String(errorCode(e)))) {
          throw new ConfigError(`--cache-path: cannot use ${o.path} as the completion cache (${errorMessage(e).split('\n')[0]})`);
        }
        this.cacheOrWarn(() => {
          throw e;
        }, undefined);
      }
    }
  }

  /** The api part of every cache key (completions, chat, llama;sha256=...): bundles export entries by it. */
  get api(): string {
    return this.o.api;
  }

  /** What the manifest records of the cache (in the model's description, never in its identity). */
  describe(): { mode: CacheMode; path: string | null } {
    return { mode: this.o.mode, path: this.o.mode === 'off' ? null : this.o.path };
  }

  /** `req` answered from the file, or by `inner` (and then stored). */
  async complete(inner: CompletionModel, req: CompletionRequest, opts: { signal?: AbortSignal } = {}): Promise<CompletionResult> {
    try {
      let r: CompletionResult;
      if (this.cache && !this.cacheFailed) {
        const { canonical, key } = takeKeyedRequest(inner.model, this.o.api, req);
        r = await this.withKeyLock(key, () => this.viaCache(inner, req, key, canonical, opts));
      } else {
        r = this.withoutSecrets(await inner.complete(req, opts));
      }
      this.accumulator.add({
        calls: 1,
        cachedChoices: r.cachedChoices,
        cacheHits: r.cachedChoices === r.choices.length && r.choices.length > 0 ? 1 : 0,
      });
      return r;
    } catch (e) {
      // A request the run refused to send (the budget's admission below this layer) is not a failed call.
      if (!(e instanceof RunStop)) this.accumulator.add({ failedCalls: 1 });
      throw e;
    }
  }

  private async viaCache(
    inner: CompletionModel,
    req: CompletionRequest,
    key: string,
    canonicalOf: () => string,
    opts: { signal?: AbortSignal },
  ): Promise<CompletionResult> {
    const t0 = performance.now();
    const cache = this.cache!;
    const have = this.cacheOrWarn(() => cache.get(key), []);
    if (have.length >= req.n) {
      const served = have.slice(0, req.n);
      const total = storedUsage(served);
      // `total`: what the samples served stand for (the request without the cache); usage/costUsd: what this call spent.
      const hit: CompletionResult = {
        choices: served.map(toChoice).map((c) => ({ ...c, text: this.scrub(c.text) })),
        usage: { ...ZERO_USAGE },
        costUsd: 0,
        cachedChoices: req.n,
        latencyMs: performance.now() - t0,
        total: { usage: total, costUsd: costAtRunPrices(inner, total), ...(usageUnknownIn(served) ? { usageUnknown: true as const } : {}) },
      };
      return hit;
    }
    if (this.o.mode === 'replay') {
      // A request the server refused as too long for the context window is refused again, as it was.
      const refused = this.cacheOrWarn(() => cache.getRefusal(key), undefined);
      if (refused) throw refusalError(refused);
      throw new CacheMissError(
        `completion not in the cache file ${cache.file} (model "${inner.model}", ${have.length} of ${req.n} samples stored): ` +
          '--cache replay makes no model calls; run with --cache rw to fill the cache',
      );
    }
    // With a fixed seed and sampling, asking for the missing k samples would repeat samples 0..k-1 on a
    // deterministic server: ask for all n then, and keep the new indices.
    const seededSampling = req.seed !== undefined && req.temperature > 0 && have.length > 0;
    const ask = seededSampling ? req.n : req.n - have.length;
    // What the entry stores, made from the request as it is sent (only a miss needs it).
    const canonical = canonicalOf();
    let res: CompletionResult;
    try {
      res = this.withoutSecrets(await inner.complete({ ...req, n: ask }, opts));
    } catch (e) {
      // A stored refusal is never served here (only --cache replay serves one): the request is asked
      // again, as the window may have been raised since and a refusal is not billed (README "Model
      // limits are outcomes, not outages"); a refusal again replaces the stored one.
      if (e instanceof ContextLengthError) await this.storeRefusal(cache, key, canonical, inner.model, e, opts.signal);
      throw e;
    }
    const fresh = seededSampling ? res.choices.slice(have.length) : res.choices;
    // A paid completion is never lost to the cache: if storing fails, it is returned uncached.
    const uncached = fresh.map((c, k) => ({ sampleIndex: have.length + k, text: c.text, finishReason: c.finishReason }));
    let stored: StoredChoice[];
    try {
      // An answer without usage is stored without token counts: a later hit says its usage is unknown, not 0.
      const usage = res.usageUnknown ? undefined : res.usage;
      stored = await cache.putInterruptible(key, canonical, inner.model, have.length, fresh, usage, ask, opts.signal);
    } catch (e) {
      if (opts.signal?.aborted) throw e; // stopped while another process held the file: the run is stopping
      stored = this.cacheOrWarn(() => {
        throw e;
      }, uncached);
    }
    const all = [...have, ...stored];
    // The fresh call paid for its prompt and samples; the cached samples add their completion share
    // (none when the fresh call re-generated them all).
    const reused = seededSampling ? [] : have;
    const extra = storedUsage(reused, false);
    const partial: CompletionResult = {
      choices: all.map(toChoice).map((c) => ({ ...c, text: this.scrub(c.text) })),
      usage: res.usage,
      costUsd: res.costUsd,
      cachedChoices: have.length,
      latencyMs: performance.now() - t0,
      total: {
        usage: {
          promptTokens: res.usage.promptTokens,
          completionTokens: res.usage.completionTokens + extra.completionTokens,
          totalTokens: res.usage.totalTokens + extra.totalTokens,
        },
        costUsd: res.costUsd + costAtRunPrices(inner, extra),
        ...(res.usageUnknown || usageUnknownIn(reused) ? { usageUnknown: true as const } : {}),
      },
      ...(res.usageUnknown ? { usageUnknown: res.usageUnknown } : {}),
    };
    return partial;
  }

  /** Stores the refusal `e` for `key`; a failing file costs the cache as a failing put does. */
  private async storeRefusal(
    cache: CompletionCache,
    key: string,
    canonical: string,
    model: string,
    e: ContextLengthError,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      await cache.putRefusalInterruptible(
        key,
        canonical,
        model,
        refusalOf(e, (t) => this.scrub(t)),
        signal,
      );
    } catch (err) {
      if (signal?.aborted) throw err; // stopped while another process held the file: the run is stopping
      this.cacheOrWarn(() => {
        throw err;
      }, undefined);
    }
  }

  /**
   * A cache read or write; when the file fails (SQLITE_FULL on a full disk, SQLITE_IOERR, read-only),
   * rw mode warns once and goes on without the cache (`fallback`); replay mode cannot go on.
   */
  private cacheOrWarn<T>(op: () => T, fallback: T): T {
    try {
      return op();
    } catch (e) {
      const why = `${errorCode(e) ?? (e as Error).name}: ${errorMessage(e).split('\n')[0]}`;
      if (this.o.mode === 'replay') throw new FatalRunError(`--cache replay: cannot read the cache file ${this.o.path} (${why})`);
      if (!this.cacheFailed) {
        this.cacheFailed = true;
        const line = `warning: the completion cache ${this.o.path} failed (${why}); the run goes on without it (completions are no longer cached)`;
        (this.o.warn ?? ((l: string) => process.stderr.write(`react-repro: ${l}\n`)))(line);
      }
      return fallback;
    }
  }

  /** `text` with every secret value replaced (keys of fewer than 6 characters are not secrets: they would match words). */
  private scrub(text: string): string {
    let out = text;
    for (const s of this.o.secrets ?? []) if (s && s.length >= 6 && out.includes(s)) out = out.split(s).join('[redacted]');
    return out;
  }

  private withoutSecrets(r: CompletionResult): CompletionResult {
    if (!this.o.secrets?.length || !r.choices.some((c) => this.scrub(c.text) !== c.text)) return r;
    return { ...r, choices: r.choices.map((c) => ({ ...c, text: this.scrub(c.text) })) };
  }

  private async withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  /**
   * Closes the file (once per run: the episodes' layers do not own it). A second call does nothing: the
   * file is shared by reference count with the other stores of the process on the same path.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache?.close();
  }
}

/** Cost of tokens at the backend's prices (none stated: nothing). */
function costAtRunPrices(inner: CompletionModel, usage: TokenUsage): number {
  return costUsd(usage, pricesOfModel(inner));
}

/**
 * The cache as a layer (src/llm/layer.ts) over `store`: the layer of an episode's chain
 * (src/run/model-chain.ts), or of a library user's model (createCompletionModel). The description
 * names the cache; the identity is the backend's (the cache serves answers, it computes nothing).
 */
export function cacheLayer(store: CacheStore): ModelLayer {
  return (inner) => ({
    get model() {
      return inner.model;
    },
    cacheApi: store.api,
    get prices() {
      return inner.prices;
    },
    describe: () => ({ ...inner.describe(), cache: store.describe() }),
    identity: () => inner.identity?.() ?? inner.describe(),
    complete: (req, opts) => store.complete(inner, req, opts),
  });
}

function toChoice(s: StoredChoice, i: number): CompletionChoice {
  return { index: i, text: s.text, finishReason: s.finishReason };
}
