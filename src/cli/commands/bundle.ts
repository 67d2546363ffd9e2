// `react-repro bundle RUN_DIR... --out FILE`, and `run --from-bundle FILE` (dispatched here from
// run.ts): publishable runs that anyone re-runs offline, byte for byte (README "Publishable runs and exports").
import { JsonFields } from '../../util/json-fields.js';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { SIGNAL_EXIT, withInterrupts } from '../interrupts.js';
import { UserError } from '../../errors.js';
import { packBundle } from '../../run/bundle.js';
import { bundleSelection } from '../../run/bundle-select.js';
import { runFromBundle } from '../../run/from-bundle.js';
import { runFolders } from '../../report/load.js';
import { allRunOptions } from '../../run/deps.js';
import { givenFlags, kebabCase } from '../../run/options.js';
import type { RunIO } from '../../run/run-deps.js';
import { readManifest } from '../../runlog/store.js';
import { scoresText } from '../scores.js';
import { checkReadableFile } from '../../util/safe-path.js';
import { checkOutputPath, outputTarget } from '../../util/durable.js';
import { displayStream, forTerminal } from '../../util/terminal-text.js';
import { bytesText, countOf } from '../../util/numbers.js';
import { spendText, spendTokensText } from '../../run/meter.js';
import { examplesEpilog, listPositional } from '../yargs-options.js';

export const bundleCommand: CommandModule = {
  command: 'bundle [runs..]',
  describe:
    'Pack finished runs, the completions they used and every environment answer into one file that `run --from-bundle` re-runs offline',
  builder: (y: Argv) =>
    y
      .positional('runs', listPositional('Run folders, or a folder of run folders'))
      .option('out', { type: 'string', describe: 'The bundle to write (a .tar.gz: `tar xzf` opens it) [required]' })
      .option('cache-path', {
        type: 'string',
        describe: "The SQLite completion cache the runs used [default: the one each run's manifest names]",
      })
      .epilog(
        examplesEpilog([
          ['$0 bundle results/hotpotqa-react-* --out react-hotpotqa.tar.gz', 'publish the ReAct runs on HotpotQA'],
          ['$0 run --from-bundle react-hotpotqa.tar.gz --results-dir rerun', 're-run them with no model and no environment server'],
        ]),
      ),
  handler: (argv: ArgumentsCamelCase) => {
    const runs = ((argv.runs as string[] | undefined) ?? []).map(String);
    if (runs.length === 0)
      throw new UserError('bundle: name the finished run folders to pack, e.g. react-repro bundle results/RUN_ID --out run.tar.gz');
    if (typeof argv.out !== 'string' || argv.out === '')
      throw new UserError('bundle: --out FILE is required: the bundle to write, e.g. --out run.tar.gz');
    const out = checkOutputPath(String(argv.out), 'bundle --out');
    if (argv.cachePath !== undefined) checkReadableFile(String(argv.cachePath), 'bundle --cache-path');
    // Combinations and merges travel as their base runs and shards (bundle-select.ts).
    const { dirs, notes } = bundleSelection(runFolders(runs, 'bundle'));
    const r = packBundle(dirs, out, argv.cachePath !== undefined ? { cachePath: String(argv.cachePath) } : {});
    for (const n of notes) process.stderr.write(`react-repro: ${forTerminal(n, { oneLine: true })}\n`);
    const m = r.manifest;
    const episodes = m.runs.reduce((a, x) => a + x.episodes, 0);
    const calls = m.runs.reduce((a, x) => a + x.modelCalls, 0);
    const env = m.runs.reduce((a, x) => a + x.envCalls, 0);
    // The bundle itself may be going to stdout (--out /dev/stdout | ...): then its summary goes to stderr.
    const say = outputTarget(out, 'bundle --out').kind === 'replace' ? process.stdout : process.stderr;
    say.write(
      `${r.file}: ${countOf(m.runs.length, 'run')}, ${countOf(episodes, 'episode')}, ${countOf(calls, 'model call')} ` +
        `(${m.cache.entries} cache ${m.cache.entries === 1 ? 'entry' : 'entries'}: ${m.cache.fromCache} from the cache, ${m.cache.fromRecording} from recordings), ` +
        `${countOf(env, 'environment call')}; ${bytesText(r.bytes)}, sha256 ${r.sha256}\n`,
    );
  },
};

/** `run` flags of the invocation itself that make no sense with --from-bundle (the bundle has the settings). */
const SESSION_FLAGS = ['dryRun', 'maxCost', 'maxConsecutiveFailures'];

/** `run --from-bundle FILE [--results-dir DIR]` (run.ts calls this before anything else). */
export async function runFromBundleCommand(argv: Record<string, unknown>): Promise<void> {
  const a = JsonFields.orEmpty(argv);
  const file = a.get('fromBundle');
  if (typeof file !== 'string' || file === '')
    throw new UserError('--from-bundle: expected the path of a bundle file (react-repro bundle ... --out FILE)');
  if (a.get('experiment') !== undefined)
    throw new UserError('--from-bundle: give no experiment file (the bundle holds the settings of its runs)');
  const given = givenFlags(argv, allRunOptions());
  const extra = [...Object.keys(given).filter((k) => k !== 'resultsDir'), ...SESSION_FLAGS.filter((k) => a.get(k) !== undefined)];
  if (extra.length)
    throw new UserError(
      `--from-bundle re-runs the bundle's runs with their recorded settings: it takes only --results-dir (not --${kebabCase(extra[0])})`,
    );
  const resultsDir = JsonFields.orEmpty(given).str('resultsDir');
  await withInterrupts(async (scope) => {
    const io: RunIO = {
      progress: displayStream(process.stderr),
      log: (l) => process.stderr.write(`react-repro: ${forTerminal(l, { oneLine: true })}\n`),
      signal: scope.signal,
    };
    const runs = await runFromBundle(file, { options: allRunOptions(), ...(resultsDir !== undefined ? { resultsDir } : {}) }, io);
    for (const r of runs) {
      const s = r.summary;
      const scores = scoresText(s, readManifest(r.dir).metrics);
      if (r.status === 'complete') {
        // What this command paid for, as `run` says it (nothing: no model was asked).
        const paid = `this command spent ${spendTokensText(r.spent)}, ${spendText(r.spent)}`;
        process.stdout.write(
          `${r.runId}: re-ran ${countOf(r.compared, 'episode')} from ${path.basename(file)} with no model and no environment server: identical to the bundle (latency_ms aside); ${paid}; ${scores}, errors ${s.n_errors} (as recorded) -> ${r.dir}\n`,
        );
      } else {
        process.stdout.write(
          `${r.runId}: ${s.n_done}/${s.n_planned} episodes re-run [${r.status}]; re-run the bundle into an empty --results-dir to compare -> ${r.dir}\n`,
        );
        process.exitCode = SIGNAL_EXIT[scope.stoppedBy() ?? 'SIGINT'];
      }
    }
  });
}
