// The real modules behind RunDeps: the benchmark registry and the LLM layer.
import { createCompletionModel, resolveModelConfig, llmCliOptions } from '../llm/index.js';
import '../benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../benchmarks/registry.js';
import type { OptionTable } from '../options.js';
import type { RunDeps } from './execute.js';
import type { Settings } from './experiment.js';
import { runOptions } from './options.js';

/**
 * Every option `run` accepts (and an experiment file may set), with their defaults: the run's own,
 * the model's, then each registered benchmark's (a flag two benchmarks share, such as --env-url, is
 * declared once: the first declaration wins).
 */
export function allRunOptions(): OptionTable {
  const names = benchmarkNames();
  const methods = [...new Set(names.flatMap((n) => [...getBenchmark(n).methods, ...Object.keys(getBenchmark(n).derivedMethods ?? {})]))];
  const out: OptionTable = {
    ...runOptions,
    task: { ...runOptions.task, choices: names },
    method: { ...runOptions.method, choices: methods },
    ...(llmCliOptions as OptionTable),
  };
  for (const name of names) {
    for (const [flag, spec] of Object.entries(getBenchmark(name).options)) if (!(flag in out)) out[flag] = spec;
  }
  return out;
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
