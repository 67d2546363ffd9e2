// One run from resolved settings: plan the episodes, name the run, open (or resume) its folder, run
// what is left, summarise. The benchmark (items, method, environment, scorer) and the model come in
// through RunDeps, so this logic is tested with doubles and wired to the real modules in deps.ts; it
// never names a benchmark.
// A run never lies (README "Reliability"): bad input is refused before anything is written (results folder
// checked without writing, created one level at a time); a run says when it resumes over error
// episodes; the circuit breaker and the --max-cost budget stop it cleanly; the result lists the
// errors per cause so the CLI can print them and the command that retries them.
import path from 'node:path';
import fs from 'node:fs';
import type { CompletionModel } from '../llm/types.js';
import { cacheLayer } from '../llm/cache/layer.js';
import type { CacheStore } from '../llm/cache/store.js';
import type { Benchmark, EnvHandle } from '../benchmarks/types.js';
import { FatalRunError, UserError, errorMessage, errorCode } from '../errors.js';
import { benchmarkOptions, defaultBenchmarkName } from '../benchmarks/registry.js';
import { defaultResultsDir } from '../paths.js';
import { toDiskError } from '../util/durable.js';
import { executeEpisodes, Interrupt } from './runner.js';
import { RunStore, isRunFolder, manifestIfAny, readManifest, MANIFEST_FILE, SUMMARY_FILE } from '../runlog/store.js';
import { makeRunId } from './run-id.js';
import { applyShard, formatShard, parseShard, type Shard } from './shard.js';
import { isAutoShard, resolveAutoShard } from './shard-auto.js';
import { orderedRecords, summarizeRun, summaryCsv } from './summary.js';
import { Progress, type ProgressSink } from './progress.js';
import { IdentityMemo } from '../util/identity-memo.js';
import {
  assertNoSecrets,
  assertSameRun,
  closeSession,
  inputShas,
  newManifest,
  openSession,
  saveManifest,
  settleAbandonedSessions,
  recordableSettings,
} from './manifest.js';
import { CircuitBreaker, DEFAULT_MAX_CONSECUTIVE_FAILURES } from './breaker.js';
import { unpricedBudget, type Budget, type BudgetStop } from './budget.js';
import { pricesOfModel, type PriceInfo } from '../llm/pricing.js';
import type { Settings } from './experiment.js';
import { RunRecorder } from './run-recording.js';
import { limitLinesOf, manifestLimitsOf, TRUNCATE_DEVIATION } from './limit-outcomes.js';
import { SpendMeter, type Spend } from './meter.js';
import { refusePseudo } from '../util/safe-path.js';
import { applyResponseLimits } from './response-limits.js';
import { checkResumeSettings } from './input-checks.js';
import { usageUnknownCalls, type RunSummary, type EpisodeRecord } from '../runlog/schema.js';
import { JsonFields } from '../util/json-fields.js';
import { runConfigOf, withSettings, type RunConfig } from './config.js';

/** Callbacks the run passes to the model it creates. */
export interface ModelHooks {
  /** Before each backoff sleep of a model request (the progress line counts retries). */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number; endpoint: string }) => void;
}

/**
 * The run's model: the backend, and the cache store every episode's chain puts over it
 * (src/run/model-chain.ts; absent: calls go to the backend as they are, e.g. a test double or a bundle).
 */
export interface RunModel {
  backend: CompletionModel;
  cache?: CacheStore;
  /** The endpoints (base URLs) the backend calls: each session records them (absent: it calls none, e.g. a bundle). */
  endpoints?: readonly string[];
}

/**
 * What a library user's createModel returned, as a RunModel: a plain CompletionModel (the shape before
 * the cache became a layer of each episode's chain) is taken as the backend, uncached; anything else
 * that is not `{ backend }` is refused in one line.
 */
