// The HTTP server of `kubectl catalog ui`: loopback by default, every read through the client
// library with the caller's kubeconfig (routes.ts), the catalogs kept current (live.ts), and
// only requests addressed to this server by name answered. A browser's cross-site requests are
// refused (Sec-Fetch-Site).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UiData } from './data.js';
import { keepCatalogsCurrent } from './live.js';
import { failed, route, send } from './routes.js';

interface UiServerOptions {
  data: UiData;
  host: string;
  port: number;
  /** How often the server re-reads the ClusterCatalogs besides its watch (default 30 s). */
  pollMs?: number;
}

interface UiServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The request handler. A page of another site could reach this loopback server by DNS
 * rebinding and read the catalogs with the user's credentials: only requests whose Host is one
 * of `hosts()` (known once listening) are answered. A browser says where a request comes from
 * (Sec-Fetch-Site): only requests of the console's own pages (`same-origin`) and of the user
 * (`none`: the address bar, a bookmark) are answered, and requests without the header (not a
 * browser, or one that does not send it).
 */
function handler(data: UiData, hosts: () => ReadonlySet<string>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (!hosts().has((req.headers.host ?? '').toLowerCase())) {
      send(res, 421, 'text/plain', 'misdirected request: unknown Host');
      return;
    }
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      send(res, 403, 'text/plain', 'forbidden: a request from another site\n');
      return;
    }
    route(data, req, res).catch((err: unknown) => failed(data, res, err));
  };
}

async function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server.address() as AddressInfo;
}

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const { data } = opts;
  await data.refreshCatalogs();
  const abort = new AbortController();
  const live = keepCatalogsCurrent(data, abort.signal, opts.pollMs);
  let hosts = new Set<string>();
  const server = createServer(handler(data, () => hosts));
  let addr: AddressInfo;
  try {
    addr = await listen(server, opts.host, opts.port);
  } catch (err) {
    abort.abort();
    await live;
    throw err;
  }
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  hosts = allowedHosts(host, addr.port);
  return {
    url: `http://${host}:${addr.port}/`,
    close: async () => {
      abort.abort();
      await live;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await data.close();
    },
  };
}

/** The Host header values of requests for this server: its address, and loopback names. */
function allowedHosts(host: string, port: number): Set<string> {
  const names = [host, 'localhost', '127.0.0.1', '[::1]'];
  return new Set(names.map((n) => `${n.toLowerCase()}:${port}`));
}
