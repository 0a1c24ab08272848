// The HTTP server of `kubectl catalog ui`: loopback by default, every read through the client
// library with the caller's kubeconfig (routes.ts), the catalogs kept current (live.ts), and
// only requests addressed to this server by name answered. A browser's cross-site requests are
// refused (Sec-Fetch-Site); bound to an address other than loopback, the server also asks every
// request for the session's token (printed in its URL) or the cookie that token set.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIPv4, isIPv6 } from 'node:net';
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
  /** The console's URL; on an address other than loopback, with `?token=` the session's token. */
  url: string;
  /** Whether it listens on an address other than loopback (and asks for the token). */
  exposed: boolean;
  close(): Promise<void>;
}

/** The session of a console that asks for a token: the token, and the cookie it sets. */
interface Session {
  token: string;
  cookie: string;
}

/** Whether the address the server listens on is loopback (127.0.0.0/8, ::1, ::ffff:127.x). */
export function isLoopback(address: string): boolean {
  if (isIPv4(address)) return address.startsWith('127.');
  if (!isIPv6(address)) return false;
  const a = address.toLowerCase();
  return a === '::1' || a === '0:0:0:0:0:0:0:1' || a.startsWith('::ffff:127.');
}

/** Equal strings, compared in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The value of the cookie `name` in a Cookie header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i !== -1 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/**
 * Whether the request may go on under the session; otherwise answers it: the right `?token=`
 * sets the session cookie (HttpOnly, SameSite=Strict) and redirects to the same URL without the
 * token (303); a wrong token or cookie is refused (403), none asked for (401).
 */
function admitted(s: Session, req: IncomingMessage, res: ServerResponse): boolean {
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? '/', 'http://ui.invalid');
  } catch {
    url = undefined; // routes.ts answers 400 once admitted
  }
  const given = url?.searchParams.get('token');
  if (url && given !== null && given !== undefined) {
    if (!sameSecret(given, s.token)) {
      send(res, 403, 'text/plain', 'forbidden: wrong token\n');
      return false;
    }
    url.searchParams.delete('token');
    // Never `//host`: a path that starts so would send the browser to another site.
    const location = `/${url.pathname.replace(/^\/+/, '')}${url.search}`;
    send(res, 303, 'text/plain', 'signed in\n', {
      Location: location,
      'Set-Cookie': `${s.cookie}=${s.token}; HttpOnly; SameSite=Strict; Path=/`,
    });
    return false;
  }
  const cookie = cookieValue(req.headers.cookie, s.cookie);
  if (cookie === undefined) {
    send(
      res,
      401,
      'text/plain',
      'unauthorized: open the URL with ?token= that `kubectl catalog ui` printed\n',
      { 'WWW-Authenticate': 'Token realm="kubectl catalog ui"' },
    );
    return false;
  }
  if (!sameSecret(cookie, s.token)) {
    send(
      res,
      403,
      'text/plain',
      'forbidden: the session cookie is not this console’s; open the URL with ?token= it printed\n',
    );
    return false;
  }
  return true;
}

/**
 * The request handler. A page of another site could reach this loopback server by DNS
 * rebinding and read the catalogs with the user's credentials: only requests whose Host is one
 * of `hosts()` (known once listening) are answered. A browser says where a request comes from
 * (Sec-Fetch-Site): only requests of the console's own pages (`same-origin`) and of the user
 * (`none`: the address bar, a bookmark) are answered, and requests without the header (not a
 * browser, or one that does not send it). With a session, the request must carry its token.
 */
function handler(
  data: UiData,
  hosts: () => ReadonlySet<string>,
  session: () => Session | undefined,
) {
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
    const s = session();
    if (s && !admitted(s, req, res)) return;
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
  let session: Session | undefined;
  const server = createServer(
    handler(
      data,
      () => hosts,
      () => session,
    ),
  );
  let addr: AddressInfo;
  try {
    addr = await listen(server, opts.host, opts.port);
  } catch (err) {
    abort.abort();
    await live;
    throw err;
  }
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const exposed = !isLoopback(addr.address);
  // The session exists before any request is answered: until `hosts` is set, all get 421.
  if (exposed)
    session = { token: randomBytes(32).toString('base64url'), cookie: `catalog-ui-${addr.port}` };
  hosts = allowedHosts(host, addr.port);
  return {
    url: `http://${host}:${addr.port}/${session ? `?token=${session.token}` : ''}`,
    exposed,
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
