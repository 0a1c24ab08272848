// A node:http server (node:https with a certificate) that serves only the content handler (the
// controller may mount the handler in its own server instead).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PATH_PREFIX, createContentHandler } from './handler.js';
import type { ContentHandlerOptions } from './handler.js';
import type { ServingPair } from './tls.js';
import { secureContextOptions } from './tls.js';

export interface ContentServerOptions extends ContentHandlerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Serve HTTPS with this certificate (tls.ts checks it); default plain HTTP. */
  tls?: Pick<ServingPair, 'cert' | 'key'>;
}

export interface ContentServer {
  /** `http://host:port` (`https://` with TLS), with the bound port. */
  url: string;
  server: Server;
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
  const tlsServer: HttpsServer | undefined = opts.tls
    ? createHttpsServer(secureContextOptions(opts.tls), handler)
    : undefined;
  const server: Server = tlsServer ?? createServer(handler);
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
