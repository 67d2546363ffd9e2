// How a report names things: methods as their benchmark writes them (Benchmark.methodLabels),
// benchmarks by their registered title, a cohort by benchmark, split and model.
import type { Benchmark } from '../benchmarks/types.js';
import type { CohortInfo } from './model.js';

/** A method of a benchmark as the report writes it. */
export type MethodLabelOf = (benchmark: string, method: string) => string;

/** A method as one benchmark's labels (Benchmark.methodLabels) write it; one they do not label keeps its name. */
export function methodLabelIn(labels: Benchmark['methodLabels'], method: string): string {
  return labels && Object.hasOwn(labels, method) ? labels[method] : method;
}

/** Each benchmark's own labels (Benchmark.methodLabels); a method it does not label, or of a benchmark not given, keeps its name. */
export function methodLabels(benchmarks: readonly Pick<Benchmark, 'name' | 'methodLabels'>[]): MethodLabelOf {
  const byName = new Map(benchmarks.map((b) => [b.name, b.methodLabels]));
  return (benchmark, method) => methodLabelIn(byName.get(benchmark), method);
}

export type TitleOf = (benchmark: string) => string;

/** "HotpotQA, split offline500, model test-model". */
export function cohortTitle(c: Pick<CohortInfo, 'benchmark' | 'split' | 'model'>, titleOf: TitleOf): string {
  return `${titleOf(c.benchmark)}, split ${c.split}, model ${c.model}`;
}
