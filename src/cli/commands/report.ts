// PLACEHOLDER: replaced by the module that implements `react-repro report`.
import type { CommandModule } from 'yargs';

export const reportCommand: CommandModule = {
  command: 'report',
  describe: '(not yet implemented)',
  handler: () => {
    throw new Error('not implemented');
  },
};
