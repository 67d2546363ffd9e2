// Runs a method over items with bounded concurrency, scoring each finished episode with the benchmark's
// scorer and appending it to the run log. How a run stops early (README "Reliability": a run never lies):
// - an interrupt (SIGINT, SIGTERM) aborts in-flight episodes, which are then not written;
// - a FatalRunError (bad key, unknown model) stops the whole run the same way;
// - the circuit breaker (breaker.ts) stops it when one side fails N episodes in a row: the failures
//   that tripped it are recorded as errors, the episodes still in flight are aborted and not written;
// - the budget (--max-cost, budget.ts) stops it before a call that could pass it: no episode starts
//   after that, calls already admitted finish and are paid for (src/run/meter.ts), an episode that
//   asks for another call is dropped, one that finishes without is written;
// - a disk that refuses a write (DiskError: full, read-only) stops it and is rethrown: the record
//   was appended whole or not at all, and nothing else is attempted on that disk.
// An InfraError otherwise becomes an error record (never a score); anything else is an internal
// error record and reported.
import { setMaxListeners } from 'node:events';
import type { CompletionModel, CompletionRequest, CompletionResult } from '../llm/types.js';
import type { Env } from '../envs/types.js';
import type { Method } from '../methods/types.js';
import type { Benchmark, Item } from '../benchmarks/types.js';
import { FatalRunError, InfraError } from '../errors.js';
import { DiskError } from '../util/durable.js';
import { isEnvRestart } from '../envs/pool.js';
import { errorRecord, recordFromResult, tallyCall, type CallStats } from './record.js';
import type { RunStore } from '../runlog/store.js';
import type { CircuitBreaker } from './breaker.js';
import { budgetedModel, BudgetStop, type Budget, type UsdPrices } from './budget.js';
import { ContextLengthError } from '../llm/context-limit.js';
import type { ContextOverflow } from '../methods/types.js';
import { isContextExceeded, newLimitWatch, overflowResult, watchFields, watchingModel } from './limit-outcomes.js';
import type { EpisodeRecord } from '../runlog/schema.js';

