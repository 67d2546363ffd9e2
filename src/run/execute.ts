// One run from resolved settings: plan the episodes, name the run, open (or resume) its folder, run
// what is left, summarise. The benchmark (items, method, environment, scorer) and the model come in
// through RunDeps, so this logic is tested with doubles and wired to the real modules in deps.ts; it
// never names a benchmark.
import path from 'node:path';
import fs from 'node:fs';
import type { CompletionModel } from '../llm/types.js';
import type { Benchmark, EnvHandle } from '../benchmarks/types.js';
import { FatalRunError, UserError } from '../errors.js';
import { defaultBenchmarkName } from '../benchmarks/registry.js';
import { defaultResultsDir } from '../paths.js';
import { executeEpisodes } from './runner.js';
import { RunStore, readManifest, MANIFEST_FILE, RUN_LOG_SCHEMA } from './run-log.js';
import { makeRunId } from './run-id.js';
import { applyShard, formatShard, parseIndices, parseShard, type Shard } from './shard.js';
import { orderedRecords, summarize, summaryCsv, type RunSummary } from './summary.js';
import { Progress, type ProgressSink } from './progress.js';
import { assertNoSecrets, assertSameRun, inputShas, softwareInfo, type RunManifest, type SessionInfo } from './manifest.js';
import { OPERATIONAL, SESSION_ONLY } from './options.js';
import type { Settings } from './experiment.js';

export interface RunDeps {
  /** The benchmark by name (UserError for an unknown one). */
  getBenchmark(name: string): Benchmark;
  createModel(settings: Settings): Promise<CompletionModel>;
  /** Secret values to keep out of every file we write (API keys from the environment). */
  secrets(settings: Settings): string[];
}

export interface RunIO {
  /** Progress output (stderr in the CLI). */
  progress: ProgressSink;
  /** One-line notes (resume, recovered bytes...). */
  log(line: string): void;
  signal?: AbortSignal;
}

export type RunStatus = 'complete' | 'interrupted' | 'failed' | 'partial';

export interface RunResult {
  runId: string;
  dir: string;
  status: RunStatus;
  summary: RunSummary;
  fatal?: FatalRunError;
}

export function resultsDirOf(settings: Settings): string {
  return typeof settings.resultsDir === 'string' ? path.resolve(settings.resultsDir) : defaultResultsDir();
}

export interface Plan {
  benchmark: Benchmark;
  split: string;
  splitDescription: string;
  /** Indices before sharding (the whole selection). */
  selection: number[];
  shard: Shard | null;
  /** Indices this run covers. */
  indices: number[];
}

/** The benchmark a run's settings name (--task; default: the first registered). */
export function benchmarkOf(settings: Settings, deps: Pick<RunDeps, 'getBenchmark'>): Benchmark {
  return deps.getBenchmark(String(settings.task ?? defaultBenchmarkName()));
}

/** Which item indices a run covers: --indices or a split, then --limit, then --shard. */
export function planEpisodes(settings: Settings, deps: Pick<RunDeps, 'getBenchmark'>): Plan {
  const benchmark = benchmarkOf(settings, deps);
  const taskName = benchmark.name;
  const limit = settings.limit as number | undefined;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UserError(`--limit: expected a positive integer, got ${limit}`);
  let split: string;
  let splitDescription: string;
  let selection: number[];
  if (settings.indices !== undefined) {
    selection = parseIndices(settings.indices as string | number[]);
    const size = benchmark.size();
    for (const i of selection) {
      if (i >= size) throw new UserError(`--indices: ${i} is out of range for ${taskName} (0..${size - 1})`);
    }
    if (limit !== undefined) selection = selection.slice(0, limit);
    split = 'indices';
    splitDescription = `dataset indices given with --indices (${selection.length})`;
  } else {
    split = (settings.split as string | undefined) ?? benchmark.defaultSplit;
    const sp = benchmark.split(split, limit !== undefined ? { limit } : {});
    selection = sp.indices;
    splitDescription = sp.description;
  }
  const shard = settings.shard !== undefined ? parseShard(String(settings.shard)) : null;
  const indices = applyShard(selection, shard);
  return { benchmark, split, splitDescription, selection, shard, indices };
}

