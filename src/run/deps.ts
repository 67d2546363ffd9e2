// The real modules behind RunDeps: the benchmark registry and the LLM layer. Which benchmarks are
// registered is decided by the entry points (src/cli/main.ts, src/index.ts import the built-in list).
import { UserError } from '../errors.js';
import { openModel } from '../llm/index.js';
import { modelConfigOf, tryResolveModelConfig, type ModelResolution } from '../llm/config.js';
import { priceInfoOf, resolvePrices, type PriceInfo } from '../llm/pricing.js';
import { isOfficialOpenAI } from '../llm/endpoints.js';
import { benchmarkNames, defaultBenchmarkName, getBenchmark } from '../benchmarks/registry.js';
import type { Benchmark } from '../benchmarks/types.js';
import { mergeBenchmarkFlags } from '../benchmarks/registry.js';
import type { OptionTable } from '../options.js';
import type { RunDeps } from './run-deps.js';
import type { Settings } from './experiment.js';
import { defaultsOf, runOptions } from './options.js';
import { coreRunOptions } from './core-options.js';
import { JsonFields } from '../util/json-fields.js';
import { urlCredentials } from '../util/redact.js';
import type { RunConfig } from './config.js';

/**
 * Every option `run` accepts (and an experiment file may set), with their defaults: the run's own,
 * the model's, then each registered benchmark's (a flag two benchmarks share, such as --env-url, is
 * one flag of one type, listed under both: mergeBenchmarkFlags in benchmarks/registry.ts).
 */
export function allRunOptions(): OptionTable {
  const names = benchmarkNames();
  const benches = names.map(getBenchmark);
  const methodsOf = (b: Benchmark) => [...b.methods, ...Object.keys(b.derivedMethods ?? {})];
  const methods = [...new Set(benches.flatMap(methodsOf))];
  const out: OptionTable = {
    ...runOptions,
    task: {
      ...runOptions.task,
      describe: `Benchmark (default ${defaultBenchmarkName()}): ${benches.map((b) => `${b.name} (${b.describe})`).join('; ')}`,
      choices: names,
    },
    method: {
      ...runOptions.method,
      describe: `Method: ${benches.map((b) => `${b.name} ${methodsOf(b).join('|')} (default ${b.defaultMethod})`).join('; ')}`,
      choices: methods,
    },
    split: {
      ...runOptions.split,
      describe: `Split: ${benches.map((b) => `${b.name} ${b.splitNames().join('|')} (default ${b.defaultSplit})`).join('; ')}`,
    },
  };
  for (const [flag, spec] of Object.entries(coreRunOptions)) if (!(flag in out)) out[flag] = spec;
  for (const [flag, spec] of Object.entries(mergeBenchmarkFlags(benches))) if (!(flag in out)) out[flag] = spec;
  return out;
}

/** The defaults of a run on one benchmark: the run's and the model's, then that benchmark's own. */
export function runDefaults(task: unknown): Settings {
  const bench = getBenchmark(typeof task === 'string' ? task : defaultBenchmarkName());
  return defaultsOf({ ...coreRunOptions, ...bench.options });
}

/** The credentials in URL settings (--wiki-url http://user:KEY@host, --base-url ...?api-key=KEY): secrets too. */
function urlSecrets(settings: Settings): string[] {
  const texts = Object.values(settings)
    .flatMap((v): unknown[] => (Array.isArray(v) ? (v as unknown[]) : [v]))
    .filter((v): v is string => typeof v === 'string');
  return texts.flatMap(urlCredentials);
}

/** The prices a run would pay, from its settings alone: no model is created, nothing is opened. */
export function pricesFromSettings(settings: Settings, env: NodeJS.ProcessEnv = process.env): PriceInfo {
  return pricesOf(tryResolveModelConfig(settings, env));
}

/** The prices a run would pay, from its resolved model configuration. */
export function pricesOf(model: ModelResolution): PriceInfo {
  try {
    const cfg = modelConfigOf(model);
    if (cfg.kind === 'llama') return { promptPerM: 0, completionPerM: 0, status: 'free', source: 'local model', model: cfg.modelPath };
    const official = cfg.baseURLs.every(isOfficialOpenAI);
    const p = resolvePrices(cfg.model ?? '', {
      pricePrompt: cfg.prices.promptPerM,
      priceCompletion: cfg.prices.completionPerM,
      officialOpenAI: official,
    });
    return priceInfoOf(p, cfg.model ?? null);
  } catch (e) {
    if (e instanceof UserError) return { error: e.message };
    throw e;
  }
}

export const realDeps: RunDeps = {
  getBenchmark,
  createModel: async (run: RunConfig, hooks = {}) =>
    openModel(modelConfigOf(run.model), { onRetry: hooks.onRetry, secrets: realDeps.secrets(run.settings) }),
  secrets: (settings: Settings) => {
    const out: string[] = [];
    const name = JsonFields.orEmpty(settings).str('apiKeyEnv') ?? 'OPENAI_API_KEY';
    for (const n of new Set([name, 'OPENAI_API_KEY'])) {
      const v = process.env[n]?.trim();
      if (v) out.push(v);
    }
    // a --base-url may come from the environment (OPENAI_BASE_URL) rather than the settings
    return [...out, ...urlSecrets(settings), ...urlCredentials(process.env.OPENAI_BASE_URL ?? '')];
  },
  prices: (run: RunConfig) => pricesOf(run.model),
};
