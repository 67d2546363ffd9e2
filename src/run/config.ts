// One run's configuration, typed: the `run` command's own flags parsed and validated once, where the
// CLI and the library API hand a run over (executeRun, executeCombination, the dry run). The flat
// settings record stays what is written to and read from manifest.json (its `settings`), experiment
// files and bundles; the model's and the benchmark's options are read from it by their own parsers.
import { UserError } from '../errors.js';
import { parseLimit, type Settings } from '../options.js';
import type { ContextOverflow } from '../methods/types.js';
import { contextOverflowOf } from './limit-outcomes.js';
import { parseIndices, parseShard } from './shard.js';
import { isAutoShard } from './shard-auto.js';
import { parseResponseLimits, type ResponseLimits } from './response-limits.js';
import { JsonFields } from '../util/json-fields.js';
import { tryResolveModelConfig, type ModelResolution } from '../llm/config.js';

export interface RunConfig {
  /** --task (undefined: the first registered benchmark). */
  task?: string;
  /** --method (undefined: the benchmark's default). */
  method?: string;
  /** --split (undefined: the benchmark's default; never given with indices). */
  split?: string;
  /** --indices: exactly these dataset indices, in this order. */
  indices?: number[];
  /** --limit: the first N items of the selection. */
  limit?: number;
  /** --shard as given: K/N, or auto / auto/N (resolved from the job array when the run is planned). */
  shard?: string;
  /** --concurrency: episodes at once. */
  concurrency: number;
  /** --results-dir as given (undefined: ./results). */
  resultsDir?: string;
  /** --resume: the run id to resume. */
  resume?: string;
  /** --retry-errors: re-run the episodes recorded as errors. */
  retryErrors: boolean;
  /** --context-overflow (default fail). */
  contextOverflow: ContextOverflow;
  /** --from-runs: the base run folders of a combination. */
  fromRuns?: string[];
  /** --env-deadline and --env-max-bytes. */
  responseLimits: ResponseLimits;
  /** The model configuration, resolved once from the settings and the environment (or why it cannot be). */
  model: ModelResolution;
  /** The settings this configuration was parsed from (the manifest's settings; model and benchmark options). */
  settings: Settings;
}

export const DEFAULT_CONCURRENCY = 8;

/** The configurations parseRunConfig made: a layer handed one does not parse it again. */
const parsed = new WeakSet<object>();

function isParsed(run: Settings | RunConfig): run is RunConfig {
  return parsed.has(run);
}

/** A run's configuration from its settings, or the configuration itself when already parsed. */
export function runConfigOf(run: Settings | RunConfig): RunConfig {
  return isParsed(run) ? run : parseRunConfig(run);
}

function optionalString(f: JsonFields, key: string, flag: string): string | undefined {
  const v = f.get(key);
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new UserError(`--${flag}: expected a string, got ${JSON.stringify(v)}`);
}

function stringList(v: unknown, flag: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const parts = Array.isArray(v) ? v : [v];
  if (!parts.every((x): x is string => typeof x === 'string')) throw new UserError(`--${flag}: expected a comma list of run folders`);
  return parts
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** --indices as given: a comma list, one number, or a list (experiment files). */
function indexList(v: unknown): string | number | (string | number)[] {
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? x : String(x)));
  throw new UserError(`--indices: expected a comma-separated list of dataset indices (e.g. 12,40,77)`);
}

/**
 * The run's own flags from its settings, each checked once with its one message (--limit through
 * parseLimit). The benchmark (unknown --task, a split it lacks, indices out of its range) is checked
 * when the run is planned.
 */
export function parseRunConfig(settings: Settings, env: NodeJS.ProcessEnv = process.env): RunConfig {
  const f = JsonFields.orEmpty(settings);
  const limit = parseLimit(f.get('limit'));
  if (f.get('indices') !== undefined && f.get('split') !== undefined) {
    throw new UserError(
      `--indices and --split exclude each other: --indices runs exactly the items given, --split names a split (give one)`,
    );
  }
  const rawIndices = f.get('indices');
  let indices: number[] | undefined;
  if (rawIndices !== undefined && rawIndices !== null) {
    indices = parseIndices(indexList(rawIndices));
  }
  const shard = optionalString(f, 'shard', 'shard');
  if (shard !== undefined && !isAutoShard(shard)) parseShard(shard);
  const responseLimits = parseResponseLimits(settings);
  const concurrency = Number(f.get('concurrency') ?? DEFAULT_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UserError(`--concurrency: expected a positive integer, got ${String(f.get('concurrency'))}`);
  const retryErrors = f.get('retryErrors');
  if (retryErrors !== undefined && typeof retryErrors !== 'boolean') throw new UserError(`--retry-errors: expected true or false`);
  const cfg: RunConfig = {
    task: optionalString(f, 'task', 'task'),
    method: optionalString(f, 'method', 'method'),
    split: optionalString(f, 'split', 'split'),
    ...(indices ? { indices } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(shard !== undefined ? { shard } : {}),
    concurrency,
    resultsDir: optionalString(f, 'resultsDir', 'results-dir'),
    resume: f.get('resume') === undefined ? undefined : String(f.get('resume')),
    retryErrors: retryErrors === true,
    contextOverflow: contextOverflowOf(f.get('contextOverflow')),
    fromRuns: stringList(f.get('fromRuns'), 'from-runs'),
    responseLimits,
    model: tryResolveModelConfig(settings, env),
    settings,
  };
  parsed.add(cfg);
  return cfg;
}

/** The same configuration with some settings replaced (the manifest records them), parsed again. */
export function withSettings(cfg: RunConfig, over: Settings): RunConfig {
  return parseRunConfig({ ...cfg.settings, ...over });
}
