// Runs a method over items with bounded concurrency, scoring each finished episode with the benchmark's
// scorer and appending it to the run log. Interrupts (SIGINT) abort in-flight episodes, which are then
// not written; a FatalRunError stops the whole run; an InfraError becomes an error record.
import { setMaxListeners } from 'node:events';
import type { CompletionModel, CompletionRequest, CompletionResult } from '../llm/types.js';
import type { Env } from '../envs/types.js';
import type { Method } from '../methods/types.js';
import type { Benchmark, Item } from '../benchmarks/types.js';
import { FatalRunError, InfraError } from '../errors.js';
import { errorRecord, recordFromResult, type CallStats, type EpisodeRecord } from './record.js';
import type { RunStore } from './run-log.js';

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
  /** Aborted on Ctrl-C: no new episodes start, in-flight ones are aborted and dropped. */
  signal?: AbortSignal;
  onRecord?: (rec: EpisodeRecord) => void;
  /** Called for an episode that failed with something other than an InfraError (a bug): it is recorded. */
  onInternalError?: (item: Item, e: unknown) => void;
}

export interface ExecuteResult {
  written: number;
  interrupted: boolean;
  fatal: FatalRunError | null;
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
      if (res.choices.length > 0 && res.cachedChoices >= res.choices.length) stats.cachedCalls++;
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

  const metricKeys = o.benchmark.metrics.map((m) => m.key);
  const runOne = async (ex: Item): Promise<void> => {
    const stats: CallStats = { calls: 0, cachedCalls: 0 };
    const t0 = performance.now();
    let rec: EpisodeRecord;
    try {
      const result = await o.method.run(ex, {
        model: countingModel(o.model, stats),
        makeEnv: o.method.needsEnv ? o.makeEnv : undefined,
        signal: runAbort.signal,
      });
      rec = recordFromResult(ex, result, o.benchmark.score(ex, result), performance.now() - t0, stats);
    } catch (e) {
      if (runAbort.signal.aborted) return; // interrupted or another episode was fatal: not written
      if (e instanceof FatalRunError) {
        fatal ??= e;
        runAbort.abort(e);
        return;
      }
      if (e instanceof InfraError) {
        rec = errorRecord(ex, { source: e.source, message: e.message }, performance.now() - t0, stats, metricKeys);
      } else {
        o.onInternalError?.(ex, e);
        const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        rec = errorRecord(ex, { source: 'internal', message }, performance.now() - t0, stats, metricKeys);
      }
    }
    if (runAbort.signal.aborted) return; // finished after the interrupt: dropped like the others
    o.store.append(rec);
    written++;
    o.onRecord?.(rec);
  };

  const worker = async () => {
    while (!runAbort.signal.aborted && next < o.items.length) {
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
  return { written, interrupted: Boolean(o.signal?.aborted) && !fatal, fatal };
}