/** Model description fields that do not change what the model computes (limits, cache, retries). */
const OPERATIONAL_MODEL_KEY = /cache|rpm|tpm|rate|retr|timeout|concurren|limit|price|pricing|cost|balanc|stats|endpoint|url|apikey|path|loaded/i;

export function filterIdentity(desc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(desc)) if (!OPERATIONAL_MODEL_KEY.test(k)) out[k] = v;
  return out;
}

/** Settings without session-only and operational flags (what is worth recording as "the run's settings"). */
export function recordableSettings(settings: Settings): Settings {
  const out: Settings = {};
  for (const [k, v] of Object.entries(settings)) if (!SESSION_ONLY.has(k) && v !== undefined) out[k] = v;
  return out;
}

export function manifestIfAny(dir: string): RunManifest | null {
  return fs.existsSync(path.join(dir, MANIFEST_FILE)) ? readManifest(dir) : null;
}

/** Where --resume <id> points; it must hold a run. */
export function resumeDir(settings: Settings): string {
  const id = String(settings.resume);
  if (!id || id.includes('/') || id.includes('\\') || id === '.' || id === '..') {
    throw new UserError(`--resume: expected a run id (a folder name under the results folder), got "${id}"`);
  }
  const dir = path.join(resultsDirOf(settings), id);
  if (!fs.existsSync(path.join(dir, MANIFEST_FILE))) throw new UserError(`--resume ${id}: no run at ${dir} (no manifest.json)`);
  return dir;
}

export async function executeRun(settings: Settings, deps: RunDeps, io: RunIO): Promise<RunResult> {
  const plan = planEpisodes(settings, deps);
  const bench = plan.benchmark;
  // Checked before the run folder is created: bad input must leave nothing half-written.
  const concurrency = Number(settings.concurrency ?? 8);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UserError(`--concurrency: expected a positive integer, got ${settings.concurrency}`);
  const taskName = bench.name;
  const methodName = String(settings.method ?? bench.defaultMethod);
  const method = bench.createMethod(methodName, settings);
  const model = await deps.createModel(settings);
  let env: EnvHandle | undefined;
  try {
    if (method.needsEnv) {
      env = await bench.createEnv(settings);
      await env.check?.(io.signal);
    }
    const methodDesc = method.describe();
    const modelDesc = model.describe();
    const envDesc = env?.describe() ?? null;
    const identity: Record<string, unknown> = {
      task: taskName,
      method: methodName,
      split: plan.split,
      selection: settings.indices !== undefined ? plan.selection : undefined,
      limit: settings.limit,
      shard: plan.shard ? formatShard(plan.shard) : undefined,
      model: filterIdentity(modelDesc),
      methodOptions: methodDesc,
      environment: envDesc ? filterIdentity(envDesc) : undefined,
    };
    const runId = makeRunId({ task: taskName, method: methodName, split: plan.split, model: model.model, shard: plan.shard }, identity);
    const { inputs, changed } = inputShas(bench.inputFiles(methodName, settings));
    for (const f of changed) io.log(`warning: ${f} differs from the vendored file (data/manifest.json sha256); the run records the bytes it read`);
    let dir = path.join(resultsDirOf(settings), runId);
    if (settings.resume !== undefined) {
      const rdir = resumeDir(settings);
      if (path.basename(rdir) !== runId) {
        assertSameRun(readManifest(rdir), { identity, inputs, indices: plan.indices }, rdir);
        throw new UserError(`--resume ${settings.resume}: these settings name run ${runId}, not ${settings.resume}`);
      }
      dir = rdir;
    }

    const store = RunStore.open(dir);
    try {
      const secrets = deps.secrets(settings);
      const now = new Date().toISOString();
      let manifest = manifestIfAny(dir);
      if (manifest) {
        assertSameRun(manifest, { identity, inputs, indices: plan.indices }, dir);
        io.log(`resuming ${runId}: ${countDone(store, plan.indices)} of ${plan.indices.length} episodes already recorded`);
      } else {
        manifest = {
          schema: RUN_LOG_SCHEMA,
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
          identity,
          settings: recordableSettings(settings),
          fidelity: fidelityOf(methodDesc, modelDesc, envDesc, plan, bench.fidelity?.(settings)),
          inputs,
          ...(changed.length ? { changedInputs: changed } : {}),
          modelDescription: modelDesc,
          environment: envDesc,
          split_description: plan.splitDescription,
          software: softwareInfo(),
          startedAt: now,
          sessions: [],
        };
      }
      if (store.recoveredBytes > 0) io.log(`${runId}: dropped a partial last episode line (${store.recoveredBytes} bytes) left by an interrupted run`);
      const session: SessionInfo = { startedAt: now, status: 'running', ...(settings.retryErrors ? { retryErrors: true } : {}) };
      manifest.sessions.push(session);
      writeManifest(store, manifest, secrets);

      const todoIdx = plan.indices.filter((i) => {
        const r = store.records.get(i);
        return !r || (settings.retryErrors === true && r.error !== null);
      });
      const items = todoIdx.map((i) => bench.item(i));
      const metricKeys = bench.metrics.map((m) => m.key);
      const primary = bench.metrics[0];
      const meta = { runId, task: taskName, method: methodName, split: plan.split, model: model.model, shard: manifest.shard };
      const initial = summarize(meta, withoutRetried(store, todoIdx), plan.indices, metricKeys);
      const progress = new Progress(runId, {
        done: initial.n_done,
        total: plan.indices.length,
        scored: initial.n_scored,
        metricLabel: primary.label,
        metricSum: ((initial.metrics[primary.key] ?? 0) * initial.n_scored) / 100,
        errors: initial.n_errors,
        tokens: initial.total_tokens,
        cost: initial.cost_usd,
      }, io.progress);
      const res = await executeEpisodes({
        store,
        items,
        method,
        model,
        benchmark: bench,
        makeEnv: env ? (item) => env!.makeEnv(item) : undefined,
        concurrency,
        signal: io.signal,
        onRecord: (rec) => {
          const s = progress.state;
          s.done++;
          if (rec.error) s.errors++;
          else {
            s.scored++;
            s.metricSum += rec.metrics[primary.key] ?? 0;
          }
          s.tokens += rec.usage.total_tokens;
          s.cost += rec.cost;
          progress.tick();
        },
        onInternalError: (item, e) => io.log(`episode ${item.index} failed (recorded as an error): ${(e as Error)?.message ?? String(e)}`),
      });
      progress.finish();
      const summary = summarize(meta, store.records, plan.indices, metricKeys);
      const status: RunStatus = res.fatal ? 'failed' : res.interrupted ? 'interrupted' : summary.n_done === summary.n_planned ? 'complete' : 'partial';
      const csv = summaryCsv([summary]);
      assertNoSecrets(csv, secrets, 'summary.csv');
      store.writeSummary(csv);
      Object.assign(session, { endedAt: new Date().toISOString(), status, written: res.written });
      writeManifest(store, manifest, secrets);
      const notes = bench.summaryNotes?.({ dir, manifest, records: orderedRecords(store.records, plan.indices), summary }) ?? [];
      for (const n of notes) io.log(n);
      return { runId, dir, status, summary, ...(res.fatal ? { fatal: res.fatal } : {}) };
    } finally {
      store.close();
    }
  } finally {
    await env?.close?.();
    await model.close?.();
  }
}

