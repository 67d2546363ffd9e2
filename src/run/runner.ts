// Runs a method over items with bounded concurrency, scoring each finished episode with the benchmark's
// scorer and appending it to the run log. How a run stops early (README "Reliability": a run never lies):
// - an interrupt (SIGINT, SIGTERM) aborts in-flight episodes, which are then not written;
// - a FatalRunError (bad key, unknown model) stops the whole run the same way;
// - the circuit breaker (breaker.ts) stops it when one side fails N episodes in a row: the failures
//   that tripped it are recorded as errors, the episodes still in flight are aborted and not written
//   (tripped by the last episodes with every one written, it stopped nothing: the run finished);
// - the budget (--max-cost, budget.ts) stops it before a call that could pass it with nothing else in
//   flight (one that fits once the calls in flight settle waits for them): no episode starts
//   after that, calls already admitted finish and are paid for (src/run/meter.ts), an episode that
//   asks for another call is dropped, one that finishes without is written;
// - a disk that refuses a write (DiskError: full, read-only) stops it and is rethrown: the record
//   was appended whole or not at all, and nothing else is attempted on that disk.
// An InfraError otherwise becomes an error record (never a score); anything else is an internal
// error record and reported.
import { setMaxListeners } from 'node:events';
import type { CompletionModel } from '../llm/types.js';
import type { CacheStore } from '../llm/cache/store.js';
import type { Env } from '../envs/types.js';
import type { Method } from '../methods/types.js';
import type { Benchmark, Item } from '../benchmarks/types.js';
import { FatalRunError, InfraError } from '../errors.js';
import { DiskError } from '../util/durable.js';
import { isEnvRestart } from '../envs/pool.js';
import { errorRecord, recordFromResult } from './record.js';
import type { RunStore } from '../runlog/store.js';
import { CircuitOpenError, type CircuitBreaker } from './breaker.js';
import type { Prices } from '../llm/pricing.js';
import { BudgetStop, type Budget } from './budget.js';
import { ContextLengthError } from '../llm/context-limit.js';
import type { ContextOverflow } from '../methods/types.js';
import { isContextExceeded, overflowResult, watchFields } from './limit-outcomes.js';
import { EpisodeMeter, SpendMeter } from './meter.js';
import { episodeModel } from './model-chain.js';
import type { RunRecorder } from './run-recording.js';
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
  /** The backend (or a test double): what answers a call the cache does not. */
  model: CompletionModel;
  /** The run's cache store: each episode's chain puts its cache layer over the backend (absent: none). */
  cache?: CacheStore;
  /** Scores each episode (Benchmark.score) and names the metrics of error records. */
  benchmark: Pick<Benchmark, 'score' | 'metrics'>;
  makeEnv?: (item: Item) => Env;
  concurrency: number;
  /** Aborted on Ctrl-C / SIGTERM: no new episodes start, in-flight ones are aborted and dropped. */
  signal?: AbortSignal;
  /** Stops the run when one side keeps failing (absent: never). */
  breaker?: CircuitBreaker;
  /** --max-cost: the model's calls are admitted by it, at these prices. */
  budget?: { budget: Budget; prices: Prices | null };
  /** What the session spent: every episode's meter adds to it (src/run/meter.ts). */
  meter?: SpendMeter;
  /** Records every attempt's model and environment calls (recording.jsonl). */
  recorder?: RunRecorder;
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
  /** Stopped by a FatalRunError, or by the circuit breaker (a CircuitOpenError) when that left an episode unwritten. */
  fatal: FatalRunError | null;
  /** Stopped by the budget. */
  budget: BudgetStop | null;
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
  const budget = o.budget
    ? {
        ...o.budget,
        onStop: (s: BudgetStop) => {
          budgetStop ??= s;
        },
      }
    : undefined;
  // Every episode's meter adds to the session's, and that to the budget's (what it admits calls against).
  const session = o.meter ?? (o.budget ? new SpendMeter(o.budget.budget.meter) : undefined);
  const metricKeys = o.benchmark.metrics.map((m) => m.key);
  const runOne = async (ex: Item): Promise<void> => {
    const meter = new EpisodeMeter(session);
    const t0 = performance.now();
    let rec: EpisodeRecord;
    let failure: unknown = null;
    // What the recording's "end" line said: once it says written, the record is written, even when a
    // stop arrives while that line is made durable (a record and its recording never disagree).
    let promised = false;
    try {
      let result;
      for (;;) {
        const recording = o.recorder?.beginAttempt(ex);
        const makeEnv = o.method.needsEnv ? o.makeEnv : undefined;
        try {
          result = await o.method.run(ex, {
            model: episodeModel({ model: o.model, cache: o.cache, meter, recording: recording?.calls, budget }),
            makeEnv: makeEnv && recording ? recording.env(makeEnv) : makeEnv,
            signal: runAbort.signal,
            ...(o.contextOverflow ? { contextOverflow: o.contextOverflow } : {}),
          });
          promised = !runAbort.signal.aborted && recording !== undefined;
          await recording?.end(promised);
          break;
        } catch (e) {
          // Dropped when interrupted, stopped (a FatalRunError, the budget) or restarted; a DiskError
          // stops the run before anything else is written.
          if (!(e instanceof DiskError)) {
            promised =
              recording !== undefined &&
              !runAbort.signal.aborted &&
              !(e instanceof FatalRunError) &&
              !(e instanceof BudgetStop) &&
              !isEnvRestart(e);
            await recording?.end(promised);
          }
          // Its env server left the pool mid-episode (src/envs/pool.ts): the episode starts again from
          // reset on another member; the lost attempt is never recorded. Its model calls stay in what the
          // episode spent (spent_*: the bill); the call counts and limit notes describe the attempt kept.
          if (isEnvRestart(e) && !runAbort.signal.aborted) {
            meter.restart();
            continue;
          }
          throw e;
        }
      }
      rec = recordFromResult(ex, result, o.benchmark.score(ex, result), performance.now() - t0, meter);
      Object.assign(rec, watchFields(meter));
    } catch (e) {
      if (runAbort.signal.aborted && !promised) return; // interrupted or stopped: not written
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
        const result = overflowResult(e, meter.calls);
        rec = recordFromResult(ex, result, o.benchmark.score(ex, result), performance.now() - t0, meter);
        Object.assign(rec, watchFields(meter));
      } else if (e instanceof InfraError) {
        failure = e;
        rec = errorRecord(ex, { source: e.source, message: e.message }, performance.now() - t0, meter, metricKeys);
      } else {
        failure = e;
        o.onInternalError?.(ex, e);
        const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        rec = errorRecord(ex, { source: 'internal', message }, performance.now() - t0, meter, metricKeys);
      }
    }
    if (runAbort.signal.aborted && !promised) return; // finished after the stop: dropped like the others
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
  // The one rule for a breaker that trips on the last episodes: with every episode written, nothing was
  // left to run and nothing in flight was dropped, so nothing was stopped. The run finished with its
  // errors (README "Reliability": exit 3 and --retry-errors), as with the breaker off.
  let stopped = fatal as FatalRunError | null; // set by the workers, like diskError
  if (stopped instanceof CircuitOpenError && written === o.items.length) stopped = null;
  const interrupted = Boolean(o.signal?.aborted) && !stopped && !budgetStop;
  return { written, interrupted, fatal: stopped, budget: budgetStop };
}
