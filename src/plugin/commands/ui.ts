// `kubectl catalog ui`: the console (ui/). It parses its own flags (ui/command.ts), and its
// modules and markdown-it are loaded only when it runs, not by every other command.
import type { Io } from '../context.js';

export const ui = {
  name: 'ui',
  async run(argv: string[], io: Io): Promise<number> {
    const { runUi } = await import('../ui/command.js');
    return runUi(argv, io);
  },
};