/** The abort reason of a signal-driven stop: which signal it was (the exit status and the manifest say). */
export class Interrupt extends Error {
  override readonly name = 'AbortError';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted (${signal})`);
  }
}

export interface ExecuteOptions {
  store: RunStore;
  /** The episodes to run now, in split order. */
  items: Item[];
  method: Method;
  model: CompletionModel;
  /** Scores each episode (Benchmark.score) and names the metrics of error records. */
  benchmark: Pick<Benchmark, 'score' | 'metrics'>;
  makeEnv?: (item: Item) => Env;
  concurrency: number;
  /** Aborted on Ctrl-C / SIGTERM: no new episodes start, in-flight ones are aborted and dropped. */
  signal?: AbortSignal;
  /** Stops the run when one side keeps failing (absent: never). */
  breaker?: CircuitBreaker;
  /** --max-cost: the model's calls are admitted by it, at these prices. */
  budget?: { budget: Budget; prices: UsdPrices | null };
  onRecord?: (rec: EpisodeRecord) => void;
  /** --context-overflow (default 'fail'): what interactive methods do when a prompt outgrows the window. */
  contextOverflow?: ContextOverflow;
  /** Called for an episode that failed with something other than an InfraError (a bug): it is recorded. */
  onInternalError?: (item: Item, e: unknown) => void;
}

export interface ExecuteResult {
  written: number;
  /** Stopped by the caller's signal. */
  interrupted: boolean;
  /** Stopped by a FatalRunError, or by the circuit breaker (a CircuitOpenError). */
  fatal: FatalRunError | null;
  /** Stopped by the budget. */
  budget: BudgetStop | null;
}

/** Counts calls and fully-cached calls of one episode, passing everything else through. */
export function countingModel(inner: CompletionModel, stats: CallStats): CompletionModel {
  return {
    get model() {
      return inner.model;
    },
    describe: () => inner.describe(),
    async complete(req: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<CompletionResult> {
      stats.calls++;
      const res = await inner.complete(req, opts);
      tallyCall(stats, res);
      return res;
    },
  };
}

export async function executeEpisodes(o: ExecuteOptions): Promise<ExecuteResult> {
  const runAbort = new AbortController();
  setMaxListeners(0, runAbort.signal); // every in-flight call listens for the interrupt
  const onOuterAbort = () => runAbort.abort(o.signal?.reason);
  if (o.signal?.aborted) runAbort.abort(o.signal.reason);
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let next = 0;
  let written = 0;
  let fatal: FatalRunError | null = null;
  let budgetStop: BudgetStop | null = null;
  let diskError: DiskError | null = null;
  /** Stops the run for good: the first reason wins. */
  const stop = (reason: Error) => {
    if (!runAbort.signal.aborted) runAbort.abort(reason);
  };

  // A budget stop does not abort the calls in flight: they were admitted, they finish and are recorded.
  const model = o.budget
    ? budgetedModel(o.model, o.budget.budget, o.budget.prices, (s) => {
        budgetStop ??= s;
      })
    : o.model;
  const metricKeys = o.benchmark.metrics.map((m) => m.key);
  const runOne = async (ex: Item): Promise<void> => {
    const stats: CallStats = { calls: 0, cachedCalls: 0 };
    const t0 = performance.now();
    let rec: EpisodeRecord;
    let failure: unknown = null;
    const watch = newLimitWatch();
    try {
      let result;
      for (;;) {
        try {
          result = await o.method.run(ex, {
            model: watchingModel(countingModel(model, stats), watch),
            makeEnv: o.method.needsEnv ? o.makeEnv : undefined,
            signal: runAbort.signal,
            ...(o.contextOverflow ? { contextOverflow: o.contextOverflow } : {}),
          });
          break;
        } catch (e) {
          // Its env server left the pool mid-episode (src/envs/pool.ts): the episode starts again from
          // reset on another member; the lost attempt is never recorded. Its model calls stay in what the
          // episode spent (spent_*: the bill); the call counts and limit notes describe the attempt kept.
          if (isEnvRestart(e) && !runAbort.signal.aborted) {
            stats.calls = 0;
            stats.cachedCalls = 0;
            Object.assign(watch, newLimitWatch());
            continue;
          }
          throw e;
        }
      }
      rec = recordFromResult(ex, result, o.benchmark.score(ex, result), performance.now() - t0, stats);
      Object.assign(rec, watchFields(watch));
    } catch (e) {
      if (runAbort.signal.aborted) return; // interrupted or stopped: not written
      if (e instanceof BudgetStop) return; // its next call was refused by the budget: not written
      if (e instanceof FatalRunError) {
        fatal ??= e;
        stop(e);
        return;
      }
      if (e instanceof DiskError) {
        // e.g. a recording backend's file: the disk, not the episode, failed
        diskError ??= e;
        stop(e);
        return;
      }
      if (e instanceof ContextLengthError) {
        // A model limit is an outcome (limit-outcomes.ts): scored by the benchmark as nothing answered.
        const result = overflowResult(e, stats);
        rec = recordFromResult(ex, result, o.benchmark.score(ex, result), performance.now() - t0, stats);
        Object.assign(rec, watchFields(watch));
      } else if (e instanceof InfraError) {
        failure = e;
        rec = errorRecord(ex, { source: e.source, message: e.message }, performance.now() - t0, stats, metricKeys);
      } else {
        failure = e;
        o.onInternalError?.(ex, e);
        const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        rec = errorRecord(ex, { source: 'internal', message }, performance.now() - t0, stats, metricKeys);
      }
    }
    if (runAbort.signal.aborted) return; // finished after the stop: dropped like the others
    // Written whole now; durable (fsync'd with the episodes finishing meanwhile) when `durable` resolves.
    let durable: Promise<void>;
    try {
      durable = o.store.append(rec);
    } catch (e) {
      if (!(e instanceof DiskError)) throw e;
      diskError ??= e;
      stop(e);
      return;
    }
    // The breaker counts the episode as it is written, so that episodes in flight see it trip at once.
    // An episode that outgrew the context window says nothing about the endpoint: the breaker skips it.
    if (rec.error === null) {
      if (!isContextExceeded(rec)) o.breaker?.success();
    } else {
      const open = o.breaker?.failure(failure) ?? null;
      if (open) {
        fatal ??= open;
        stop(open);
      }
    }
    try {
      await durable;
    } catch (e) {
      if (!(e instanceof DiskError)) throw e;
      diskError ??= e;
      stop(e);
      return;
    }
    written++;
    o.onRecord?.(rec);
  };

  const worker = async () => {
    while (!runAbort.signal.aborted && !budgetStop && next < o.items.length) {
      const ex = o.items[next++];
      await runOne(ex);
    }
  };
  const n = Math.max(1, Math.min(o.concurrency, o.items.length));
  try {
    await Promise.all(Array.from({ length: n }, worker));
  } finally {
    o.signal?.removeEventListener('abort', onOuterAbort);
  }
  // Set by the workers (closures), so the compiler cannot narrow it here.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (diskError) throw diskError;
  const interrupted = Boolean(o.signal?.aborted) && !fatal && !budgetStop;
  return { written, interrupted, fatal, budget: budgetStop };
}
