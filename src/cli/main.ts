// The react-repro command line: one yargs program, one module per subcommand (src/cli/commands).
// Commands load lazily: only the module of the command being run is imported, so `--help` and
// `data verify` start without the model layer, SQLite or the report code (bench/cli.ts measures it).
import fs from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import type { CommandModule } from 'yargs';
import { InfraError, isUserFacing, UserError } from '../errors.js';
import { isInstalledPackage, repoRoot } from '../paths.js';
import { prefetchGitFacts } from '../util/git-facts.js';
import { forTerminal } from '../util/terminal-text.js';
import { watchStdio } from './stdio.js';
import { flagSuggestion } from './flag-suggestion.js';
import { helpWanted, helpWidth, setHelpText } from './yargs-options.js';

export { exitWhenFlushed } from './stdio.js';

// yargs' CommandModule is generic over each command's own argument types; the table holds them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCommand = CommandModule<any, any>;

/** A subcommand as the top-level help lists it, and how to load its module when it is run. */
export interface CommandEntry {
  name: string;
  /** Exactly the module's `command` and `describe` (test/package/lazy-cli.test.ts checks they match). */
  command: string;
  describe: string;
  load(): Promise<AnyCommand>;
  /** Whether the built-in benchmarks must be registered first, given the arguments after the name. */
  needsBenchmarks(rest: string[]): boolean;
}

const always = () => true;
const never = () => false;

export const commandTable: CommandEntry[] = [
  {
    name: 'run',
    command: 'run [experiment]',
    describe: 'Run a method on a task split, or every run of an experiment file (experiments/<name>.json)',
    load: async () => (await import('./commands/run.js')).runCommand,
    needsBenchmarks: always,
  },
  {
    name: 'report',
    command: 'report [runs..]',
    describe:
      "The paper's tables and figures (ours beside the paper's numbers) from run folders or a results folder; or --trajectories of a run",
    load: async () => (await import('./commands/report.js')).reportCommand,
    needsBenchmarks: always,
  },
  {
    name: 'merge',
    command: 'merge <dirs..>',
    describe: 'Merge the shard runs (--shard K/N) of one configuration into one run folder',
    load: async () => (await import('./commands/merge.js')).mergeCommand,
    // The retry command it prints names a run's flags as the run command takes them (their option specs).
    needsBenchmarks: always,
  },
  {
    name: 'data',
    command: 'data',
    describe: 'Vendored data: verify checksums, list splits, print sample indices and examples',
    load: async () => (await import('./commands/data.js')).dataCommand,
    // `data verify` only hashes files; sample/splits/show read the benchmarks' items.
    needsBenchmarks: (rest) => firstWord(rest) !== 'verify',
  },
  {
    name: 'env',
    command: 'env',
    describe: "Step a benchmark's environment by hand",
    load: async () => (await import('./commands/env.js')).envCommand,
    needsBenchmarks: always,
  },
  {
    name: 'bundle',
    command: 'bundle [runs..]',
    describe:
      'Pack finished runs, the completions they used and every environment answer into one file that `run --from-bundle` re-runs offline',
    load: async () => (await import('./commands/bundle.js')).bundleCommand,
    // `run --from-bundle` replays through the registered benchmarks.
    needsBenchmarks: always,
  },
  {
    name: 'export',
    command: 'export [runs..]',
    describe: 'Write episodes as JSON lines: the successful trajectories as fine-tuning data (FireAct-style), or every episode flat',
    load: async () => (await import('./commands/export.js')).exportCommand,
    // Its help and defaults say which methods each benchmark's fine-tuning data come from.
    needsBenchmarks: always,
  },
  {
    name: 'wiki',
    command: 'wiki <command>',
    describe: 'Use the Wikipedia environment by hand; build and inspect offline snapshots',
    load: async () => (await import('./commands/wiki.js')).wikiCommand,
    needsBenchmarks: never,
  },
];

function firstWord(args: string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'));
}

/** What the top-level help shows for a command that is not being run (its module is not loaded). */
function stub(e: CommandEntry): CommandModule {
  return {
    command: e.command,
    describe: e.describe,
    handler: () => {
      throw new Error(`command ${e.name} ran without its module`);
    },
  };
}

