// Errors a command reports as one line (`catalogd: <message>`, `error: <message>` for kubectl
// catalog) rather than a stack trace: the user's mistakes and the machine's state they can fix
// (a busy port, a bad flag, an unknown package).

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

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available on this host',
};

/**
 * A failure to listen on `addr` (the value of `--<flag>`) as a CommandError naming the address,
 * the flag and how to choose another; any other error is returned unchanged.
 */
export function listenFailure(err: unknown, flag: string, addr: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const syscall = (err as { syscall?: unknown } | null)?.syscall;
  if (syscall !== 'listen' || typeof code !== 'string') return err;
  const why = LISTEN_FAILURES[code] ?? code;
  return new CommandError(
    `cannot listen on ${addr} for --${flag}: ${why}; choose another with --${flag}`,
    { cause: err },
  );
}

/** Runs `start` (which listens on `addr`), turning a listen failure into a CommandError. */
export async function listening<T>(
  flag: string,
  addr: string,
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (err) {
    throw listenFailure(err, flag, addr);
  }
}
