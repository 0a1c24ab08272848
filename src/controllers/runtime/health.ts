// The probe and metrics HTTP endpoints, on node:http:
// - /healthz (liveness): is the process working at all (restart it if not);
// - /readyz (readiness): may it serve (e.g. informers synced, not shutting down);
// - /metrics: a prom-client registry.
// Responses follow the apiserver's healthz format: "ok", or one "[+]name ok" /
// "[-]name failed: reason" line per check and 503 when any check fails; ?verbose lists
// the checks on success too; /readyz/<name> runs one check.
// Plain HTTP, or HTTPS with TLS options given (the metrics server with a serving certificate);
// a guard, when given, is asked first about every request (delegated-access.ts for /metrics).
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { Registry } from 'prom-client';

/** A named check: fails by returning false or throwing (the error message is reported). */
export type Check = () => boolean | void | Promise<boolean | void>;

export interface CheckResult {
  name: string;
  ok: boolean;
  reason?: string;
}

/** A set of named checks that components register themselves into. */
export class HealthChecks {
  readonly #checks = new Map<string, Check>();

  constructor(readonly kind: 'healthz' | 'readyz') {}

  /** Registers a check; names are unique and must be URL path segments. */
  add(name: string, check: Check): void {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`invalid check name "${name}"`);
    if (this.#checks.has(name)) throw new Error(`${this.kind} check "${name}" already exists`);
    this.#checks.set(name, check);
  }

  remove(name: string): void {
    this.#checks.delete(name);
  }

  names(): string[] {
    return [...this.#checks.keys()];
  }

  has(name: string): boolean {
    return this.#checks.has(name);
  }

  /** Runs the checks (all, or the one named) concurrently, in registration order. */
  async run(only?: string): Promise<CheckResult[]> {
    const entries = [...this.#checks].filter(([name]) => only === undefined || name === only);
    return Promise.all(entries.map(([name, check]) => runCheck(name, check)));
  }
}

async function runCheck(name: string, check: Check): Promise<CheckResult> {
  try {
    const ok = (await check()) !== false;
    return ok ? { name, ok } : { name, ok, reason: 'check returned false' };
  } catch (err) {
    return { name, ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Something with a name that reports whether its first list completed (an Informer). */
export interface SyncSource {
  readonly name: string;
  hasSynced(): boolean;
}

/** A readiness check that fails until every source has synced, naming those that have not. */
export function syncedCheck(sources: SyncSource[]): Check {
  return () => {
    const pending = sources.filter((s) => !s.hasSynced()).map((s) => s.name);
    if (pending.length > 0) throw new Error(`not synced: ${pending.join(', ')}`);
  };
}

export interface ProbeServerOptions {
  /** Serves /healthz when set. */
  healthz?: HealthChecks;
  /** Serves /readyz when set. */
  readyz?: HealthChecks;
  /** Serves /metrics when set. */
  metrics?: Registry;
  host?: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Serve HTTPS with these options (certificate, key, protocol); default plain HTTP. */
  tls?: SecureContextOptions;
  /** Asked before every request is answered; a refusal is sent instead of the answer. */
  guard?: RequestGuard;
}

/** A request refused by a guard: its status, one line of text, and headers. */
export interface GuardRefusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Admits a request (undefined) or refuses it; `path` is the URL's path, without the query. */
export type RequestGuard = (
  req: IncomingMessage,
  path: string,
) => Promise<GuardRefusal | undefined>;

export interface ProbeServer {
  /** http(s)://host:port of the listening socket. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
  /** New TLS options (a reloaded certificate) for new connections; only with `tls`. */
  setSecureContext(options: SecureContextOptions): void;
}

/** Starts the endpoints; resolves once listening. Serve health and metrics on one or two ports. */
export async function startProbeServer(opts: ProbeServerOptions): Promise<ProbeServer> {
  const listener: RequestListener = (req, res) => {
    handle(opts, req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  };
  const tlsServer = opts.tls ? createHttpsServer(opts.tls, listener) : undefined;
  const server: Server = tlsServer ?? createServer(listener);
  // Probes and scrapes are short; do not let idle keep-alive sockets delay close().
  server.keepAliveTimeout = 5_000;
  const host = opts.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `${tlsServer ? 'https' : 'http'}://${shown}:${port}`,
    port,
    close: () => closeServer(server),
    setSecureContext(options) {
      if (!tlsServer) throw new Error('setSecureContext: this probe server serves plain HTTP');
      tlsServer.setSecureContext(options);
    },
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
}

async function handle(
  opts: ProbeServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://probe');
  const refusal = await opts.guard?.(req, url.pathname);
  if (refusal) {
    send(res, req, refusal.status, `${refusal.message}\n`, refusal.headers);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, req, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    return;
  }
  const [, first, second, ...rest] = url.pathname.split('/');
  if (first === 'metrics' && second === undefined && opts.metrics) {
    const body = await opts.metrics.metrics();
    send(res, req, 200, body, { 'content-type': opts.metrics.contentType });
    return;
  }
  const checks = first === 'healthz' ? opts.healthz : first === 'readyz' ? opts.readyz : undefined;
  if (checks === undefined || rest.length > 0 || (second !== undefined && !checks.has(second))) {
    send(res, req, 404, 'not found\n');
    return;
  }
  const results = await checks.run(second);
  const failed = results.filter((r) => !r.ok);
  const verbose = url.searchParams.has('verbose');
  if (failed.length === 0 && !verbose) {
    send(res, req, 200, 'ok\n');
    return;
  }
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason}`));
  lines.push(failed.length === 0 ? `${checks.kind} check passed` : `${checks.kind} check failed`);
  send(res, req, failed.length === 0 ? 200 : 503, lines.join('\n') + '\n');
}

function send(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
