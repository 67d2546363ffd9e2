// `react-repro merge <dirs...> --out <dir>`: shard runs into one run.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { mergeRuns } from '../../run/merge.js';
import { readManifest } from '../../runlog/store.js';
import { scoresText } from '../scores.js';
import { UserError } from '../../errors.js';

/** --out, or --results-dir (then the run id names the folder: mergeRuns resolves it). */
function mergeOut(out: unknown, resultsDir: unknown): string | { resultsDir: string } {
  if ((out === undefined) === (resultsDir === undefined))
    throw new UserError('merge: give --out FOLDER or --results-dir DIR (one of them)');
  return out !== undefined ? String(out) : { resultsDir: String(resultsDir) };
}
import { checkWritableDir } from '../../util/safe-path.js';

export const mergeCommand: CommandModule = {
  command: 'merge <dirs..>',
  describe: 'Merge the shard runs (--shard K/N) of one configuration into one run folder',
  builder: (y: Argv) =>
    y
      .positional('dirs', { type: 'string', array: true, describe: 'Shard run folders' })
      .option('out', { type: 'string', describe: 'Folder for the merged run (new or empty)' })
      .option('results-dir', {
        type: 'string',
        describe:
          'Write the merged run to <results-dir>/<run id> instead of --out: `run --resume <run id> --results-dir <results-dir>` then resumes it',
      })
      .example('$0 merge results/*-s1of2-* results/*-s2of2-* --out results/merged', 'merge two shards'),
  handler: (argv: ArgumentsCamelCase) => {
    // checked first: a pseudo-filesystem or read-only folder is one line before any run is read
    const out = mergeOut(argv.out, argv.resultsDir);
    checkWritableDir(typeof out === 'string' ? out : out.resultsDir, typeof out === 'string' ? 'merge --out' : 'merge --results-dir');
    const r = mergeRuns((argv.dirs as string[]).map(String), out);
    const s = r.summary;
    if (r.overlapping > 0)
      process.stderr.write(
        `merge: ${r.overlapping} overlapping episode record${r.overlapping === 1 ? '' : 's'} dropped (per item, the latest valid record kept)\n`,
      );
    process.stdout.write(
      `${r.runId}: merged ${s.n_done}/${s.n_planned} episodes, ${scoresText(s, readManifest(r.dir).metrics)}, errors ${s.n_errors} -> ${r.dir}\n`,
    );
  },
};
