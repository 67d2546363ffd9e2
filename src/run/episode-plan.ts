// Which episodes a run covers: its benchmark and options, the selection (--indices or a split, then
// --limit) and the shard of it this run takes. Checked before anything is written.
import type { Benchmark } from '../benchmarks/types.js';
import { UserError } from '../errors.js';
import { benchmarkOptions, defaultBenchmarkName } from '../benchmarks/registry.js';
import { applyShard, parseShard, type Shard } from './shard.js';
import { isAutoShard, resolveAutoShard } from './shard-auto.js';
import type { RunConfig } from './config.js';
import type { RunDeps } from './run-deps.js';
import type { OptionTable, Settings } from '../options.js';
import { coreRunOptions } from './core-options.js';
import { camelCase } from './options.js';
import { refuseUrlQueries } from '../envs/http/base-url.js';

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
  refuseEnvUrlQueries(cfg.settings, bench.options);
  return { benchmark: bench.forSettings?.(options) ?? bench, options };
}

/**
 * Refuses an environment server's URL with a query or fragment (OptionSpec.envBaseUrl) when the run is
 * planned, as its environment would when built: a dry run, which builds none, says so too.
 */
function refuseEnvUrlQueries(settings: Settings, benchOptions: OptionTable): void {
  // the benchmark's own flags first, as its environment reads them (QA's --wiki-url before --env-url)
  for (const flag of new Set([...Object.keys(benchOptions), ...Object.keys(coreRunOptions)])) {
    const value = settings[camelCase(flag)];
    if ((benchOptions[flag] ?? coreRunOptions[flag]).envBaseUrl && typeof value === 'string') refuseUrlQueries(value, `--${flag}`);
  }
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
