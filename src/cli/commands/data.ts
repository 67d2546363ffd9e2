// PLACEHOLDER: replaced by the module that implements `react-repro data`.
import type { CommandModule } from 'yargs';

export const dataCommand: CommandModule = {
  command: 'data',
  describe: '(not yet implemented)',
  handler: () => {
    throw new Error('not implemented');
  },
};