function runModelOf(opened: unknown): RunModel {
  const isModel = (m: unknown): m is CompletionModel =>
    typeof m === 'object' && m !== null && typeof (m as { complete?: unknown }).complete === 'function';
  if (isModel(opened)) return { backend: opened };
  if (typeof opened === 'object' && opened !== null && isModel((opened as { backend?: unknown }).backend)) return opened as RunModel;
  throw new UserError('deps.createModel: expected { backend: CompletionModel, cache?: CacheStore } (docs/library.md)');
}

/** The run's view of its model (name, description, identity, cache api): the cache layer over the backend. */
export function runModelView(m: RunModel): CompletionModel {
  return m.cache ? cacheLayer(m.cache)(m.backend) : m.backend;
}

export interface RunDeps {
  /** The benchmark by name (UserError for an unknown one). */
  getBenchmark(name: string): Benchmark;
  /** The run's model, from its resolved configuration (`run.model`): the backend and the cache store. */
  createModel(run: RunConfig, hooks?: ModelHooks): Promise<RunModel>;
  /** Secret values to keep out of every file we write (API keys from the environment). */
  secrets(settings: Settings): string[];
  /** --dry-run: the prices the run would pay, from the settings alone (optional). */
  prices?(run: RunConfig): PriceInfo;
}

export interface RunIO {
  /** Progress output (stderr in the CLI). */
  progress: ProgressSink;
  /** One-line notes (resume, recovered bytes...). */
  log(line: string): void;
  /** Aborted by SIGINT/SIGTERM (reason: an Interrupt naming the signal). */
  signal?: AbortSignal;
  /** --max-cost: one budget for this invocation (shared by the runs of an experiment file). */
  budget?: Budget;
  /** --max-consecutive-failures (default DEFAULT_MAX_CONSECUTIVE_FAILURES; 0: never stop). */
  maxConsecutiveFailures?: number;
  /** In an experiment file: this run is the k-th of n (the progress display says so). */
  position?: { k: number; n: number };
}

/** 'interrupted' also covers a stop at the --max-cost budget (stoppedBy says which). */
export type RunStatus = 'complete' | 'interrupted' | 'failed' | 'partial';

/** The error episodes of a run for one cause. */
export interface ErrorCause {
  /** 'llm', 'env' or 'internal'. */
  source: string;
  count: number;
  /** The message of the first one, in plan order. */
  first: string;
}

export interface RunResult {
  runId: string;
  dir: string;
  status: RunStatus;
  summary: RunSummary;
  fatal?: FatalRunError;
  /** Why an interrupted run stopped: 'SIGINT', 'SIGTERM' or 'max-cost'. */
  stoppedBy?: string;
  /** The budget's message when --max-cost stopped the run. */
  budgetStop?: BudgetStop;
  /** Error episodes of the whole run (all sessions) per cause, llm first. */
  errorCauses: ErrorCause[];
  /** A combination stopped in a base run: its later base runs and itself, not made ("hotpotqa cot-sc-react"). */
  notReached?: string[];
  /** Combinations: the base runs whose error episodes are the combination's (retry those). */
  retryRuns?: { runId: string; dir: string }[];
  /** Model limits the run's episodes reached, one "<run id>: ..." line each (limit-outcomes.ts). */
  limitLines?: string[];
  /** What this invocation paid for (src/run/meter.ts), and whether the model has a known price. */
  spent?: Spend;
  price?: 'known' | 'unknown' | 'free';
}

export function resultsDirOf(cfg: Pick<RunConfig, 'resultsDir'>): string {
  return cfg.resultsDir !== undefined ? path.resolve(cfg.resultsDir) : defaultResultsDir();
}

/** How messages name the results folder: the flag when it was given. */
function resultsDirName(cfg: Pick<RunConfig, 'resultsDir'>): string {
  return cfg.resultsDir !== undefined
    ? `--results-dir ${cfg.resultsDir}`
    : `the results folder ${resultsDirOf(cfg)} (choose another with --results-dir)`;
}

/**
 * Checks, without writing anything, that the results folder can hold run folders: it is a folder (or
 * can be created under the nearest existing folder), and that folder is writable. UserError otherwise.
 */
