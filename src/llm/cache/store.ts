// The persistent completion cache: re-run from cache at zero cost, replay offline (README "Running experiments"). The
// run's CacheStore answers a request from the file (./file.ts) by its key (./key.ts), or asks the
// backend for the samples the file lacks and stores them; --cache replay makes no model calls, and
// refuses again a request the server refused as too long for the context window (./stored.ts).
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ConfigError, FatalRunError, RunStop, errorMessage, errorCode } from '../../errors.js';
import { SqliteUnavailable } from '../../util/sqlite.js';
import { ContextLengthError } from '../context-limit.js';
import { costUsd, pricesOfModel, ZERO_USAGE } from '../pricing.js';
import { LlmAccumulator } from '../stats.js';
import type { CompletionModel, CompletionRequest, CompletionResult, TokenUsage } from '../types.js';
import { CompletionCache } from './file.js';
import { takeKeyedRequest } from './key.js';
import { refusalError, refusalOf, storedUsage, toChoice, usageUnknownIn, type StoredChoice } from './stored.js';
import { matchableSecret, replaceSecretValues } from '../../util/redact.js';

export type CacheMode = 'rw' | 'off' | 'replay';

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

  /**
   * `text` with every secret value replaced, as written or percent-encoded (replaceSecretValues; only
   * those matchableSecret: a shorter one would match words).
   */
  private scrub(text: string): string {
    return replaceSecretValues(text, this.matchableSecrets, '[redacted]');
  }

  /** The run's secrets long enough to be matched by value, found once. */
  private get matchableSecrets(): string[] {
    return (this.matchable ??= (this.o.secrets ?? []).filter(matchableSecret));
  }
  private matchable: string[] | undefined;

  private withoutSecrets(r: CompletionResult): CompletionResult {
    if (this.matchableSecrets.length === 0) return r;
    const texts = r.choices.map((c) => this.scrub(c.text));
    if (texts.every((t, i) => t === r.choices[i].text)) return r;
    return { ...r, choices: r.choices.map((c, i) => ({ ...c, text: texts[i] })) };
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
