// PLACEHOLDER: replaced by the module that implements `react-repro merge`.
import type { CommandModule } from 'yargs';

export const mergeCommand: CommandModule = {
  command: 'merge',
  describe: '(not yet implemented)',
  handler: () => {
    throw new Error('not implemented');
  },
};
