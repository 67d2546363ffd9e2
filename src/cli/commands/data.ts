// `react-repro data`: check the vendored files, and look at the benchmarks, their splits and items.
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { UserError } from '../../errors.js';
import { manifestPathIn, readManifest, verifyVendored } from '../../data/manifest.js';
import { repoRoot } from '../../paths.js';
import { benchmarkNames, getBenchmark, hasBenchmark, unknownBenchmark } from '../../benchmarks/registry.js';
import type { Benchmark } from '../../benchmarks/types.js';
import { parseLimit } from '../../options.js';
import { examplesEpilog } from '../yargs-options.js';

/** The benchmark a data command names as its argument (not the --task flag of `run`). */
function benchmarkArg(name: string, command: string): Benchmark {
  if (!hasBenchmark(name)) throw unknownBenchmark(name, command);
  return getBenchmark(name);
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A dataset index given on the command line: a non-negative integer. */
function parseIndex(raw: unknown): number {
  const s = String(raw).trim();
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(Number(s))) {
    throw new UserError(`<index> must be a non-negative integer, got ${JSON.stringify(String(raw))}`);
  }
  return Number(s);
}

interface VerifyArgs {
  root?: string;
}

const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: 'verify',
  describe: 'Check every file listed in data/manifest.json against its sha256',
  builder: (y) =>
    y
      .option('root', {
        type: 'string',
        describe: "Verify the tree at this folder against its own data/manifest.json (default: this package's tree)",
      })
      .epilog(examplesEpilog([['$0 data verify', 'check the vendored prompts, datasets and environment data']])),
  handler: async (args) => {
    const root = args.root === undefined ? repoRoot : path.resolve(args.root);
    const files = readManifest(manifestPathIn(root));
    const problems = new Map((await verifyVendored(files, root)).map((p) => [p.path, p]));
    for (const f of files) {
      const p = problems.get(f.path);
      if (!p) out(`OK       ${f.path}`);
      else if (p.problem === 'missing') out(`MISSING  ${f.path}`);
      else out(`CHANGED  ${f.path} (sha256 ${p.actual}, manifest says ${p.expected})`);
    }
    if (problems.size > 0) {
      const list = [...problems.values()].map((p) => `${p.path} (${p.problem})`).join(', ');
      throw new UserError(`data verify: ${problems.size} of ${files.length} files differ from data/manifest.json: ${list}`, 1);
    }
  },
};

interface SampleArgs {
  task: string;
  split: string;
  limit?: string;
}

const sampleCommand: CommandModule<object, SampleArgs> = {
  command: 'sample <task> <split>',
  describe: "Print a split's dataset indices, one per line, in run order",
  builder: (y) =>
    y
      .positional('task', { type: 'string', describe: `Benchmark: ${benchmarkNames().join(', ')}`, demandOption: true })
      .positional('split', { type: 'string', describe: 'Split name (see `data splits`)', demandOption: true })
      .option('limit', { type: 'string', describe: 'Only the first N indices (a positive integer)' })
      .epilog(examplesEpilog([['$0 data sample hotpotqa react500 --limit 10', "the paper's first ten questions"]])),
  handler: (args) => {
    const limit = parseLimit(args.limit);
    const split = benchmarkArg(args.task, 'data sample').split(args.split, { limit });
    process.stdout.write(split.indices.map((i) => `${i}\n`).join(''));
  },
};

interface SplitsArgs {
  task?: string;
}

const splitsCommand: CommandModule<object, SplitsArgs> = {
  command: 'splits [task]',
  describe: 'List the benchmarks and their splits with sizes and how each was made',
  builder: (y) =>
    y.positional('task', {
      type: 'string',
      describe: `Only this benchmark: ${benchmarkNames().join(', ')}`,
    }),
  handler: (args) => {
    const names = args.task === undefined ? benchmarkNames() : [args.task];
    const tasks = names.map((n) => benchmarkArg(n, 'data splits')); // unknown benchmark: error before any output
    for (const task of tasks) {
      out(`${task.name} (${task.size()} items: ${task.describe}; default split ${task.defaultSplit})`);
      for (const name of task.splitNames()) {
        const s = task.split(name);
        out(`  ${name.padEnd(15)} ${String(s.indices.length).padStart(5)}  ${s.description}`);
      }
    }
  },
};

interface ShowArgs {
  task: string;
  index: string;
}

const showCommand: CommandModule<object, ShowArgs> = {
  command: 'show <task> <index>',
  describe: 'Print one item (index, id, input, gold, extra fields) as JSON',
  builder: (y) =>
    y
      .positional('task', { type: 'string', describe: `Benchmark: ${benchmarkNames().join(', ')}`, demandOption: true })
      .positional('index', { type: 'string', describe: 'Item index (HotpotQA/FEVER: question_idx)', demandOption: true })
      .epilog(examplesEpilog([['$0 data show hotpotqa 3687', "the paper sample's first question"]])),
  handler: (args) => {
    const bench = benchmarkArg(args.task, 'data show');
    out(JSON.stringify(bench.item(parseIndex(args.index)), null, 2));
  },
};

/**
 * Usage errors under `data` stop the parse with one UserError line. (The program-wide fail handler
 * only records them, and yargs would then still run the handler with missing arguments.)
 */
function failFast(msg: string | null, err: Error | undefined): never {
  if (err) throw err;
  throw new UserError(`${msg ?? 'invalid arguments'} (see react-repro data --help)`);
}

export const dataCommand: CommandModule = {
  command: 'data',
  describe: 'Vendored data: verify checksums, list splits, print sample indices and examples',
  builder: (y) =>
    y
      .command(verifyCommand as CommandModule)
      .command(sampleCommand as CommandModule)
      .command(splitsCommand as CommandModule)
      .command(showCommand as CommandModule)
      .demandCommand(1, 'Name a data command: verify, sample, splits or show')
      .fail(failFast),
  handler: () => {},
};
