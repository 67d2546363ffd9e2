// Whether a run's --method names one of its benchmark's derived methods (combination-run.ts runs
// those): asked for every run before it starts, so it is its own small module, loaded without the
// combination's code.
import type { Benchmark, DerivedMethod } from '../benchmarks/types.js';
import { runBenchmark } from './episode-plan.js';
import type { RunDeps } from './run-deps.js';
import type { Settings } from './experiment.js';
import { runConfigOf, type RunConfig } from './config.js';

/**
 * The derived method a run names, with the benchmark's options for the run (parsed once, what its
 * hooks receive), or null when --method names an ordinary method.
 */
export function derivedMethodOf(
  run: Settings | RunConfig,
  deps: Pick<RunDeps, 'getBenchmark'>,
): { bench: Benchmark; derived: DerivedMethod<unknown>; options: unknown } | null {
  const cfg = runConfigOf(run);
  const { benchmark: bench, options } = runBenchmark(cfg, deps);
  const derived = bench.derivedMethods?.[cfg.method ?? bench.defaultMethod];
  return derived ? { bench, derived, options } : null;
}
