// react-repro as a library (`import { runExperiment, registerBenchmark, loadRun } from 'react-repro'`):
// run experiments with the same settings the CLI takes, register benchmarks of your own beside the
// built-in ones, and read runs back. docs/library.md has a worked example (test/package checks it).
import { pricesOf, realDeps } from './run/deps.js';
import { requireKnownPrices } from './run/budget.js';
import { executeRun } from './run/execute.js';
import type { RunDeps, RunIO } from './run/run-deps.js';
import type { RunResult } from './run/run-result.js';
import { executeCombination } from './run/combination-run.js';
import { derivedMethodOf } from './run/derived-method.js';
import { allRunOptions } from './run/deps.js';
import { validateSettings } from './run/experiment.js';
import { resolveRunConfigs } from './run/resolve-runs.js';
import type { Settings } from './options.js';

// ---- benchmarks: the registry (the built-in ones are registered on import) and the plug-in types
export { registerBenchmark, getBenchmark, benchmarkNames, hasBenchmark } from './benchmarks/builtin.js';
export type { Benchmark, Item, Split, MetricDef, EnvHandle, DerivedMethod, StoredEpisode, ItemRefKey } from './benchmarks/types.js';
export type { Method, MethodContext, EpisodeResult, StepRecord } from './methods/types.js';
export { InteractiveMethod, runInteractive, type LoopDefinition, type Turn, type TurnContext } from './methods/interactive.js';
export { CallLedger, greedyRequest } from './methods/episode.js';
export type { Env, EnvCallOptions, ResetResult, StepResult } from './envs/types.js';
export type { OptionSpec, OptionTable, Settings } from './options.js';

// ---- models
export {
  createCompletionModel,
  modelFromSettings,
  openModel,
  resolveModelConfig,
  CacheStore,
  cacheLayer,
  type OpenedModel,
  type EndpointTally,
} from './llm/index.js';
export {
  PAPER_SAMPLING,
  type CompletionModel,
  type CompletionRequest,
  type CompletionResult,
  type CompletionChoice,
  type CompleteOptions,
  type TokenUsage,
} from './llm/types.js';

// ---- running
export { executeRun } from './run/execute.js';
export { planEpisodes } from './run/episode-plan.js';
export type { RunDeps, RunIO } from './run/run-deps.js';
export type { RunModel } from './run/run-model.js';
export type { RunResult, RunStatus } from './run/run-result.js';
export { realDeps, allRunOptions } from './run/deps.js';
export type { ProgressSink } from './run/progress.js';

// ---- reading runs
export { loadRun, loadRuns } from './report/load.js';
export { fullRecords } from './report/model.js';
export type { RunView } from './report/model.js';
export { loadEpisodes, readManifest, type LoadResult } from './runlog/store.js';
export type { EpisodeRecord, EpisodeError, RunManifest, RunSummary } from './runlog/schema.js';

// ---- errors and paths
export { UserError, ConfigError, InfraError, FatalRunError } from './errors.js';
export { repoRoot as packageRoot, cacheDir } from './paths.js';

/**
 * How a run reports and stops (RunIO; every field optional): `progress` (default: nowhere; pass
 * process.stderr for the CLI's progress line), `log` for one-line notes such as "resuming <run>"
 * (default: dropped), `signal` to stop after the episodes in flight (the run is then 'interrupted' and
 * resumable); and `deps` to replace parts of the wiring, e.g. createModel for a model of your own
 * (`{ backend }`, or `{ backend, cache }` to put the completion cache over it).
 */
export interface RunExperimentOptions extends Partial<RunIO> {
  deps?: Partial<RunDeps>;
}

/**
 * Runs what `react-repro run` would, with the settings as an object: the CLI's flags in camelCase
 * (`{ task: 'hotpotqa', method: 'react', limit: 5, baseUrl, model }`), or `experiment` naming an
 * experiment file whose runs the other settings override. Defaults, validation, run folders, resume
 * and manifests are the CLI's. Returns one result per run, in order; stops at an interrupted run and
 * throws a run's fatal error (bad key, unknown model) as the CLI does.
 */
export async function runExperiment(
  settings: Settings & { experiment?: string },
  options: RunExperimentOptions = {},
): Promise<RunResult[]> {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)); // undefined = not given
  const { experiment, resume, retryErrors, ...rest } = defined;
  // The same checks an experiment file gets (unknown fields, types, choices), naming this function.
  const given = validateSettings('runExperiment()', '', rest, allRunOptions());
  const { deps: over, ...ioGiven } = options;
  const deps: RunDeps = { ...realDeps, ...over };
  const io: RunIO = { progress: { write: () => {}, isTTY: false }, log: () => {}, ...ioGiven };
  const runs = resolveRunConfigs({ ...given, resume, retryErrors, experiment }, (l) => io.log(l));
  // A budget over a model of unknown price is refused before any run spends (a model of your own says
  // its prices itself: executeRun checks those before its run folder is made).
  if (io.budget && !over?.createModel) requireKnownPrices(runs.map((r) => pricesOf(r.model)));
  const results: RunResult[] = [];
  for (const s of runs) {
    const r = derivedMethodOf(s, deps) ? await executeCombination(s, deps, io) : await executeRun(s, deps, io);
    results.push(r);
    if (r.fatal) throw r.fatal;
    if (r.status === 'interrupted') break;
  }
  return results;
}
