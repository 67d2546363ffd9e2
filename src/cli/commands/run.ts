// `react-repro run`: one run from flags, or the runs of an experiment file, in order (brief §1-5).
import fs from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { FatalRunError, UserError } from '../../errors.js';
import { experimentsDir } from '../../paths.js';
import { allRunOptions, realDeps, runDefaults } from '../../run/deps.js';
import { executeRun, resumeDir, manifestIfAny, type RunDeps, type RunIO, type RunResult } from '../../run/execute.js';
import { derivedMethodOf, executeCombination } from '../../run/combination-run.js';
import { loadExperiment, type Settings } from '../../run/experiment.js';
import { givenFlags, withoutDefaults } from '../../run/options.js';
import { readManifest } from '../../run/run-log.js';
import { scoresText } from '../scores.js';
import { yargsOptions } from '../yargs-options.js';

/** experiments/<name>.json of the package when the path given does not exist. */
export function resolveExperimentPath(p: string): string {
  if (fs.existsSync(p)) return p;
  for (const c of [path.join(experimentsDir, p), path.join(experimentsDir, `${p}.json`)]) if (fs.existsSync(c)) return c;
  throw new UserError(`run: experiment file ${p} not found`);
}

/** The settings of each run: option defaults < (stored manifest for --resume) < experiment file < flags. */
export function resolveRuns(argv: Record<string, unknown>): Settings[] {
  const table = allRunOptions();
  const given = givenFlags(argv, table);
  // Defaults are those of the run's own benchmark (and the core's), never another benchmark's.
  const withDefaults = (s: Settings): Settings => ({ ...runDefaults(s.task), ...s });
  if (typeof argv.experiment === 'string') {
    if (given.resume !== undefined) throw new UserError('--resume: give a run id without an experiment file (re-running the experiment resumes its runs)');
    const exp = loadExperiment(resolveExperimentPath(argv.experiment), table);
    return exp.runs.map((r) => withDefaults({ ...r, ...given }));
  }
  if (given.resume !== undefined) {
    const stored = manifestIfAny(resumeDir(withDefaults(given)));
    return [withDefaults({ ...(stored?.settings ?? {}), ...given })];
  }
  return [withDefaults(given)];
}

export function resultLine(r: RunResult): string {
  const s = r.summary;
  return `${r.runId}: ${s.n_done}/${s.n_planned} episodes, ${scoresText(s, readManifest(r.dir).metrics)}, errors ${s.n_errors}, tokens ${s.total_tokens}, cost $${s.cost_usd.toFixed(4)} [${r.status}] -> ${r.dir}`;
}

export async function runAll(runs: Settings[], deps: RunDeps, io: RunIO, out: (line: string) => void): Promise<number> {
  for (const settings of runs) {
    const res = derivedMethodOf(settings, deps) ? await executeCombination(settings, deps, io) : await executeRun(settings, deps, io);
    out(resultLine(res));
    if (res.fatal) throw res.fatal;
    if (res.status === 'interrupted') return 130;
  }
  return 0;
}

export const runCommand: CommandModule = {
  command: 'run [experiment]',
  describe: 'Run a method on a task split, or every run of an experiment file (experiments/<name>.json)',
  builder: (y: Argv) =>
    y
      .positional('experiment', { type: 'string', describe: 'Experiment file: {"defaults": {...}, "runs": [...]} with camelCase flag names; flags override it' })
      .options(yargsOptions(withoutDefaults(allRunOptions())))
      .example('$0 run --task hotpotqa --method react --limit 5 --base-url http://127.0.0.1:8000/v1 --model M', 'ReAct on the first 5 offline HotpotQA questions')
      .example('$0 run experiments/table1-hotpotqa.json --model gpt-3.5-turbo-instruct', 'all Table 1 methods on HotpotQA')
      .example('$0 run --task alfworld --method react --env-url http://127.0.0.1:36001 --indices 0,1,2 --base-url URL --model M', 'ReAct on three ALFWorld games'),
  handler: async (argv: ArgumentsCamelCase) => {
    const runs = resolveRuns(argv as Record<string, unknown>);
    const ac = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      process.stderr.write('\nreact-repro: interrupted; stopping (in-flight episodes are dropped, Ctrl-C again to quit now)\n');
      ac.abort();
    };
    process.on('SIGINT', onSigint);
    try {
      const io: RunIO = {
        progress: process.stderr,
        log: (l) => process.stderr.write(`react-repro: ${l}\n`),
        signal: ac.signal,
      };
      const code = await runAll(runs, realDeps, io, (l) => process.stdout.write(l + '\n'));
      if (code !== 0) process.exitCode = code;
    } catch (e) {
      if (e instanceof FatalRunError) throw e;
      throw e;
    } finally {
      process.off('SIGINT', onSigint);
    }
  },
};
