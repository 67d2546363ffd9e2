// How an invocation begins its session in the run folder's manifest: the manifest a resume finds
// (checked to be this run, its abandoned sessions settled, what is already recorded told) or the one a
// new run states of itself, and the session this invocation adds to it (README "Reliability").
import type { RunStore } from '../runlog/store.js';
import { manifestIfAny } from '../runlog/store.js';
import type { RunManifest, SessionInfo } from '../runlog/schema.js';
import type { PriceStatus } from '../llm/pricing.js';
import { assertSameRun, newManifest, openSession, recordableSettings, saveManifest, settleAbandonedSessions } from './manifest.js';
import { formatShard } from './shard.js';
import { TRUNCATE_DEVIATION } from './limit-outcomes.js';
import { JsonFields } from '../util/json-fields.js';
import type { RunConfig } from './config.js';
import type { Plan } from './episode-plan.js';
import type { RunIO } from './run-deps.js';

/** What a run states of itself: a new manifest records it, a resume checks the stored one against it. */
export interface RunStatement {
  runId: string;
  /** manifest.json's `identity` (run-identity.ts). */
  identity: Record<string, unknown>;
  /** The input files' sha256 (inputShas), and those that differ from the vendored ones. */
  inputs: Record<string, string | null>;
  changedInputs: string[];
  methodName: string;
  runIdTag: string | undefined;
  /** The model's name as the run names it. */
  modelName: string;
  /** What the method, the model and the environment (null: none) describe of themselves. */
  methodDesc: Record<string, unknown>;
  modelDesc: Record<string, unknown>;
  envDesc: Record<string, unknown> | null;
}

/**
 * The manifest of the run's folder: the stored one when the folder holds this run (a resume), told in
 * `io.log`, else a new one begun `now`.
 */
export function runManifest(
  dir: string,
  store: RunStore,
  cfg: Pick<RunConfig, 'retryErrors' | 'settings' | 'contextOverflow'>,
  plan: Plan,
  run: RunStatement,
  io: Pick<RunIO, 'log'>,
  now: string,
): RunManifest {
  const manifest = manifestIfAny(dir);
  if (!manifest) return newRunManifest(cfg, plan, run, now);
  assertSameRun(manifest, { identity: run.identity, inputs: run.inputs, indices: plan.indices }, dir);
  settleAbandonedSessions(dir, manifest.sessions);
  io.log(`resuming ${run.runId}: ${countDone(store, plan.indices)} of ${plan.indices.length} episodes already recorded`);
  const nErrors = plan.indices.filter((i) => store.records.get(i)?.error).length;
  if (nErrors > 0) {
    io.log(
      cfg.retryErrors
        ? `re-running the ${nErrors} episode${nErrors === 1 ? '' : 's'} of this run recorded as errors (--retry-errors)`
        : `${nErrors} episode${nErrors === 1 ? ' of this run is' : 's of this run are'} recorded as errors; --retry-errors re-runs them`,
    );
  }
  return manifest;
}

function newRunManifest(cfg: Pick<RunConfig, 'settings' | 'contextOverflow'>, plan: Plan, run: RunStatement, now: string): RunManifest {
  const bench = plan.benchmark;
  const contextOverflow = cfg.contextOverflow;
  return newManifest(
    {
      runId: run.runId,
      kind: 'run',
      task: bench.name,
      metrics: bench.metrics,
      method: run.methodName,
      split: plan.split,
      shard: plan.shard ? formatShard(plan.shard) : null,
      model: run.modelName,
      indices: plan.indices,
      ...(plan.shard ? { selection: plan.selection } : {}),
      runIdTag: run.runIdTag,
      identity: run.identity,
      settings: recordableSettings(cfg.settings),
      fidelity: {
        ...fidelityOf(run.methodDesc, run.modelDesc, run.envDesc, plan, bench.fidelity?.(plan.options)),
        ...(contextOverflow === 'truncate' ? { contextOverflow: { mode: contextOverflow, deviation: TRUNCATE_DEVIATION } } : {}),
      },
      inputs: run.inputs,
      changedInputs: run.changedInputs,
      modelDescription: run.modelDesc,
      environment: run.envDesc,
      split_description: plan.splitDescription,
      sessions: [],
    },
    now,
  );
}

/**
 * This invocation's session, added to the manifest, which is saved. --max-consecutive-failures is a
 * flag of the invocation; a resume without it keeps the last one given (returned as `maxFailures`).
 */
export function startSession(
  dir: string,
  manifest: RunManifest,
  o: {
    now: string;
    linesAtStart: number;
    price: PriceStatus;
    retryErrors: boolean;
    /** The flag as this invocation gives it (RunIO.maxConsecutiveFailures). */
    maxConsecutiveFailures: number | undefined;
    endpoints: readonly string[] | undefined;
    secrets: readonly string[];
  },
): { session: SessionInfo; maxFailures: number | undefined } {
  const maxFailures =
    o.maxConsecutiveFailures ??
    [...manifest.sessions].reverse().find((x) => x.maxConsecutiveFailures !== undefined)?.maxConsecutiveFailures;
  const session = openSession({
    startedAt: o.now,
    linesAtStart: o.linesAtStart,
    price: o.price,
    retryErrors: o.retryErrors,
    maxConsecutiveFailures: maxFailures,
    endpoints: o.endpoints,
  });
  manifest.sessions.push(session);
  saveManifest(dir, manifest, o.secrets);
  return { session, maxFailures };
}

function countDone(store: RunStore, indices: number[]): number {
  return indices.filter((i) => store.records.has(i)).length;
}

/** The fidelity switches in one place: method options, split, API mode, environment, benchmark's own. */
function fidelityOf(
  methodDesc: Record<string, unknown>,
  modelDesc: Record<string, unknown>,
  envDesc: Record<string, unknown> | null,
  plan: Plan,
  benchmarkFidelity: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const d = JsonFields.orEmpty(modelDesc);
  const api = d.get('api') ?? d.get('apiMode') ?? d.get('mode');
  return {
    method: methodDesc,
    split: { name: plan.split, description: plan.splitDescription },
    api: api ?? null,
    modelDeviations: d.get('deviations') ?? [],
    // The environment's backend and its deviations (null for methods without an environment).
    environment: envDesc,
    ...(benchmarkFidelity ? { benchmark: benchmarkFidelity } : {}),
  };
}
