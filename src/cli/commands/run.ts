// PLACEHOLDER: replaced by the module that implements `react-repro run`.
import type { CommandModule } from 'yargs';

export const runCommand: CommandModule = {
  command: 'run',
  describe: '(not yet implemented)',
  handler: () => {
    throw new Error('not implemented');
  },
};
