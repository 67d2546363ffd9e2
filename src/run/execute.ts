// One run from resolved settings: plan the episodes, name the run, open (or resume) its folder, run
// what is left, summarise. The benchmark (items, method, environment, scorer) and the model come in
// through RunDeps, so this logic is tested with doubles and wired to the real modules in deps.ts; it
// never names a benchmark.
// A run never lies (README "Reliability"): bad input is refused before anything is written (results folder
// checked without writing, created one level at a time); a run says when it resumes over error
// episodes; the circuit breaker and the --max-cost budget stop it cleanly; the result lists the
// errors per cause so the CLI can print them and the command that retries them.
// This module holds the order of the steps and what each opens and closes (the model, the environment,
// the run folder, the recording); the steps are modules of their own: episode-plan.ts, run-identity.ts,
// results-dir.ts, session-start.ts, episodes-left.ts, session-end.ts.
import path from 'node:path';
import type { EnvHandle } from '../benchmarks/types.js';
import type { Method } from '../methods/types.js';
import type { CompletionModel } from '../llm/types.js';
import { UserError } from '../errors.js';
import { RunStore, readManifest } from '../runlog/store.js';
import { formatShard } from './shard.js';
import { isAutoShard, resolveAutoShard } from './shard-auto.js';
import { IdentityMemo } from '../util/identity-memo.js';
import { assertSameRun, inputShas, saveManifest } from './manifest.js';
import { unpricedBudget } from './budget.js';
import { pricesOfModel, type ModelPrices } from '../llm/pricing.js';
import type { Settings } from './experiment.js';
import { RunRecorder } from './run-recording.js';
import { applyResponseLimits } from './response-limits.js';
import { checkResumeSettings } from './input-checks.js';
import { runConfigOf, withSettings, type RunConfig } from './config.js';
import { planEpisodes, type Plan } from './episode-plan.js';
import { identityOf, runIdentity } from './run-identity.js';
import { checkResultsDir, ensureResultsDir, runFolder } from './results-dir.js';
import { runModelOf, runModelView } from './run-model.js';
import type { RunDeps, RunIO } from './run-deps.js';
import type { RunResult } from './run-result.js';
import { runManifest, startSession, type RunStatement } from './session-start.js';
import { RetryCount, runEpisodesLeft } from './episodes-left.js';
import { endSession } from './session-end.js';

// What importers of this module (the run command, tests) take from here, defined in the step modules.
export type { RunDeps, RunIO } from './run-deps.js';
export type { RunResult } from './run-result.js';
export { errorCauses } from './run-result.js';
export { checkResultsDir, ensureResultsDir } from './results-dir.js';
export { runBenchmark } from './episode-plan.js';
export { identityOf } from './run-identity.js';
export { runModelView } from './run-model.js';

/** One run: its settings are parsed here unless the caller handed over a parsed RunConfig. */
export async function executeRun(run: Settings | RunConfig, deps: RunDeps, io: RunIO): Promise<RunResult> {
  const { cfg, plan, methodName, method } = startRun(run, deps, io);
  const bench = plan.benchmark;
  const settings = cfg.settings;
  // Retries happen from the first request on (the model list, the environment check): counted from here.
  const retries = new RetryCount();
  const { backend, cache, endpoints, endpointTallies } = runModelOf(await deps.createModel(cfg, { onRetry: retries.onRetry }));
  const model = runModelView({ backend, cache });
  let env: EnvHandle | undefined;
  try {
    if (method.needsEnv) {
      env = await bench.createEnv(plan.options, { onRetry: retries.onRetry });
      await env.check?.(io.signal);
    }
    const { statement, prices, dir } = nameRun(cfg, plan, methodName, method, model, env, io);
    const runId = statement.runId;

    ensureResultsDir(cfg);
    const store = RunStore.open(dir);
    let recorder: RunRecorder | undefined;
    try {
      const secrets = deps.secrets(settings);
      const now = new Date().toISOString();
      const manifest = runManifest(dir, store, cfg, plan, statement, io, now);
      if (store.recoveredBytes > 0)
        io.log(`${runId}: dropped a partial last episode line (${store.recoveredBytes} bytes) left by an interrupted run`);
      const { session, maxFailures } = startSession(dir, manifest, {
        now,
        linesAtStart: store.linesAtOpen,
        price: prices.status,
        retryErrors: cfg.retryErrors,
        maxConsecutiveFailures: io.maxConsecutiveFailures,
        endpoints,
        secrets,
      });
      // The run is under way: the facts learned while planning it (where the dataset's entries are) are kept.
      IdentityMemo.saveDeferred();
      recorder = RunRecorder.open(dir, { model, settings, secrets }); // recording.jsonl: what `bundle` packs
      // The recording proves what this session paid for, call by call, even after a kill -9.
      session.recording = recorder.session;
      saveManifest(dir, manifest, secrets);

      const { res, spent } = await runEpisodesLeft(
        {
          runId,
          methodName,
          runIdTag: statement.runIdTag,
          plan,
          store,
          retryErrors: cfg.retryErrors,
          method,
          recorder,
          backend,
          cache,
          env,
          concurrency: cfg.concurrency,
          contextOverflow: cfg.contextOverflow,
          prices,
          unpriced: session.price === 'unknown',
          maxFailures,
          retries,
        },
        io,
      );
      session.spent = spent;
      return endSession({ runId, dir, store, manifest, session, plan, env, res, secrets, endpoints: endpointTallies?.() }, io);
    } finally {
      recorder?.close();
      store.close();
    }
  } finally {
    await env?.close?.();
    cache?.close();
    await backend.close?.();
  }
}

