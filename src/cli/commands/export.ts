// `react-repro export`: the successful trajectories as fine-tuning data (FireAct's kind), or every
// episode as one flat JSON line (README "Publishable runs and exports"). Writes to --out or stdout.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UserError } from '../../errors.js';
import { defaultResultsDir } from '../../paths.js';
import {
  filterRuns,
  FINETUNE_STYLES,
  finetuneLines,
  finetuneMethodsOf,
  finetuneMethodsText,
  flatLines,
  loadRunsForExport,
  type FinetuneStyle,
} from '../../report/export.js';
import { episodeCorrectness } from '../../report/correct.js';
import { benchmarkNames, getBenchmark } from '../../benchmarks/registry.js';
import { checkOutputPath, writeOutputFile } from '../../util/durable.js';
import { forTerminal } from '../../util/terminal-text.js';
import { countOf } from '../../util/numbers.js';
import { examplesEpilog, listPositional } from '../yargs-options.js';

/** The registered benchmarks (the CLI registers the built-ins before loading this command). */
const benchmarks = () => benchmarkNames().map(getBenchmark);

export const exportCommand: CommandModule = {
  command: 'export [runs..]',
  describe: 'Write episodes as JSON lines: the successful trajectories as fine-tuning data (FireAct-style), or every episode flat',
  builder: (y: Argv) =>
    y
      .positional(
        'runs',
        listPositional('Run folders, or a folder of runs; an unreadable run folder is skipped with a warning, as report skips it', {
          shown: './results',
        }),
      )
      .option('format', {
        type: 'string',
        choices: ['finetune', 'jsonl'],
        demandOption: true,
        describe: 'finetune: successful trajectories as fine-tuning examples; jsonl: every episode, one flat object a line',
      })
      .option('style', {
        type: 'string',
        choices: [...FINETUNE_STYLES],
        describe:
          'With --format finetune: prompt-completion ({"prompt","completion"}), chat ({"messages"}, FireAct\'s GPT data) or alpaca ({"instruction","input","output"}, FireAct\'s Llama data) [default: prompt-completion]',
      })
      .option('method', {
        type: 'string',
        describe: `Only runs of these methods (comma list) [default: ${finetuneMethodsText(benchmarks())} with --format finetune, every method with --format jsonl]`,
      })
      .option('task', {
        type: 'string',
        describe: `Only runs of these benchmarks (comma list: ${benchmarkNames().join(', ')}) [default: all]`,
      })
      .option('metric', {
        type: 'string',
        describe:
          "With --format finetune: the metric that must be 1 for an episode to count as successful [default: correct as the run's benchmark says: its primary metric equal to 1 unless it declares otherwise]",
      })
      .option('out', { type: 'string', describe: 'Write to this file instead of stdout' })
      .epilog(
        examplesEpilog([
          [
            '$0 export results --format finetune --task hotpotqa --out react-hotpotqa-ft.jsonl',
            "successful ReAct trajectories on HotpotQA as FireAct's prompt/completion lines",
          ],
          ['$0 export results --format finetune --method act,react', 'Act and ReAct trajectories (the default is ReAct only)'],
          [
            "$0 export results --format jsonl | jq 'select(.metric_em != null) | .metric_em'",
            'every episode, flat (metrics null for error episodes)',
          ],
        ]),
      ),
  handler: (argv: ArgumentsCamelCase) => {
    const format = String(argv.format);
    if (format !== 'finetune' && (argv.style !== undefined || argv.metric !== undefined))
      throw new UserError(`--${argv.style !== undefined ? 'style' : 'metric'}: only with --format finetune`);
    const outFile = argv.out !== undefined ? checkOutputPath(String(argv.out), '--out') : undefined;
    const args = (argv.runs as string[] | undefined)?.length ? (argv.runs as string[]).map(String) : [defaultResultsDir()];
    const list = (flag: string, v: unknown): string[] | undefined => {
      if (v === undefined) return undefined;
      const items = String(v)
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (!items.length) throw new UserError(`${flag}: expected a comma list, e.g. ${flag === '--task' ? 'hotpotqa,fever' : 'react'}`);
      return items;
    };
    const methods = list('--method', argv.method);
    const tasks = list('--task', argv.task);
    // An unreadable run folder is skipped with one warning line, as report skips it; the count line says how many.
    const selected = loadRunsForExport(args, 'export');
    for (const n of selected.notes) process.stderr.write(`react-repro: ${forTerminal(n, { oneLine: true })}\n`);
    // Without --method, fine-tuning data is each run's benchmark's choice (Benchmark.finetuneMethods).
    const byDefault = methods === undefined && format === 'finetune';
    const runs = filterRuns(
      selected.runs,
      { ...(methods ? { methods } : byDefault ? { methodsOf: finetuneMethodsOf(benchmarks()) } : {}), ...(tasks ? { tasks } : {}) },
      {
        method: byDefault ? `--method (default with --format finetune: ${finetuneMethodsText(benchmarks())})` : '--method',
        task: '--task',
      },
    );
    // Correct (a successful trajectory, the jsonl's `correct`) as each run's benchmark says.
    const isCorrect = episodeCorrectness(benchmarks());
    let lines: string[];
    let done: string;
    if (format === 'finetune') {
      const r = finetuneLines(runs, isCorrect, {
        ...(argv.style !== undefined ? { style: String(argv.style) as FinetuneStyle } : {}),
        ...(argv.metric !== undefined ? { metric: String(argv.metric) } : {}),
      });
      lines = r.lines;
      const c = r.counts;
      const left = [
        c.unsuccessful && `${c.unsuccessful} unsuccessful`,
        c.errors && countOf(c.errors, 'error episode'),
        c.noSteps && `${c.noSteps} without environment steps (not interactive)`,
        c.noTask && `${c.noTask} without a task text`,
        c.derivedRuns && countOf(c.derivedRuns, 'combination run'),
      ].filter(Boolean);
      const which = [...new Set(runs.map((r) => r.manifest.method))].join(', ');
      done = `${countOf(c.examples, 'fine-tuning example')} from ${countOf(runs.length, 'run')} (method ${which})${left.length ? `; left out: ${left.join(', ')}` : ''}`;
    } else {
      lines = flatLines(runs, isCorrect);
      done = `${countOf(lines.length, 'episode')} from ${countOf(runs.length, 'run')}`;
    }
    if (selected.skipped)
      done += `; skipped ${countOf(selected.skipped, 'unreadable run folder')} (see the warning${selected.skipped === 1 ? '' : 's'} above)`;
    const text = lines.map((l) => l + '\n').join('');
    // What was written is said once it is written: never a count before a failed write.
    const say = () => process.stderr.write(`react-repro: ${done}\n`);
    if (outFile !== undefined) {
      writeOutputFile(outFile, text, { flag: '--out', what: 'the export' });
      say();
    } else process.stdout.write(text, (e) => e || say());
  },
};
