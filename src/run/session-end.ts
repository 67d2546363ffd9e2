// How a run's session ends: the run summarised (summary.csv), the session closed in the manifest with
// its status and what stopped it, the model limits the episodes reached (counted, never hidden), the
// benchmark's notes, and the result the caller prints (README "Reliability").
import type { EnvHandle } from '../benchmarks/types.js';
import type { RunStore } from '../runlog/store.js';
import { SUMMARY_FILE } from '../runlog/store.js';
import type { RunManifest, RunSummary, SessionInfo } from '../runlog/schema.js';
import { Interrupt, type ExecuteResult } from './runner.js';
import { orderedRecords, summarizeRun, summaryCsv } from './summary.js';
import { assertNoSecrets, closeSession, saveManifest } from './manifest.js';
import { limitLinesOf, manifestLimitsOf } from './limit-outcomes.js';
import type { Plan } from './episode-plan.js';
import type { RunIO } from './run-deps.js';
import { errorCauses, type RunResult, type RunStatus } from './run-result.js';
import type { EndpointTally } from '../llm/endpoints.js';

/** Why a run stopped early: the budget, else the signal that interrupted it; undefined when it did not. */
export function stoppedByOf(res: Pick<ExecuteResult, 'budget' | 'interrupted'>, signal: AbortSignal | undefined): string | undefined {
  return res.budget ? 'max-cost' : res.interrupted ? (signal?.reason instanceof Interrupt ? signal.reason.signal : 'SIGINT') : undefined;
}

/** A session's status from how the runner ended and how much of the plan is recorded. */
export function runStatusOf(
  res: Pick<ExecuteResult, 'fatal' | 'interrupted' | 'budget'>,
  summary: Pick<RunSummary, 'n_done' | 'n_planned'>,
): RunStatus {
  return res.fatal
    ? 'failed'
    : res.interrupted || res.budget
      ? 'interrupted'
      : summary.n_done === summary.n_planned
        ? 'complete'
        : 'partial';
}

/**
 * Ends the session (its spend already set): writes summary.csv and the manifest, logs the benchmark's
 * notes and returns the run's result.
 */
export function endSession(
  o: {
    runId: string;
    dir: string;
    store: RunStore;
    manifest: RunManifest;
    session: SessionInfo;
    plan: Pick<Plan, 'benchmark' | 'indices'>;
    env: EnvHandle | undefined;
    res: ExecuteResult;
    secrets: string[];
    /** What each model endpoint's attempts got this session; kept only for a fleet (more than one). */
    endpoints?: readonly EndpointTally[];
  },
  io: Pick<RunIO, 'log' | 'signal'>,
): RunResult {
  const { runId, dir, store, manifest, session, res, env } = o;
  const summary = summarizeRun(manifest, store.records);
  const stoppedBy = stoppedByOf(res, io.signal);
  const status = runStatusOf(res, summary);
  const csv = summaryCsv([summary]);
  assertNoSecrets(csv, o.secrets, SUMMARY_FILE);
  store.writeSummary(csv);
  closeSession(session, {
    status,
    written: res.written,
    stoppedBy,
    envServers: env?.servedBy?.(),
    // A pool's members as this session leaves them (one lost mid-run marked left out, src/envs/pool.ts);
    // environment.poolUrls stays as the run's first session began.
    envPool: env?.describe().poolUrls,
  });
  const ordered = orderedRecords(store.records, o.plan.indices);
  // Model limits reached (context window, max_tokens, silent truncation): counted, never hidden.
  manifest.limits = manifestLimitsOf(ordered);
  saveManifest(dir, manifest, o.secrets);
  const notes = o.plan.benchmark.summaryNotes?.({ dir, manifest, records: ordered, summary }) ?? [];
  for (const n of notes) io.log(n);
  return {
    runId,
    dir,
    status,
    summary,
    errorCauses: errorCauses(ordered),
    limitLines: limitLinesOf(runId, ordered),
    spent: session.spent,
    price: session.price,
    ...(o.endpoints && o.endpoints.length > 1 ? { endpoints: [...o.endpoints] } : {}),
    ...(res.fatal ? { fatal: res.fatal } : {}),
    ...(stoppedBy ? { stoppedBy } : {}),
    ...(res.budget ? { budgetStop: res.budget } : {}),
  };
}
