// The react-repro command line: one yargs program, one module per subcommand (src/cli/commands).
import yargs from 'yargs';
import type { CommandModule } from 'yargs';
import { InfraError, isUserFacing, UserError } from '../errors.js';
import '../benchmarks/builtin.js';
import { envCommand } from './commands/env.js';
import { dataCommand } from './commands/data.js';
import { wikiCommand } from './commands/wiki.js';
import { runCommand } from './commands/run.js';
import { mergeCommand } from './commands/merge.js';
import { reportCommand } from './commands/report.js';

export const commands: CommandModule<any, any>[] = [runCommand, reportCommand, mergeCommand, dataCommand, envCommand, wikiCommand];

/** Prints one line for user-facing errors (no stack); returns the exit code. */
export function reportError(e: unknown): number {
  if (isUserFacing(e)) {
    process.stderr.write(`react-repro: ${e.message}\n`);
    return 'exitCode' in e && typeof e.exitCode === 'number' ? e.exitCode : 1;
  }
  if (e instanceof InfraError) {
    process.stderr.write(`react-repro: ${e.source === 'llm' ? 'model endpoint' : 'environment'} unavailable: ${e.message}\n`);
    return 1;
  }
  process.stderr.write(`react-repro: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
  return 70;
}

export async function main(argv: string[]): Promise<number> {
  const cli = yargs(argv)
    .scriptName('react-repro')
    .usage('$0 <command> [options]\n\nReproduce ReAct (Yao et al., ICLR 2023) faithfully, on any OpenAI-compatible endpoint or a local GGUF model.')
    .command(commands)
    .demandCommand(1, 'Name a command: run, report, merge, data, env or wiki')
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns || 110))
    // Throwing stops yargs before any handler runs; main() prints the one line (no stack).
    .fail((msg, err) => {
      // yargs writes some messages (invalid choices) over several lines: one line is the contract.
      throw err ?? new UserError(`${msg.replace(/\s*\n\s*/g, ' ')} (see --help)`);
    })
    .exitProcess(false);
  try {
    await cli.parseAsync();
  } catch (e) {
    return reportError(e);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
