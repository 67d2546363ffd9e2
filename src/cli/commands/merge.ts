// `react-repro merge <dirs...> --out <dir>`: shard runs into one run (brief §5).
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { mergeRuns } from '../../run/merge.js';
import { fmt } from '../../report/table1.js';

export const mergeCommand: CommandModule = {
  command: 'merge <dirs..>',
  describe: 'Merge the shard runs (--shard K/N) of one configuration into one run folder',
  builder: (y: Argv) =>
    y
      .positional('dirs', { type: 'string', array: true, describe: 'Shard run folders' })
      .option('out', { type: 'string', demandOption: true, describe: 'Folder for the merged run (new or empty)' })
      .example('$0 merge results/*-s1of2-* results/*-s2of2-* --out results/merged', 'merge two shards'),
  handler: (argv: ArgumentsCamelCase) => {
    const r = mergeRuns((argv.dirs as string[]).map(String), String(argv.out));
    process.stdout.write(`${r.runId}: merged ${r.summary.n_done}/${r.summary.n_planned} episodes, EM ${fmt(r.summary.em)}, errors ${r.summary.n_errors} -> ${r.dir}\n`);
  },
};
