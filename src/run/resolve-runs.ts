// Where the CLI and the library API hand over: the settings of each run from the flags (or
// runExperiment()'s object), an experiment file and, for --resume, the stored manifest.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { experimentsDir, repoRoot } from '../paths.js';
import { allRunOptions, runDefaults } from './deps.js';
import { resumeDir, redactedSettingKeys } from './execute.js';
import { manifestIfAny } from '../runlog/store.js';
import { loadExperiment, type Settings } from './experiment.js';
import { givenFlags, kebabCase, layerSettings } from './options.js';
import { checkGivenFlags } from './input-checks.js';
import { parseRunConfig, type RunConfig } from './config.js';
import { JsonFields } from '../util/json-fields.js';

/** experiments/<name>.json of the package when the path given does not exist. */
export function resolveExperimentPath(p: string): string {
  if (fs.existsSync(p)) return p;
  // experiments/<name>.json of the package, also when given as "experiments/<name>.json" from elsewhere.
  for (const c of [path.join(experimentsDir, p), path.join(experimentsDir, `${p}.json`), path.join(repoRoot, p)])
    if (fs.existsSync(c)) return c;
  throw new UserError(`run: experiment file ${p} not found`);
}

/** The settings of each run: option defaults < (stored manifest for --resume) < experiment file < flags. */
export function resolveRuns(argv: Record<string, unknown>): Settings[] {
  const table = allRunOptions();
  const given = givenFlags(argv, table);
  checkGivenFlags(given);
  // Defaults are those of the run's own benchmark (and the core's), never another benchmark's.
  const withDefaults = (s: Settings): Settings => ({ ...runDefaults(JsonFields.orEmpty(s).get('task')), ...s });
  const experiment = JsonFields.orEmpty(argv).str('experiment');
  const g = JsonFields.orEmpty(given);
  const resume = g.get('resume');
  if (experiment !== undefined) {
    if (resume !== undefined)
      throw new UserError('--resume: give a run id without an experiment file (re-running the experiment resumes its runs)');
    const exp = loadExperiment(resolveExperimentPath(experiment), table);
    return exp.runs.map((r) => withDefaults(layerSettings(r, given)));
  }
  if (resume !== undefined) {
    const stored = manifestIfAny(resumeDir(parseRunConfig(withDefaults(given))))?.settings ?? {};
    // URLs with credentials are recorded without them: such a flag must be given again.
    const missing = redactedSettingKeys(stored).filter((k) => !g.has(k));
    if (missing.length) {
      throw new UserError(
        `--resume ${String(resume)}: --${kebabCase(missing[0])} had credentials in its URL, which runs never record: give --${kebabCase(missing[0])} again`,
      );
    }
    return [withDefaults(layerSettings(stored, given))];
  }
  return [withDefaults(given)];
}

/** The runs of an invocation, each parsed once into its RunConfig before the first one starts. */
export function resolveRunConfigs(argv: Record<string, unknown>): RunConfig[] {
  return resolveRuns(argv).map((s) => parseRunConfig(s));
}
