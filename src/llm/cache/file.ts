// The completion cache file: SQLite (better-sqlite3) in WAL mode with a busy timeout, so several
// processes (shards of one run) can write one file at once, and each response is stored in its own
// transaction, so a kill -9 loses at most the call in progress. Tables: `completions` (one row per
// sample, ./stored.ts), `requests` (the canonical JSON each key hashes, ./key.ts) and `refusals`.
import path from 'node:path';
import { errorCode } from '../../errors.js';
import { abortReason } from '../../util/clock.js';
import { JsonFields } from '../../util/json-fields.js';
import { checkWritableDir } from '../../util/safe-path.js';
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../../util/sqlite.js';
import { contextLimitFromJson, type ContextLimit } from '../context-limit.js';
import type { TokenUsage } from '../types.js';
import type { StoredChoice, StoredRefusal } from './stored.js';

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
