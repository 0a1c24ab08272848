// The arguments of a `catalogd` command, parsed as every command parses them: a parse error is
// said with the usage (exit 2), --help prints the usage (exit 0); else the parsed arguments.
import { stderr, stdout } from 'node:process';

/** `parse` is the command's own node:util parseArgs call; a number is the exit code to return. */
export function commandArgs<T extends { values: { help?: boolean | undefined } }>(
  command: string,
  usage: string,
  parse: () => T,
): T | number {
  let parsed: T;
  try {
    parsed = parse();
  } catch (err) {
    stderr.write(`catalogd ${command}: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (parsed.values.help) {
    stdout.write(usage);
    return 0;
  }
  return parsed;
}
