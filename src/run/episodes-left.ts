// The episodes this session runs: those of the plan not yet recorded (with --retry-errors, the error
// ones too), run by the runner (runner.ts) with the progress display started from what is already
// recorded, and metered for the session (src/run/meter.ts).
import type { CompletionModel } from '../llm/types.js';
import type { CacheStore } from '../llm/cache/store.js';
import type { ModelPrices } from '../llm/pricing.js';
import type { EnvHandle } from '../benchmarks/types.js';
import type { Method } from '../methods/types.js';
import type { ContextOverflow } from '../methods/types.js';
import { errorMessage } from '../errors.js';
import type { RunStore } from '../runlog/store.js';
import type { EpisodeRecord, Spend } from '../runlog/schema.js';
import { executeEpisodes, type ExecuteResult } from './runner.js';
import { orderedRecords } from './summary.js';
import { countRecord, Progress, type ProgressState } from './progress.js';
import { formatShard } from './shard.js';
import { CircuitBreaker, DEFAULT_MAX_CONSECUTIVE_FAILURES } from './breaker.js';
import { SpendMeter } from './meter.js';
import type { RunRecorder } from './run-recording.js';
import type { Plan } from './episode-plan.js';
import type { RunIO } from './run-deps.js';

/**
 * The run's retries of model and environment requests, counted from the first request (the model
 * list, the environment check) and shown on the progress line once there is one.
 */
export class RetryCount {
  count = 0;
  progress: Progress | undefined;
  readonly onRetry = (): void => {
    this.count++;
    this.progress?.retry();
  };
}

export interface EpisodesLeft {
  runId: string;
  methodName: string;
  runIdTag: string | undefined;
  plan: Plan;
  store: RunStore;
  /** --retry-errors: the error records are run again. */
  retryErrors: boolean;
  method: Method;
  recorder: RunRecorder;
  /** The backend and the cache store each episode's chain puts over it (run-model.ts). */
  backend: CompletionModel;
  cache: CacheStore | undefined;
  env: EnvHandle | undefined;
  concurrency: number;
  contextOverflow: ContextOverflow | undefined;
  /** The model's prices: the budget admits calls at them. */
  prices: ModelPrices;
  /** The session's model has no known price: the session's meter says so (SpendMeter). */
  unpriced: boolean;
  /** The circuit breaker's limit as this session has it (session-start.ts; absent: the default). */
  maxFailures: number | undefined;
  retries: RetryCount;
}

/** Runs the episodes left; returns how the runner ended and what this session spent. */
export async function runEpisodesLeft(o: EpisodesLeft, io: RunIO): Promise<{ res: ExecuteResult; spent: Spend }> {
  const { plan, store } = o;
  const bench = plan.benchmark;
  const todoIdx = plan.indices.filter((i) => {
    const r = store.records.get(i);
    return !r || (o.retryErrors && r.error !== null);
  });
  const items = todoIdx.map((i) => bench.item(i));
  const primary = bench.metrics[0];
  // Records about to be re-run (--retry-errors) are not yet "done".
  const kept = orderedRecords(store.records, plan.indices).filter((r) => !(o.retryErrors && r.error !== null));
  const short = `${bench.name} ${o.methodName}${o.runIdTag ? ` ${o.runIdTag}` : ''}${plan.shard ? ` ${formatShard(plan.shard)}` : ''}`;
  const progress = await Progress.create(
    { id: o.runId, short, position: io.position, ...(io.baseOf ? { baseOf: io.baseOf } : {}) },
    initialProgress(kept, plan.indices.length, primary, o.retries.count),
    io.progress,
    io.signal,
  );
  o.retries.progress = progress;
  // What this session pays for: counted by every episode's meter, added to the invocation's (the budget's).
  const spend = new SpendMeter(io.budget?.meter, o.unpriced);
  const env = o.env;
  let res: ExecuteResult;
  try {
    res = await executeEpisodes({
      store,
      items,
      method: o.method,
      recorder: o.recorder,
      meter: spend,
      model: o.backend,
      ...(o.cache ? { cache: o.cache } : {}),
      benchmark: bench,
      makeEnv: env ? (item) => env.makeEnv(item) : undefined,
      concurrency: o.concurrency,
      signal: io.signal,
      breaker: new CircuitBreaker(o.maxFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES),
      ...(io.budget ? { budget: { budget: io.budget, prices: o.prices } } : {}),
      onRecord: (rec) => progress.record(rec, primary.key),
      contextOverflow: o.contextOverflow,
      onInternalError: (item, e) => progress.note(() => io.log(`episode ${item.index} failed (recorded as an error): ${errorMessage(e)}`)),
    });
  } catch (e) {
    // A run that throws (a refused write, a bug) ends the display as Ctrl-C does: it stops where it is,
    // with no redraw over what is printed next, and its timer and its listener on the shared signal go.
    progress.stop();
    throw e;
  }
  progress.finish();
  return { res, spent: { ...spend.spent } };
}

/** The display of a run that starts from records already kept: counted as the ones it records. */
function initialProgress(kept: EpisodeRecord[], total: number, primary: { key: string; label: string }, retries: number) {
  const s: ProgressState = {
    done: 0,
    total,
    scored: 0,
    metricLabel: primary.label,
    metricValues: [],
    errors: 0,
    errorsBySource: {},
    retries,
    tokens: 0,
    cost: 0,
    usageUnknownCalls: 0,
  };
  for (const r of kept) countRecord(s, r, primary.key);
  return s;
}