export function checkResultsDir(cfg: Pick<RunConfig, 'resultsDir'>): void {
  const dir = resultsDirOf(cfg);
  const name = resultsDirName(cfg);
  refusePseudo(dir, name);
  for (let p = dir; ;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(p);
    } catch (e) {
      const code = errorCode(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UserError(`${name}: cannot use ${p} (${code ?? errorMessage(e)})`);
    }
    if (st) {
      if (!st.isDirectory())
        throw new UserError(
          `${name}: ${p === dir ? 'this is a file' : `${p} is a file`}, not a folder; choose a folder for the run folders`,
        );
      try {
        fs.accessSync(p, fs.constants.W_OK | fs.constants.X_OK);
      } catch (e) {
        const d = toDiskError(e, p, 'writing in this folder');
        throw new UserError(`${name}: cannot write there (${d instanceof Error ? d.message : errorMessage(e)})`);
      }
      return;
    }
    const up = path.dirname(p);
    if (up === p) return;
    p = up;
  }
}

/**
 * Creates the results folder one level at a time. (fs.mkdirSync with recursive: true never returns
 * for a path such as /proc/1/x, where mkdir answers ENOENT under an existing folder.)
 */
export function ensureResultsDir(cfg: Pick<RunConfig, 'resultsDir'>): string {
  const dir = resultsDirOf(cfg);
  const missing: string[] = [];
  for (let p = dir; !fs.existsSync(p); p = path.dirname(p)) {
    missing.unshift(p);
    if (path.dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      fs.mkdirSync(p);
    } catch (e) {
      const code = errorCode(e);
      if (code === 'EEXIST' && fs.statSync(p).isDirectory()) continue;
      const d = toDiskError(e, p, 'creating the folder');
      throw new UserError(
        `${resultsDirName(cfg)}: ${d instanceof Error && d !== e ? d.message : `cannot create ${p} (${code ?? errorMessage(e)})`}`,
      );
    }
  }
  return dir;
}

export interface Plan {
  benchmark: Benchmark;
  /** The benchmark's options for this run (Benchmark.parseOptions), parsed once. */
  options: unknown;
  split: string;
  splitDescription: string;
  /** Indices before sharding (the whole selection). */
  selection: number[];
  shard: Shard | null;
  /** Indices this run covers. */
  indices: number[];
}

/** The benchmark a run names (--task; default: the first registered) and its options, parsed once. */
export function runBenchmark(
  cfg: Pick<RunConfig, 'task' | 'settings'>,
  deps: Pick<RunDeps, 'getBenchmark'>,
): { benchmark: Benchmark; options: unknown } {
  const bench = deps.getBenchmark(cfg.task ?? defaultBenchmarkName());
  const options = benchmarkOptions(bench, cfg.settings);
  return { benchmark: bench.forSettings?.(options) ?? bench, options };
}

/** Which item indices a run covers: --indices or a split, then --limit, then --shard. */
export function planEpisodes(cfg: RunConfig, deps: Pick<RunDeps, 'getBenchmark'>): Plan {
  const { benchmark, options } = runBenchmark(cfg, deps);
  const taskName = benchmark.name;
  const limit = cfg.limit;
  let split: string;
  let splitDescription: string;
  let selection: number[];
  if (cfg.indices !== undefined) {
    selection = cfg.indices;
    const size = benchmark.size();
    for (const i of selection) {
      if (i >= size) throw new UserError(`--indices: ${i} is out of range for ${taskName} (0..${size - 1})`);
    }
    if (limit !== undefined) selection = selection.slice(0, limit);
    split = 'indices';
    splitDescription = `dataset indices given with --indices (${selection.length})`;
  } else {
    split = cfg.split ?? benchmark.defaultSplit;
    const sp = benchmark.split(split, limit !== undefined ? { limit } : {});
    selection = sp.indices;
    splitDescription = sp.description;
  }
  // --shard auto / auto/N: the job array's task (shard-auto.ts).
  const shardText = cfg.shard !== undefined && isAutoShard(cfg.shard) ? resolveAutoShard(cfg.shard).spec : cfg.shard;
  const shard = shardText !== undefined ? parseShard(shardText) : null;
  const indices = applyShard(selection, shard);
  // Every item the run covers exists for the benchmark as these options see it (ALFWorld --games FILE
  // lists its own games): checked before anything is written.
  for (const i of indices) benchmark.item(i);
  return { benchmark, options, split, splitDescription, selection, shard, indices };
}