/**
 * What a run is before its model opens: its configuration (an auto shard resolved), plan and method,
 * with every check that needs no model done, so bad input leaves nothing half-written.
 */
function startRun(run: Settings | RunConfig, deps: RunDeps, io: RunIO): { cfg: RunConfig; plan: Plan; methodName: string; method: Method } {
  let cfg = runConfigOf(run);
  const plan = planEpisodes(cfg, deps);
  if (plan.shard && cfg.shard !== undefined && isAutoShard(cfg.shard)) {
    // The run records (and a resume or a bundle replays) the shard it ran, not "auto".
    io.log(`--shard ${cfg.shard}: shard ${formatShard(plan.shard)} (${resolveAutoShard(cfg.shard).source})`);
    cfg = withSettings(cfg, { shard: formatShard(plan.shard) });
  }
  const bench = plan.benchmark;
  applyResponseLimits(cfg.responseLimits);
  // Checked before the run folder is created: bad input must leave nothing half-written.
  checkResultsDir(cfg);
  const methodName = cfg.method ?? bench.defaultMethod;
  if (cfg.fromRuns !== undefined) {
    const derived = Object.keys(bench.derivedMethods ?? {});
    throw new UserError(
      `--from-runs: only a combination method${derived.length ? ` (${derived.join(', ')})` : ''} reads existing runs; --method ${methodName} runs its own episodes`,
    );
  }
  const options = plan.options;
  const method = bench.createMethod(methodName, options);
  for (const note of bench.startNotes?.({ method: methodName, split: plan.split, indices: plan.indices, options }) ?? []) io.log(note);
  return { cfg, plan, methodName, method };
}

/**
 * The run as its opened parts describe it: its statement (identity, run id, inputs), the model's prices
 * (an unpriced model refused under --max-cost) and its folder. A --resume whose settings name another
 * run is refused here, before anything is written.
 */
function nameRun(
  cfg: RunConfig,
  plan: Plan,
  methodName: string,
  method: Method,
  model: CompletionModel,
  env: EnvHandle | undefined,
  io: RunIO,
): { statement: RunStatement; prices: ModelPrices; dir: string } {
  const bench = plan.benchmark;
  const options = plan.options;
  const methodDesc = method.describe();
  const modelDesc = model.describe();
  const prices = pricesOfModel(model);
  if (io.budget && prices.status === 'unknown') throw unpricedBudget(model.model);
  const envDesc = env?.describe() ?? null;
  const runIdTag = bench.runIdTag?.(methodName, options);
  const { identity, runId } = runIdentity(cfg, plan, {
    methodName,
    methodDesc,
    runIdTag,
    model: { name: model.model, identity: identityOf(model) },
    environment: env ? identityOf(env) : undefined,
  });
  const { inputs, changed } = inputShas(bench.inputFiles(methodName, options));
  for (const f of changed)
    io.log(`warning: ${f} differs from the vendored file (data/manifest.json sha256); the run records the bytes it read`);
  const dir = runFolder(cfg, runId);
  if (cfg.resume !== undefined && path.basename(dir) !== runId) {
    checkResumeSettings(readManifest(dir).settings, cfg.settings, cfg.resume);
    assertSameRun(readManifest(dir), { identity, inputs, indices: plan.indices }, dir);
    throw new UserError(`--resume ${cfg.resume}: these settings name run ${runId}, not ${cfg.resume}`);
  }
  const statement: RunStatement = {
    runId,
    identity,
    inputs,
    changedInputs: changed,
    methodName,
    runIdTag,
    modelName: model.model,
    methodDesc,
    modelDesc,
    envDesc,
  };
  return { statement, prices, dir };
}
