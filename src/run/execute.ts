// One run from resolved settings: plan the episodes, name the run, open (or resume) its folder, run
// what is left, summarise. Dependencies on the model, task, method and environment modules come in
// through RunDeps, so this logic is tested with doubles and wired to the real modules in deps.ts.
import path from 'node:path';
import fs from 'node:fs';
import type { CompletionModel } from '../llm/types.js';
import type { Env } from '../envs/types.js';
import type { Method, MethodName } from '../methods/types.js';
import type { Example, Task, TaskName } from '../tasks/types.js';
import { FatalRunError, UserError } from '../errors.js';
import { defaultResultsDir } from '../paths.js';
import { executeEpisodes } from './runner.js';
import { RunStore, readJsonFile, MANIFEST_FILE } from './store.js';
import { makeRunId } from './run-id.js';
import { applyShard, formatShard, parseIndices, parseShard, type Shard } from './shard.js';
import { summarize, summaryCsv, type RunSummary } from './summary.js';
import { Progress, type ProgressSink } from './progress.js';
import { assertNoSecrets, assertSameRun, inputShas, softwareInfo, type RunManifest, type SessionInfo } from './manifest.js';
import { OPERATIONAL, SESSION_ONLY } from './options.js';
import type { Settings } from './experiment.js';

export interface EnvFactory {
  makeEnv(example: Example): Env;
  /** Secret-free backend description (kind, snapshot sha256, base URL...). */
  describe(): Record<string, unknown>;
  close?(): Promise<void>;
}