/**
 * The part of a model's or environment's description that is the run's identity, as the backend
 * declares it (identity() beside describe(): not where it is served, its cache, retries, limits or
 * prices, nor what changes between server restarts). Such a run still resumes on another server.
 */
export function identityOf(part: { describe(): Record<string, unknown>; identity?(): Record<string, unknown> }): Record<string, unknown> {
  return part.identity?.() ?? part.describe();
}

/** Where --resume <id> points; it must hold a run. */
export function resumeDir(cfg: Pick<RunConfig, 'resume' | 'resultsDir'>): string {
  const id = String(cfg.resume);
  if (!id || id.includes('/') || id.includes('\\') || id === '.' || id === '..') {
    throw new UserError(`--resume: expected a run id (a folder name under the results folder), got "${id}"`);
  }
  const dir = path.join(resultsDirOf(cfg), id);
  if (!isRunFolder(dir)) throw new UserError(`--resume ${id}: no run at ${dir} (no ${MANIFEST_FILE})`);
  return dir;
}

/**
 * The folder a run writes and resumes: --resume's (which must hold a run), else <results folder>/<run id>,
 * so re-running a command resumes its run (README "Reliability"). The dry run plans the same folder.
 */
export function runFolder(cfg: Pick<RunConfig, 'resume' | 'resultsDir'>, runId: string): string {
  return cfg.resume !== undefined ? resumeDir(cfg) : path.join(resultsDirOf(cfg), runId);
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

/** One run: its settings are parsed here unless the caller handed over a parsed RunConfig. */
export async function executeRun(run: Settings | RunConfig, deps: RunDeps, io: RunIO): Promise<RunResult> {
  let cfg = runConfigOf(run);
  const plan = planEpisodes(cfg, deps);
  if (plan.shard && cfg.shard !== undefined && isAutoShard(cfg.shard)) {
    // The run records (and a resume or a bundle replays) the shard it ran, not "auto".
    io.log(`--shard ${cfg.shard}: shard ${formatShard(plan.shard)} (${resolveAutoShard(cfg.shard).source})`);
    cfg = withSettings(cfg, { shard: formatShard(plan.shard) });
  }
  const settings = cfg.settings;
  const bench = plan.benchmark;
  applyResponseLimits(cfg.responseLimits);
  // Checked before the run folder is created: bad input must leave nothing half-written.
  const concurrency = cfg.concurrency;
  checkResultsDir(cfg);
  const taskName = bench.name;
  const methodName = cfg.method ?? bench.defaultMethod;
  if (cfg.fromRuns !== undefined) {
    const derived = Object.keys(bench.derivedMethods ?? {});
    throw new UserError(
      `--from-runs: only a combination method${derived.length ? ` (${derived.join(', ')})` : ''} reads existing runs; --method ${methodName} runs its own episodes`,
    );
  }
  const options = plan.options;
  const method = bench.createMethod(methodName, options);
  const contextOverflow = cfg.contextOverflow;
  for (const note of bench.startNotes?.({ method: methodName, split: plan.split, indices: plan.indices, options }) ?? []) io.log(note);
  // Retries happen from the first request on (the model list, the environment check): counted from here.
  let retries = 0;
  let progress: Progress | undefined;
  const onRetry = () => {
    retries++;
    progress?.retry();
  };
  const { backend, cache, endpoints } = runModelOf(await deps.createModel(cfg, { onRetry }));
  const model = runModelView({ backend, cache });
  let env: EnvHandle | undefined;
  try {
    if (method.needsEnv) {
      env = await bench.createEnv(options, { onRetry });
      await env.check?.(io.signal);
    }
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
      checkResumeSettings(readManifest(dir).settings, settings, cfg.resume);
      assertSameRun(readManifest(dir), { identity, inputs, indices: plan.indices }, dir);
      throw new UserError(`--resume ${cfg.resume}: these settings name run ${runId}, not ${cfg.resume}`);
    }

    ensureResultsDir(cfg);
    const store = RunStore.open(dir);
    let recorder: RunRecorder | undefined;
    try {
      const secrets = deps.secrets(settings);
      const now = new Date().toISOString();
      let manifest = manifestIfAny(dir);
      if (manifest) {
        assertSameRun(manifest, { identity, inputs, indices: plan.indices }, dir);
        settleAbandonedSessions(dir, manifest.sessions);
        io.log(`resuming ${runId}: ${countDone(store, plan.indices)} of ${plan.indices.length} episodes already recorded`);
        const nErrors = plan.indices.filter((i) => store.records.get(i)?.error).length;
        if (nErrors > 0) {
          io.log(
            cfg.retryErrors
              ? `re-running the ${nErrors} episode${nErrors === 1 ? '' : 's'} of this run recorded as errors (--retry-errors)`
              : `${nErrors} episode${nErrors === 1 ? ' of this run is' : 's of this run are'} recorded as errors; --retry-errors re-runs them`,
          );
        }
      } else {
        manifest = newManifest(
          {
            runId,
            kind: 'run',
            task: taskName,
            metrics: bench.metrics,
            method: methodName,
            split: plan.split,
            shard: plan.shard ? formatShard(plan.shard) : null,
            model: model.model,
            indices: plan.indices,
            ...(plan.shard ? { selection: plan.selection } : {}),
            runIdTag,
            identity,
            settings: recordableSettings(settings),
            fidelity: {
              ...fidelityOf(methodDesc, modelDesc, envDesc, plan, bench.fidelity?.(options)),
              ...(contextOverflow === 'truncate' ? { contextOverflow: { mode: contextOverflow, deviation: TRUNCATE_DEVIATION } } : {}),
            },
            inputs,
            changedInputs: changed,
            modelDescription: modelDesc,
            environment: envDesc,
            split_description: plan.splitDescription,
            sessions: [],
          },
          now,
        );
      }
      if (store.recoveredBytes > 0)
        io.log(`${runId}: dropped a partial last episode line (${store.recoveredBytes} bytes) left by an interrupted run`);
      // --max-consecutive-failures is a flag of the invocation; a resume without it keeps the last one given.
      const maxFailures =
        io.maxConsecutiveFailures ??
        [...manifest.sessions].reverse().find((x) => x.maxConsecutiveFailures !== undefined)?.maxConsecutiveFailures;
      const session = openSession({
        startedAt: now,
        linesAtStart: store.linesAtOpen,
        price: prices.status,
        retryErrors: cfg.retryErrors,
        maxConsecutiveFailures: maxFailures,
        endpoints,
      });
      manifest.sessions.push(session);
      saveManifest(dir, manifest, secrets);
      // The run is under way: the facts learned while planning it (where the dataset's entries are) are kept.
      IdentityMemo.saveDeferred();
      recorder = RunRecorder.open(dir, { model, settings, secrets }); // recording.jsonl: what `bundle` packs
      // The recording proves what this session paid for, call by call, even after a kill -9.
      session.recording = recorder.session;
      saveManifest(dir, manifest, secrets);

      const todoIdx = plan.indices.filter((i) => {
        const r = store.records.get(i);
        return !r || (cfg.retryErrors && r.error !== null);
      });
      const items = todoIdx.map((i) => bench.item(i));
      const primary = bench.metrics[0];
      // Records about to be re-run (--retry-errors) are not yet "done".
      const kept = orderedRecords(store.records, plan.indices).filter((r) => !(cfg.retryErrors && r.error !== null));
      const short = `${taskName} ${methodName}${runIdTag ? ` ${runIdTag}` : ''}${plan.shard ? ` ${formatShard(plan.shard)}` : ''}`;
      progress = await Progress.create(
        { id: runId, short, position: io.position },
        initialProgress(kept, plan.indices.length, primary, retries),
        io.progress,
        io.signal,
      );
      // What this session pays for: counted by every episode's meter, added to the invocation's (the budget's).
      const spend = new SpendMeter(io.budget?.meter, session.price === 'unknown');
      const res = await executeEpisodes({
        store,
        items,
        method,
        recorder,
        meter: spend,
        model: backend,
        ...(cache ? { cache } : {}),
        benchmark: bench,
        makeEnv: env ? (item) => env!.makeEnv(item) : undefined,
        concurrency,
        signal: io.signal,
        breaker: new CircuitBreaker(maxFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES),
        ...(io.budget ? { budget: { budget: io.budget, prices } } : {}),
        onRecord: (rec) => progress!.record(rec, primary.key),
        contextOverflow,
        onInternalError: (item, e) =>
          progress!.note(() => io.log(`episode ${item.index} failed (recorded as an error): ${errorMessage(e)}`)),
      });
      progress.finish();
      session.spent = { ...spend.spent };
      const summary = summarizeRun(manifest, store.records);
      const stoppedBy = res.budget
        ? 'max-cost'
        : res.interrupted
          ? io.signal?.reason instanceof Interrupt
            ? io.signal.reason.signal
            : 'SIGINT'
          : undefined;
      const status: RunStatus = res.fatal
        ? 'failed'
        : res.interrupted || res.budget
          ? 'interrupted'
          : summary.n_done === summary.n_planned
            ? 'complete'
            : 'partial';
      const csv = summaryCsv([summary]);
      assertNoSecrets(csv, secrets, SUMMARY_FILE);
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
      const ordered = orderedRecords(store.records, plan.indices);
      // Model limits reached (context window, max_tokens, silent truncation): counted, never hidden.
      manifest.limits = manifestLimitsOf(ordered);
      saveManifest(dir, manifest, secrets);
      const notes = bench.summaryNotes?.({ dir, manifest, records: ordered, summary }) ?? [];
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
        ...(res.fatal ? { fatal: res.fatal } : {}),
        ...(stoppedBy ? { stoppedBy } : {}),
        ...(res.budget ? { budgetStop: res.budget } : {}),
      };
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

/** Error records per cause (llm, env, internal, then others), each with its first message in plan order. */
export function errorCauses(records: readonly Pick<EpisodeRecord, 'error'>[]): ErrorCause[] {
  const by = new Map<string, ErrorCause>();
  for (const r of records) {
    if (!r.error) continue;
    const c = by.get(r.error.source);
    if (c) c.count++;
    else by.set(r.error.source, { source: r.error.source, count: 1, first: r.error.message });
  }
  const order = ['llm', 'env', 'internal'];
  const rank = (s: string) => (order.includes(s) ? order.indexOf(s) : order.length);
  return [...by.values()].sort((a, b) => rank(a.source) - rank(b.source) || a.source.localeCompare(b.source));
}

function initialProgress(kept: EpisodeRecord[], total: number, primary: { key: string; label: string }, retries: number) {
  const errorsBySource: Record<string, number> = {};
  for (const r of kept) if (r.error) errorsBySource[r.error.source] = (errorsBySource[r.error.source] ?? 0) + 1;
  const scored = kept.filter((r) => !r.error);
  return {
    done: kept.length,
    total,
    scored: scored.length,
    metricLabel: primary.label,
    metricValues: scored.map((r) => r.metrics?.[primary.key] ?? 0),
    errors: kept.length - scored.length,
    errorsBySource,
    retries,
    tokens: kept.reduce((a, r) => a + r.usage.total_tokens, 0),
    cost: kept.reduce((a, r) => a + r.cost, 0),
    usageUnknownCalls: kept.reduce((a, r) => a + usageUnknownCalls(r), 0),
  };
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
