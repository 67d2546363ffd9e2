// Where the CLI and the library API hand over: the settings of each run from the flags (or
// runExperiment()'s object), an experiment file and, for --resume, the stored manifest.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { experimentsDir, repoRoot } from '../paths.js';
import { allRunOptions, runDefaults } from './deps.js';
import { resumeDir } from './results-dir.js';
import { redactedSettingKeys } from './manifest.js';
import { manifestIfAny } from '../runlog/store.js';
import { loadExperiment, type Settings } from './experiment.js';
import { camelCase, givenFlags, kebabCase, layerSettings } from './options.js';
import { canonicalJson } from './run-id.js';
import { benchmarkNames, defaultBenchmarkName, flagsReadBy, getBenchmark } from '../benchmarks/registry.js';
import type { Benchmark } from '../benchmarks/types.js';
import type { OptionTable } from '../options.js';
import { coreRunOptions } from './core-options.js';
import { parseRunConfig, type RunConfig } from './config.js';
import { JsonFields } from '../util/json-fields.js';
import { resumableBaseUrl } from '../envs/http/base-url.js';

/** experiments/<name>.json of the package when the path given does not exist. */
export function resolveExperimentPath(p: string): string {
  if (fs.existsSync(p)) return p;
  // experiments/<name>.json of the package, also when given as "experiments/<name>.json" from elsewhere.
  for (const c of [path.join(experimentsDir, p), path.join(experimentsDir, `${p}.json`), path.join(repoRoot, p)])
    if (fs.existsSync(c)) return c;
  throw new UserError(`run: experiment file ${p} not found`);
}

/** The settings of each run: option defaults < (stored manifest for --resume) < experiment file < flags. */
export function resolveRuns(argv: Record<string, unknown>, notify: (line: string) => void = () => {}): Settings[] {
  const table = allRunOptions();
  const given = givenFlags(argv, table);
  const runs = settingsOfRuns(argv, table, given, notify);
  // Flags given together that contradict each other, by the rules of the runs' benchmarks.
  for (const bench of new Set(runs.map((s) => benchAndMethod(s).bench))) bench.checkGivenFlags?.(given);
  checkFlagsRead(runs, given, JsonFields.orEmpty(argv).str('experiment'), notify);
  return runs;
}

function settingsOfRuns(argv: Record<string, unknown>, table: OptionTable, given: Settings, notify: (line: string) => void): Settings[] {
  // Defaults are those of the run's own benchmark (and the core's), never another benchmark's.
  const withDefaults = (s: Settings): Settings => ({ ...runDefaults(JsonFields.orEmpty(s).get('task')), ...s });
  const experiment = JsonFields.orEmpty(argv).str('experiment');
  const g = JsonFields.orEmpty(given);
  const resume = g.get('resume');
  if (experiment !== undefined) {
    if (resume !== undefined)
      throw new UserError('--resume: give a run id without an experiment file (re-running the experiment resumes its runs)');
    const file = resolveExperimentPath(experiment);
    const exp = loadExperiment(file, table);
    // A benchmark's flag goes to the runs of that benchmark only (checkFlagsRead refuses one no run has).
    const runs = exp.runs.map((r) =>
      withDefaults(layerSettings(r, withoutForeignFlags(given, JsonFields.orEmpty({ ...r, ...given }).str('task')))),
    );
    return oneOfEachRun(runs, exp.runs, given, path.basename(file, '.json'), notify);
  }
  if (resume !== undefined) {
    const stored = manifestIfAny(resumeDir(parseRunConfig(withDefaults(given))))?.settings ?? {};
    // URLs with credentials are recorded without them: such a flag must be given again.
    const missing = redactedSettingKeys(stored).filter((k) => !g.has(k));
    if (missing.length) throw redactedFlagMissing(String(resume), kebabCase(missing[0]), stored[missing[0]], table);
    return [withDefaults(layerSettings(stored, given))];
  }
  return [withDefaults(given)];
}

/**
 * A resume without a flag whose URL had credentials (recorded as ***): give it again. An environment
 * server's URL with them in its query, as versions before such URLs were refused recorded it
 * (OptionSpec.envBaseUrl), is given again without its query: the query would be refused, and the
 * server is sent a URL's userinfo as Basic auth (src/envs/http/request.ts).
 */
function redactedFlagMissing(runId: string, flag: string, recorded: unknown, table: OptionTable): UserError {
  // where the credential was: in the query (refused now), or in the userinfo beside a harmless query
  if (table[flag]?.envBaseUrl && resumableBaseUrl(String(recorded)).credentialsInQuery)
    return new UserError(
      `--resume ${runId}: --${flag} had credentials in its URL's query, which runs never record and this server does not take: give --${flag} again without its query (credentials go in the URL's userinfo, e.g. http://user:KEY@host, sent as Basic auth)`,
    );
  return new UserError(`--resume ${runId}: --${flag} had credentials in its URL, which runs never record: give --${flag} again`);
}

