// PLACEHOLDER: replaced by the module that implements `react-repro wiki`.
import type { CommandModule } from 'yargs';

export const wikiCommand: CommandModule = {
  command: 'wiki',
  describe: '(not yet implemented)',
  handler: () => {
    throw new Error('not implemented');
  },
};
