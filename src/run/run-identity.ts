// A run's identity (manifest.json's `identity`: what --resume checks) and the run id hashed from it:
// the task, method, split and items, and the identity each part declares (docs/architecture.md).
import { makeRunId } from './run-id.js';
import { formatShard } from './shard.js';
import type { RunConfig } from './config.js';
import type { Plan } from './episode-plan.js';

/**
 * The part of a model's or environment's description that is the run's identity, as the backend
 * declares it (identity() beside describe(): not where it is served, its cache, retries, limits or
 * prices, nor what changes between server restarts). Such a run still resumes on another server.
 */
export function identityOf(part: { describe(): Record<string, unknown>; identity?(): Record<string, unknown> }): Record<string, unknown> {
  return part.identity?.() ?? part.describe();
}

/** What a run is made of besides its plan: its method, and its model's and environment's identity (identityOf). */
export interface RunParts {
  methodName: string;
  methodDesc: Record<string, unknown>;
  runIdTag?: string;
  model: { name: string; identity: unknown };
  environment: unknown;
}

/** A run's identity (manifest.json's `identity`) and the run id hashed from it (run-id.ts). */
export function runIdentity(
  cfg: Pick<RunConfig, 'indices' | 'limit' | 'contextOverflow'>,
  plan: Pick<Plan, 'benchmark' | 'split' | 'selection' | 'shard'>,
  parts: RunParts,
): { identity: Record<string, unknown>; runId: string } {
  const identity: Record<string, unknown> = {
    task: plan.benchmark.name,
    method: parts.methodName,
    split: plan.split,
    selection: cfg.indices !== undefined ? plan.selection : undefined,
    limit: cfg.limit,
    shard: plan.shard ? formatShard(plan.shard) : undefined,
    model: parts.model.identity,
    methodOptions: parts.methodDesc,
    environment: parts.environment,
    // Only the deviation names itself: runs with the default keep their ids.
    contextOverflow: cfg.contextOverflow === 'truncate' ? cfg.contextOverflow : undefined,
  };
  const runId = makeRunId(
    {
      task: plan.benchmark.name,
      method: parts.methodName,
      split: plan.split,
      model: parts.model.name,
      shard: plan.shard,
      tag: parts.runIdTag,
    },
    identity,
  );
  return { identity, runId };
}
