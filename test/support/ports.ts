// A port for a process the tests start, which binds it only later (a controller, a registry).
// Port 0 would hand out a port of the kernel's ephemeral range, which every outgoing
// connection draws from too: between this check and the process's bind, a client socket of
// any process (the apiserver's, etcd's, a test's) may take it, and the process then fails with
// "address already in use". A port below that range is only taken by a listener that asks for
// it by number, so the window matters no more.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const lowest = 10_000;
const handedOut = new Set<number>();

/** The first port of the kernel's ephemeral range (Linux's default when it cannot be read). */
export function ephemeralLow(
  read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'),
): number {
  try {
    const low = Number(read().trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > lowest ? low : 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    // All addresses: taken there or on 127.0.0.1, the bind fails.
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}

/** A port no socket uses now, below the ephemeral range, never the same twice in a process. */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  for (let i = 0; i < 200; i++) {
    const port = lowest + Math.floor(Math.random() * (high - lowest));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${lowest} and ${high}`);
}