export interface RunDeps {
  getTask(name: TaskName): Task;
  createMethod(name: MethodName, settings: Settings, task: Task): Method;
  createModel(settings: Settings): Promise<CompletionModel>;
  createEnvFactory(settings: Settings, task: Task): Promise<EnvFactory>;
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

export const DEFAULT_SPLIT: Record<TaskName, string> = { hotpotqa: 'offline500', fever: 'react500' };

export function resultsDirOf(settings: Settings): string {
  return typeof settings.resultsDir === 'string' ? path.resolve(settings.resultsDir) : defaultResultsDir();
}

export interface Plan {
  task: Task;
  split: string;
  splitDescription: string;
  /** Indices before sharding (the whole selection). */
  selection: number[];
  shard: Shard | null;
  /** Indices this run covers. */
  indices: number[];
}

/** Which dataset indices a run covers: --indices or a split, then --limit, then --shard. */
export function planEpisodes(settings: Settings, deps: Pick<RunDeps, 'getTask'>): Plan {
  const taskName = (settings.task ?? 'hotpotqa') as TaskName;
  const task = deps.getTask(taskName);
  const limit = settings.limit as number | undefined;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UserError(`--limit: expected a positive integer, got ${limit}`);
  let split: string;
  let splitDescription: string;
  let selection: number[];
  if (settings.indices !== undefined) {
    selection = parseIndices(settings.indices as string | number[]);
    for (const i of selection) {
      if (i >= task.size) throw new UserError(`--indices: ${i} is out of range for ${taskName} (0..${task.size - 1})`);
    }
    if (limit !== undefined) selection = selection.slice(0, limit);
    split = 'indices';
    splitDescription = `dataset indices given with --indices (${selection.length})`;
  } else {
    split = (settings.split as string | undefined) ?? DEFAULT_SPLIT[taskName];
    const sp = task.split(split, limit !== undefined ? { limit } : {});
    selection = sp.indices;
    splitDescription = sp.description;
  }
  const shard = settings.shard !== undefined ? parseShard(String(settings.shard)) : null;
  const indices = applyShard(selection, shard);
  return { task, split, splitDescription, selection, shard, indices };
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

function loadManifest(dir: string): RunManifest {
  return readJsonFile<RunManifest>(path.join(dir, MANIFEST_FILE));
}

export function manifestIfAny(dir: string): RunManifest | null {
  return fs.existsSync(path.join(dir, MANIFEST_FILE)) ? loadManifest(dir) : null;
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
  // Checked before the run folder is created: bad input must leave nothing half-written.
  const concurrency = Number(settings.concurrency ?? 8);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UserError(`--concurrency: expected a positive integer, got ${settings.concurrency}`);
  const taskName = plan.task.name;
  const methodName = (settings.method ?? 'react') as MethodName;
  const method = deps.createMethod(methodName, settings, plan.task);
  const model = await deps.createModel(settings);
  let envFactory: EnvFactory | undefined;
  try {
    if (method.needsEnv) envFactory = await deps.createEnvFactory(settings, plan.task);
    const methodDesc = method.describe();
    const modelDesc = model.describe();
    const wikiDesc = envFactory?.describe() ?? null;
    const identity: Record<string, unknown> = {
      task: taskName,
      method: methodName,
      split: plan.split,
      selection: settings.indices !== undefined ? plan.selection : undefined,
      limit: settings.limit,
      shard: plan.shard ? formatShard(plan.shard) : undefined,
      model: filterIdentity(modelDesc),
      methodOptions: methodDesc,
      wiki: wikiDesc ? filterIdentity(wikiDesc) : undefined,
    };
    const runId = makeRunId({ task: taskName, method: methodName, split: plan.split, model: model.model, shard: plan.shard }, identity);
    const wikiSnapshot = Boolean(wikiDesc && String(wikiDesc.kind ?? '').includes('snapshot'));
    const inputs = inputShas(taskName, { wikiSnapshot, extraPrompts: methodName === 'react' ? [] : ['prompts/framings.json'] });
    let dir = path.join(resultsDirOf(settings), runId);
    if (settings.resume !== undefined) {
      const rdir = resumeDir(settings);
      if (path.basename(rdir) !== runId) {
        assertSameRun(loadManifest(rdir), { identity, inputs, indices: plan.indices }, rdir);
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
          schema: 1,
          runId,
          kind: 'run',
          task: taskName,
          method: methodName,
          split: plan.split,
          shard: plan.shard ? formatShard(plan.shard) : null,
          model: model.model,
          indices: plan.indices,
          ...(plan.shard ? { selection: plan.selection } : {}),
          identity,
          settings: recordableSettings(settings),
          fidelity: fidelityOf(methodDesc, modelDesc, wikiDesc, plan),
          inputs,
          modelDescription: modelDesc,
          wiki: wikiDesc,
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
      const examples = todoIdx.map((i) => plan.task.example(i));
      const meta = { runId, task: taskName, method: methodName, split: plan.split, model: model.model, shard: manifest.shard };
      const initial = summarize(meta, withoutRetried(store, todoIdx), plan.indices);
      const progress = new Progress(runId, {
        done: initial.n_done,
        total: plan.indices.length,
        scored: initial.n_scored,
        emSum: ((initial.em ?? 0) * initial.n_scored) / 100,
        errors: initial.n_errors,
        tokens: initial.total_tokens,
        cost: initial.cost_usd,
      }, io.progress);
      const res = await executeEpisodes({
        store,
        examples,
        method,
        model,
        task: plan.task,
        makeEnv: envFactory ? (ex) => envFactory!.makeEnv(ex) : undefined,
        concurrency,
        signal: io.signal,
        onRecord: (rec) => {
          const s = progress.state;
          s.done++;
          if (rec.error) s.errors++;
          else {
            s.scored++;
            s.emSum += rec.em;
          }
          s.tokens += rec.usage.total_tokens;
          s.cost += rec.cost;
          progress.tick();
        },
        onInternalError: (ex, e) => io.log(`episode ${ex.index} failed (recorded as an error): ${(e as Error)?.message ?? String(e)}`),
      });
      progress.finish();
      const summary = summarize(meta, store.records, plan.indices);
      const status: RunStatus = res.fatal ? 'failed' : res.interrupted ? 'interrupted' : summary.n_done === summary.n_planned ? 'complete' : 'partial';
      const csv = summaryCsv([summary]);
      assertNoSecrets(csv, secrets, 'summary.csv');
      store.writeSummary(csv);
      Object.assign(session, { endedAt: new Date().toISOString(), status, written: res.written });
      writeManifest(store, manifest, secrets);
      return { runId, dir, status, summary, ...(res.fatal ? { fatal: res.fatal } : {}) };
    } finally {
      store.close();
    }
  } finally {
    await envFactory?.close?.();
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

/** The fidelity switches in one place (brief §2): method options, FEVER sample, API mode, Wikipedia env. */
function fidelityOf(
  methodDesc: Record<string, unknown>,
  modelDesc: Record<string, unknown>,
  wikiDesc: Record<string, unknown> | null,
  plan: Plan,
): Record<string, unknown> {
  const api = modelDesc.api ?? modelDesc.apiMode ?? modelDesc.mode;
  return {
    method: methodDesc,
    split: { name: plan.split, description: plan.splitDescription },
    api: api ?? null,
    modelDeviations: modelDesc.deviations ?? [],
    // §6: the Wikipedia backend and WikiEnv's deviations (null for methods without an environment).
    // query: the snapshot's search term (--wiki-query); null for backends that send the notebook's URL.
    wiki: wikiDesc ? { backend: wikiDesc.kind ?? null, query: wikiDesc.query ?? null, env: wikiDesc.env ?? null } : null,
  };
}

export { OPERATIONAL };
