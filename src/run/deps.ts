// The real modules behind RunDeps: the benchmark registry and the LLM layer.
import { createCompletionModel, resolveModelConfig, llmCliOptions } from '../llm/index.js';
import '../benchmarks/builtin.js';
import { benchmarkNames, defaultBenchmarkName, getBenchmark } from '../benchmarks/registry.js';
import type { Benchmark } from '../benchmarks/types.js';
import type { OptionTable } from '../options.js';
import type { RunDeps } from './execute.js';
import type { Settings } from './experiment.js';
import { defaultsOf, runOptions } from './options.js';

/**
 * Every option `run` accepts (and an experiment file may set), with their defaults: the run's own,
 * the model's, then each registered benchmark's (a flag two benchmarks share, such as --env-url, is
 * declared once: the first declaration wins).
 */
export function allRunOptions(): OptionTable {
  const names = benchmarkNames();
  const benches = names.map(getBenchmark);
  const methodsOf = (b: Benchmark) => [...b.methods, ...Object.keys(b.derivedMethods ?? {})];
  const methods = [...new Set(benches.flatMap(methodsOf))];
  const out: OptionTable = {
    ...runOptions,
    task: { ...runOptions.task, describe: `Benchmark (default ${defaultBenchmarkName()}): ${benches.map((b) => `${b.name} (${b.describe})`).join('; ')}`, choices: names },
    method: { ...runOptions.method, describe: `Method: ${benches.map((b) => `${b.name} ${methodsOf(b).join('|')} (default ${b.defaultMethod})`).join('; ')}`, choices: methods },
    split: { ...runOptions.split, describe: `Split: ${benches.map((b) => `${b.name} ${b.splitNames().join('|')} (default ${b.defaultSplit})`).join('; ')}` },
    ...(llmCliOptions as OptionTable),
  };
  // A flag several benchmarks declare is listed once, under all their names (HotpotQA / FEVER).
  const declaredBy = new Map<string, string[]>();
  for (const b of benches) for (const flag of Object.keys(b.options)) declaredBy.set(flag, [...(declaredBy.get(flag) ?? []), b.title]);
  for (const b of benches) {
    for (const [flag, spec] of Object.entries(b.options)) if (!(flag in out)) out[flag] = { group: `${declaredBy.get(flag)!.join(' / ')} options:`, ...spec };
  }
  return out;
}

/** The defaults of a run on one benchmark: the run's and the model's, then that benchmark's own. */
export function runDefaults(task: unknown): Settings {
  const bench = getBenchmark(typeof task === 'string' ? task : defaultBenchmarkName());
  return defaultsOf({ ...runOptions, ...(llmCliOptions as OptionTable), ...bench.options });
}

export const realDeps: RunDeps = {
  getBenchmark,
  createModel: async (settings: Settings) => createCompletionModel(resolveModelConfig(settings, process.env)),
  secrets: (settings: Settings) => {
    const out: string[] = [];
    const name = typeof settings.apiKeyEnv === 'string' ? settings.apiKeyEnv : 'OPENAI_API_KEY';
    for (const n of new Set([name, 'OPENAI_API_KEY'])) {
      const v = process.env[n]?.trim();
      if (v) out.push(v);
    }
    return out;
  },
};
