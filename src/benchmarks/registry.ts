// The benchmark registry: a benchmark plug-in registers itself by name; the core looks it up.
// Built-in benchmarks are registered by src/benchmarks/builtin.ts, the one file that lists them.
import { UserError } from '../errors.js';
import type { Benchmark } from './types.js';

const factories = new Map<string, () => Benchmark>();
const instances = new Map<string, Benchmark>();

/** Registers a benchmark under its name; the factory runs on first use (data loads lazily). */
export function registerBenchmark(name: string, factory: () => Benchmark): void {
  if (factories.has(name)) throw new Error(`benchmark "${name}" is registered twice`);
  factories.set(name, factory);
}

export function benchmarkNames(): string[] {
  return [...factories.keys()];
}

/** The benchmark a run uses when --task is not given: the first one registered. */
export function defaultBenchmarkName(): string {
  const first = factories.keys().next();
  if (first.done) throw new Error('no benchmark is registered');
  return first.value;
}

export function hasBenchmark(name: string): boolean {
  return factories.has(name);
}

/** The benchmark by name (one instance per process); UserError naming the known ones otherwise. */
export function getBenchmark(name: string): Benchmark {
  let b = instances.get(name);
  if (b) return b;
  const f = factories.get(name);
  if (!f) throw new UserError(`--task: unknown benchmark "${name}" (expected one of ${benchmarkNames().join(', ')})`);
  b = f();
  if (b.name !== name) throw new Error(`benchmark registered as "${name}" calls itself "${b.name}"`);
  instances.set(name, b);
  return b;
}