/** The modules yargs needs for these arguments: the named command's own, stubs for the rest. */
export async function commandsFor(argv: string[]): Promise<AnyCommand[]> {
  const name = firstWord(argv);
  const entry = commandTable.find((e) => e.name === name);
  if (!entry) return commandTable.map(stub);
  const rest = argv.slice(argv.indexOf(entry.name) + 1);
  if (entry.needsBenchmarks(rest)) await import('../benchmarks/builtin.js');
  const loaded = await entry.load();
  return commandTable.map((e) => (e === entry ? loaded : stub(e)));
}

/** Our own version (yargs would read the package.json nearest to yargs, the host project's when installed). */
function packageVersion(): string {
  try {
    return String(JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
  } catch {
    return 'unknown';
  }
}

/** Prints one line for user-facing errors (no stack); returns the exit code. */
export function reportError(e: unknown): number {
  if (isUserFacing(e)) {
    process.stderr.write(`react-repro: ${forTerminal(e.message, { oneLine: true })}\n`);
    return 'exitCode' in e && typeof e.exitCode === 'number' ? e.exitCode : 1;
  }
  if (e instanceof InfraError) {
    process.stderr.write(
      `react-repro: ${e.source === 'llm' ? 'model endpoint' : 'environment'} unavailable: ${forTerminal(e.message, { oneLine: true })}\n`,
    );
    return 1;
  }
  process.stderr.write(`react-repro: internal error: ${forTerminal((e as Error)?.stack ?? String(e))}\n`);
  return 70;
}

/**
 * yargs renders the command's whole help text as its handler starts, to have it ready should the
 * handler fail; our failures print one line (no help), so unless help was asked for that rendering
 * (tens of milliseconds for `run`) only delays the first request. Skipped through yargs' internal
 * usage object when it has the expected shape; otherwise yargs behaves as shipped.
 */
function skipHelpCache(cli: unknown): void {
  const usage = (cli as { getInternalMethods?: () => { getUsageInstance?: () => Record<string, unknown> } })
    .getInternalMethods?.()
    .getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/** Commands that write a manifest (software.git): git is asked while their modules load. */
const WRITES_MANIFEST = new Set(['run', 'bundle']);

/**
 * The flags of the command yargs refused a line of: its usage's descriptions, which yargs (18) hands
 * the fail callback in place of its typed third argument; none when that changes.
 */
function commandFlags(usage: unknown): string[] {
  const d = (usage as { getDescriptions?: () => unknown } | undefined)?.getDescriptions?.();
  return d && typeof d === 'object' ? Object.keys(d).filter((k) => !/[A-Z]/.test(k)) : [];
}

export async function main(argv: string[]): Promise<number> {
  watchStdio();
  const help = helpWanted(argv);
  setHelpText(help);
  if (!help && !isInstalledPackage && WRITES_MANIFEST.has(firstWord(argv) ?? '')) void prefetchGitFacts(repoRoot);
  let commands: AnyCommand[];
  try {
    commands = await commandsFor(argv);
  } catch (e) {
    return reportError(e);
  }
  const cli = yargs(argv)
    .scriptName('react-repro')
    .usage(
      '$0 <command> [options]\n\nReproduce ReAct (Yao et al., ICLR 2023) faithfully, on any OpenAI-compatible endpoint or a local GGUF model.',
    )
    .command(commands)
    .demandCommand(1, `Name a command: ${commandTable.map((e) => e.name).join(', ')}`)
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(packageVersion())
    .wrap(helpWidth())
    // Throwing stops yargs before any handler runs; main() prints the one line (no stack).
    .fail((msg, err, usage) => {
      // yargs writes some messages (invalid choices) over several lines: one line is the contract.
      const line = msg?.replace(/\s*\n\s*/g, ' ');
      throw err ?? new UserError(`${line}${flagSuggestion(line ?? '', commandFlags(usage))} (see --help)`);
    })
    .exitProcess(false);
  if (!help) skipHelpCache(cli);
  try {
    await cli.parseAsync();
  } catch (e) {
    return reportError(e);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
