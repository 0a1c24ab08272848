// A listen address flag (HOST:PORT or :PORT), checked.
import { CommandError } from '../util/command-error.js';

export interface HostPort {
  host: string;
  port: number;
}

export function hostPort(flag: string, addr: string): HostPort {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i) || '0.0.0.0';
  const port = Number(addr.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CommandError(
      `--${flag}: invalid address ${JSON.stringify(addr)}: want HOST:PORT or :PORT`,
    );
  }
  return { host, port };
}
