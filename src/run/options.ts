// The `run` command's own flags, and helpers to layer settings: option defaults < experiment file <
// flags given on the command line. Other modules contribute their flags (llm, each benchmark) as
// option tables (src/options.ts); src/cli registers them without defaults so that "not given" stays
// undefined and an experiment file's value is not overridden by a default.
import type { OptionSpec, OptionTable } from '../options.js';

/** The heading of the flags that say what a run is, listed first in --help (before the model's). */
const WHAT = 'What to run:';

export const runOptions: OptionTable = {
  // task, method and split list the registered benchmarks' names in --help (src/run/deps.ts).
  task: { type: 'string', group: WHAT, describe: 'Benchmark' },
  method: { type: 'string', group: WHAT, describe: 'Method' },
  split: { type: 'string', group: WHAT, describe: "Split (default: the benchmark's)" },
  indices: { type: 'string', group: WHAT, describe: 'Run exactly these item indices (comma list, e.g. 12,40,77) instead of a split' },
  limit: { type: 'number', group: WHAT, describe: 'Run only the first N items of the split' },
  'env-url': {
    operational: true,
    envBaseUrl: true,
    type: 'string',
    describe:
      "The benchmark's environment server (an env server or web site; for Wikipedia benchmarks a Wikipedia site, as --wiki live --wiki-url URL); several, comma-separated, make a pool with failover (docs/cluster.md)",
  },
  shard: {
    type: 'string',
    group: WHAT,
    describe:
      'Run shard K of N (K/N): split positions p with p % N == K-1; auto: the Slurm array task (SLURM_ARRAY_TASK_ID/MIN/COUNT); auto/N: a Kubernetes Indexed Job of N completions (JOB_COMPLETION_INDEX) (docs/cluster.md)',
  },
  concurrency: { operational: true, type: 'number', default: 8, describe: 'Episodes run at once' },
  'results-dir': { operational: true, type: 'string', path: true, describe: 'Folder for run folders (default ./results)' },
  resume: {
    type: 'string',
    session: true,
    group: WHAT,
    describe: 'Resume this run id (its manifest supplies the settings you do not give)',
  },
  'retry-errors': {
    type: 'boolean',
    session: true,
    group: WHAT,
    describe: 'Re-run only the episodes recorded with an infrastructure error',
  },
  'context-overflow': {
    type: 'string',
    choices: ['fail', 'truncate'],
    describe:
      "When a prompt outgrows the model's context window: fail (default: the episode ends there, scored as a failure and counted) or truncate (leave the oldest turns out of the prompt; a deviation recorded in the manifest)",
  },
  'from-runs': {
    type: 'string',
    path: true,
    describe: 'Combinations: the existing CoT-SC and ReAct run folders to combine (comma list) instead of running them',
  },
};

/** Whether a settings key is a flag of one invocation (OptionSpec.session), not a setting of the run. */
export function isSessionOnly(key: string): boolean {
  return runOptions[kebabCase(key)]?.session === true;
}

export function camelCase(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function kebabCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Defaults of an option table keyed by camelCase name. */
export function defaultsOf(table: OptionTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(table)) if (v.default !== undefined) out[camelCase(k)] = v.default;
  return out;
}

/** The camelCase keys (from an option table and its aliases) -> option. */
export function optionIndex(table: OptionTable): Map<string, { flag: string; opt: OptionSpec }> {
  const m = new Map<string, { flag: string; opt: OptionSpec }>();
  for (const [flag, opt] of Object.entries(table)) m.set(camelCase(flag), { flag, opt });
  return m;
}

/** Keeps only the options a user actually gave (camelCase keys), from a yargs argv. */
export function givenFlags(argv: Record<string, unknown>, table: OptionTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const flag of Object.keys(table)) {
    const key = camelCase(flag);
    if (argv[key] !== undefined) out[key] = argv[key];
  }
  return out;
}

/** --split and --indices name the items two ways: a layer that sets one drops the other from the layers below. */
const ITEM_CHOICE = ['split', 'indices'] as const;

/** `over` on top of `under`, where choosing the items in `over` replaces `under`'s choice. */
export function layerSettings<T extends Record<string, unknown>>(under: T, over: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...under };
  if (ITEM_CHOICE.some((k) => over[k] !== undefined)) for (const k of ITEM_CHOICE) delete out[k];
  return { ...out, ...over } as T;
}
