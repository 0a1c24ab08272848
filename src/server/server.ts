// A node:http server (node:https with a certificate) that serves only the content handler (the
// controller may mount the handler in its own server instead), with the limits of a server facing
// a cluster's pods (SPEC §4, docs/bounds.md): a connection cap, and header, request, keep-alive and
// TLS handshake timeouts close to upstream catalogd's (its content server reads with a 5 s
// timeout). Without them, 15,000 idle connections of one client held the controller's memory from
// 118 to 229 MB, each idle socket for 60 to 90 s.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { capConnections } from './connection-cap.js';
import type { ConnectionCap } from './connection-cap.js';
import { DEFAULT_PATH_PREFIX, createContentHandler } from './handler.js';
import type { ContentHandlerOptions } from './handler.js';
import type { ServingPair } from './tls.js';
import { secureContextOptions } from './tls.js';

export interface ServerLimits {
  /**
   * Open connections at most (TLS handshakes included): at the cap a new connection closes the
   * oldest idle one, or is closed at once when all have a request in flight (connection-cap.ts).
   */
  maxConnections: number;
  /**
   * Time to receive a request's headers, from its first byte (for a new connection, from its
   * start: a connection that sends nothing is closed after it). Also the TLS handshake's bound.
   */
  headersTimeoutMs: number;
  /** Time to receive a whole request (headers and body); at least headersTimeoutMs. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/**
 * 5 s, as upstream catalogd's content server reads (ReadTimeout 5 s; Go's idle timeout is the read
 * timeout when unset). 512 connections: idle ones cost about 7 KB each (about 4 MB at the cap).
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxConnections: 512,
  headersTimeoutMs: 5000,
  requestTimeoutMs: 5000,
  keepAliveTimeoutMs: 5000,
};

/**
 * How often node looks for connections past their header or request timeout: a quarter of the
 * shorter one, at most a second (node's default, 30 s, let an idle socket live 60 to 90 s).
 */
function checkingIntervalMs(l: ServerLimits): number {
  return Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(l.headersTimeoutMs, l.requestTimeoutMs) / 4)),
  );
}

export interface ContentServerOptions extends ContentHandlerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Serve HTTPS with this certificate (tls.ts checks it); default plain HTTP. */
  tls?: Pick<ServingPair, 'cert' | 'key'>;
  /** Connection cap and timeouts; each defaults to DEFAULT_SERVER_LIMITS'. */
  limits?: Partial<ServerLimits> | undefined;
}

export interface ContentServer {
  /** `http://host:port` (`https://` with TLS), with the bound port. */
  url: string;
  server: Server;
  /** The connections counted against the cap, and those closed for it. */
  connections: ConnectionCap;
  /**
   * Serves another certificate to new connections (open ones keep theirs); only with `tls`.
   * Throws when node cannot make a context of it (the pair stays as it was).
   */
  setCertificate(pair: Pick<ServingPair, 'cert' | 'key'>): void;
  /** Stops accepting, closes idle keep-alive connections, waits for running requests. */
  close(): Promise<void>;
}

export async function startContentServer(opts: ContentServerOptions): Promise<ContentServer> {
  const handler = createContentHandler(opts);
  const limits = { ...DEFAULT_SERVER_LIMITS, ...opts.limits };
  const timeouts = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs(limits),
  };
  const tlsServer: HttpsServer | undefined = opts.tls
    ? createHttpsServer(
        {
          ...secureContextOptions(opts.tls),
          ...timeouts,
          handshakeTimeout: limits.headersTimeoutMs,
        },
        handler,
      )
    : undefined;
  const server: Server = tlsServer ?? createServer(timeouts, handler);
  const connections = capConnections(server, limits.maxConnections);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `${tlsServer ? 'https' : 'http'}://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    url,
    server,
    connections,
    setCertificate(pair) {
      if (!tlsServer)
        throw new Error('the content server serves plain HTTP: no certificate to set');
      tlsServer.setSecureContext(secureContextOptions(pair));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) =>
          err ? reject(new Error('cannot close the content server', { cause: err })) : resolve(),
        );
        server.closeIdleConnections();
      }),
  };
}

/** `<server-url><prefix>/<catalog>`: the ClusterCatalog's status.urls.base. */
export function catalogBaseUrl(
  serverUrl: string,
  catalog: string,
  pathPrefix = DEFAULT_PATH_PREFIX,
): string {
  return `${serverUrl.replace(/\/+$/, '')}${pathPrefix}/${catalog}`;
}

/**
 * The URL of one blob on the content server (a metas query by its schema, package and name): the
 * `contentOmitted.url` of an object whose content is not in the object. One function, so the
 * controller and `catalogd render` set the same URL.
 */
export function blobUrl(
  catalogBase: string,
  blob: { schema: string; package?: string | undefined; name?: string | undefined },
): string {
  const q = new URLSearchParams({ schema: blob.schema });
  if (blob.package !== undefined) q.set('package', blob.package);
  if (blob.name !== undefined) q.set('name', blob.name);
  return `${catalogBase}/api/v1/metas?${q.toString()}`;
}