/**
 * What makes a run what it is, as a comparable text: its settings after flags and defaults, its method
 * named even when it is the benchmark's default, without the benchmark's flags the method never reads
 * (Benchmark.methodFlags; its environment's, play.flags, always count). Two runs with the same key
 * are one run: one run id and results folder (--results-dir counts), so running both would resume the
 * first's folder again.
 */
function runKey(s: Settings): string {
  const { bench, method } = benchAndMethod(s);
  const read = flagsReadBy(bench, method);
  const skip = new Set(
    read
      ? Object.keys(bench.options)
          .filter((k) => !read.has(k))
          .map(camelCase)
      : [],
  );
  return canonicalJson({ ...Object.fromEntries(Object.entries(s).filter(([k]) => !skip.has(k))), method });
}

/**
 * An experiment's runs, each once: flags given on the command line can make several runs of a file one
 * run (--method cot over Table 1's methods), which then runs once, with one line naming the flags.
 */
function oneOfEachRun(runs: Settings[], fileRuns: Settings[], given: Settings, name: string, notify: (line: string) => void): Settings[] {
  const groups = new Map<string, number[]>();
  runs.forEach((s, i) => {
    const k = runKey(s);
    groups.set(k, [...(groups.get(k) ?? []), i]);
  });
  for (const idx of groups.values()) {
    if (idx.length < 2) continue;
    // The flags that override a field these runs of the file set differently.
    const differs = (k: string) => new Set(idx.map((i) => canonicalJson(fileRuns[i][k]))).size > 1;
    const flags = Object.keys(given)
      .filter(differs)
      .map((k) => (given[k] === true ? `--${kebabCase(k)}` : `--${kebabCase(k)} ${String(given[k])}`));
    const which = idx.length === runs.length ? `the ${runs.length} runs` : `runs ${idx.map((i) => i + 1).join(', ')}`;
    const verb = flags.length > 1 ? 'make' : 'makes';
    notify(`${flags.length ? `${flags.join(' ')} ${verb} ` : ''}${which} of ${name} ${flags.length ? '' : 'are '}one run: running it once`);
  }
  return [...groups.values()].map((idx) => runs[idx[0]]);
}

/** A run's benchmark and method, the benchmark's default method when the run names none. */
function benchAndMethod(s: Settings): { bench: Benchmark; method: string } {
  const f = JsonFields.orEmpty(s);
  const bench = getBenchmark(f.str('task') ?? defaultBenchmarkName());
  return { bench, method: f.str('method') ?? bench.defaultMethod };
}

/** The flags every run reads, whatever its benchmark. */
const CORE_FLAGS = new Set(Object.keys(coreRunOptions));

/** The benchmarks that declare a flag (kebab-case) of their own: none for a core flag or the command's own. */
function benchmarksWithFlag(flag: string): string[] {
  return CORE_FLAGS.has(flag) ? [] : benchmarkNames().filter((n) => flag in getBenchmark(n).options);
}

/**
 * A benchmark's flag given on the command line that no run of the invocation has (--games with
 * HotpotQA) is refused with one line: it would be ignored, yet recorded in the manifest. One the runs'
 * benchmark has but their method never reads (Benchmark.methodFlags: --samples with ReAct) is noted in
 * one line, not refused: a loop over methods passes the same flags to each.
 */
function checkFlagsRead(runs: readonly Settings[], given: Settings, experiment: string | undefined, notify: (line: string) => void): void {
  for (const key of Object.keys(given)) {
    const flag = kebabCase(key);
    const owners = benchmarksWithFlag(flag);
    if (owners.length === 0) continue;
    const having = runs.map(benchAndMethod).filter(({ bench }) => flag in bench.options);
    if (having.length === 0) {
      const runsText =
        experiment !== undefined
          ? `no run of ${path.basename(experiment, '.json')} is of a benchmark that has it`
          : `${benchAndMethod(runs[0] ?? {}).bench.name} has no such flag`;
      throw new UserError(`--${flag}: ${runsText} (it is ${owners.join(' and ')}'s); leave it out`);
    }
    if (!having.some(({ bench, method }) => flagsReadBy(bench, method)?.has(flag) ?? true)) {
      const methods = [...new Set(having.map(({ bench, method }) => `${bench.name} ${method}`))];
      notify(
        `note: --${flag} is not read by ${methods.join(', ')}: it has no effect on ${having.length === 1 ? 'this run' : 'these runs'}`,
      );
    }
  }
}

/** `given` without the flags of other benchmarks than `task`'s (the default benchmark's when none). */
function withoutForeignFlags(given: Settings, task: string | undefined): Settings {
  const own = getBenchmark(task ?? defaultBenchmarkName()).options;
  const foreign = (flag: string) => !(flag in own) && benchmarksWithFlag(flag).length > 0;
  return Object.fromEntries(Object.entries(given).filter(([k]) => !foreign(kebabCase(k))));
}

/** The runs of an invocation, each parsed once into its RunConfig before the first one starts. */
export function resolveRunConfigs(argv: Record<string, unknown>, notify?: (line: string) => void): RunConfig[] {
  return resolveRuns(argv, notify).map((s) => parseRunConfig(s));
}
