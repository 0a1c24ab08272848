// A failure to listen on a flag's address (a busy port, a privileged one) as a CommandError that
// names the address and the flag: `catalogd controller`'s --server-addr, --health-addr and
// --metrics-addr.
import { CommandError } from '../util/command-error.js';

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
