// Errors a command reports as one line (`catalogd: <message>`, `error: <message>` for kubectl
// catalog) rather than a stack trace: the user's mistakes and the machine's state they can fix
// (a busy port, a bad flag, an unknown package). Shared by both programs, `catalogd` (src/cmd)
// and the kubectl plugin (src/plugin); a leaf, it imports nothing.

interface CommandErrorOptions extends ErrorOptions {
  /** The process's exit code (default 1; 2 for a usage error). */
  exitCode?: number;
}

export class CommandError extends Error {
  override name = 'CommandError';
  readonly exitCode: number;

  constructor(message: string, opts: CommandErrorOptions = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.exitCode = opts.exitCode ?? 1;
  }
}

/** A mistake in the command line (unknown command, flag or value): exit code 2. */
export function usageError(message: string): CommandError {
  return new CommandError(message, { exitCode: 2 });
}