function countDone(store: RunStore, indices: number[]): number {
  return indices.filter((i) => store.records.has(i)).length;
}

/** For the progress start: records that are about to be re-run are not yet "done". */
function withoutRetried(store: RunStore, todo: number[]) {
  const m = new Map(store.records);
  for (const i of todo) m.delete(i);
  return m;
}

function writeManifest(store: RunStore, manifest: RunManifest, secrets: string[]): void {
  const text = JSON.stringify(manifest, null, 2);
  assertNoSecrets(text, secrets, 'manifest.json');
  store.writeManifest(manifest);
}

/** The fidelity switches in one place: method options, split, API mode, environment, benchmark's own. */
function fidelityOf(
  methodDesc: Record<string, unknown>,
  modelDesc: Record<string, unknown>,
  envDesc: Record<string, unknown> | null,
  plan: Plan,
  benchmarkFidelity: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const api = modelDesc.api ?? modelDesc.apiMode ?? modelDesc.mode;
  return {
    method: methodDesc,
    split: { name: plan.split, description: plan.splitDescription },
    api: api ?? null,
    modelDeviations: modelDesc.deviations ?? [],
    // The environment's backend and its deviations (null for methods without an environment).
    environment: envDesc,
    ...(benchmarkFidelity ? { benchmark: benchmarkFidelity } : {}),
  };
}

export { OPERATIONAL };
