#!/usr/bin/env node
// The `catalogd` command: dispatches to the subcommands listed in commands.ts.
import { argv, exit, stderr, stdout } from 'node:process';
import { CommandError } from '../util/command-error.js';
import { subcommands } from './commands.js';

function usage(): string {
  const lines = Object.entries(subcommands).map(([n, s]) => `  ${n.padEnd(12)} ${s.summary}`);
  return ['usage: catalogd <command> [flags]', '', 'commands:', ...lines, ''].join('\n');
}

async function run(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    stderr.write(usage());
    return 2;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    stdout.write(usage());
    return 0;
  }
  const sub = subcommands[name];
  if (!sub) {
    stderr.write(`catalogd: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const mod = await sub.load();
  return mod.main(rest);
}

// A CommandError is the user's to fix: one line, no stack trace. Anything else is a bug and
// keeps its stack.
async function runReportingErrors(args: string[]): Promise<number> {
  try {
    return await run(args);
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
    stderr.write(`catalogd: ${err.message}\n`);
    return err.exitCode;
  }
}

exit(await runReportingErrors(argv.slice(2)));
