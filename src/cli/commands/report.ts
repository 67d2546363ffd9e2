// `react-repro report`: the paper's tables and figures for the runs given, ours beside the paper
// (md, csv, tex, html), or a run's trajectories.
import fs from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UserError } from '../../errors.js';
import { loadRun, loadRuns } from '../../report/load.js';
import { renderMarkdown } from '../../report/render-md.js';
import { renderTex } from '../../report/render-tex.js';
import { renderHtml } from '../../report/render-html.js';
import { renderCsv } from '../../report/render-csv.js';
import { renderTrajectories } from '../../report/trajectories.js';
import { parseIndices } from '../../run/shard.js';
import { writeFileAtomic } from '../../run/run-log.js';
import { defaultResultsDir } from '../../paths.js';
import { buildReport } from '../../report/build.js';
import { benchmarkNames, getBenchmark } from '../../benchmarks/registry.js';

export function renderReport(args: string[], format: string): string {
  const content = buildReport(loadRuns(args), benchmarkNames().map(getBenchmark));
  switch (format) {
    case 'md':
      return renderMarkdown(content);
    case 'tex':
      return renderTex(content);
    case 'html':
      return renderHtml(content);
    case 'csv':
      return renderCsv(content);
    default:
      throw new UserError(`--format: expected md, csv, tex or html, got "${format}"`);
  }
}

export const reportCommand: CommandModule = {
  command: 'report [runs..]',
  describe: "The paper's tables and figures (ours beside the paper's numbers) from run folders or a results folder; or --trajectories of a run",
  builder: (y: Argv) =>
    y
      .positional('runs', { type: 'string', array: true, describe: 'Run folders, or a folder of runs [default: ./results]' })
      .option('format', { type: 'string', choices: ['md', 'csv', 'tex', 'html'], default: 'md', describe: 'Output format' })
      .option('out', { type: 'string', describe: 'Write to this file instead of stdout' })
      .option('trajectories', { type: 'string', describe: 'Print the trajectories (traj) of this run folder instead' })
      .option('indices', { type: 'string', describe: 'With --trajectories: only these item indices (comma list)' })
      .example('$0 report results --format html --out table1.html', 'the whole results folder as a web page')
      .example('$0 report --trajectories results/<run-id> --indices 3687', 'read one trajectory'),
  handler: (argv: ArgumentsCamelCase) => {
    let text: string;
    if (argv.trajectories !== undefined) {
      const dir = path.resolve(String(argv.trajectories));
      if (!fs.existsSync(path.join(dir, 'manifest.json'))) throw new UserError(`--trajectories: ${argv.trajectories} is not a run folder (no manifest.json)`);
      text = renderTrajectories(loadRun(dir), argv.indices !== undefined ? parseIndices(String(argv.indices)) : undefined);
    } else {
      if (argv.indices !== undefined) throw new UserError('--indices: only with --trajectories');
      const runs = (argv.runs as string[] | undefined)?.length ? (argv.runs as string[]).map(String) : [defaultResultsDir()];
      text = renderReport(runs, String(argv.format));
    }
    if (argv.out !== undefined) writeFileAtomic(path.resolve(String(argv.out)), text);
    else process.stdout.write(text);
  },
};
