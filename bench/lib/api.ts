// A minimal apiserver client for the benchmarks: one keep-alive https.Agent with the kubeconfig's
// client certificate, raw requests (pre-serialized bodies), and line-delimited watches. This is
// also "the raw limit" client of SPEC §7: nothing between the caller and the socket but node:https.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { load } from 'js-yaml';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../../src/api/v1/index.js';
import { Http1Pool } from '../../src/kube/http1.js';
import { LineSplitter } from '../../src/kube/json-lines.js';

/** The API paths of CatalogMetadata and ClusterCatalogs. */
export const CM = `/apis/${GROUP}/${VERSION}/${CATALOG_METADATA_PLURAL}`;
export const CC = `/apis/${GROUP}/${VERSION}/clustercatalogs`;
/** What the controller's drift watch and its writes ask for. */
export const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
/** The same metadata-only representation in protobuf. */
export const METADATA_ONLY_PROTOBUF =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

export interface Response {
  status: number;
  body: string;
  /** The body as received (for binary responses such as pprof profiles). */
  bytes: Buffer;
}

export interface WatchEvent {
  type: string;
  object: {
    metadata: {
      name: string;
      resourceVersion?: string;
      annotations?: Record<string, string>;
      generation?: number;
    };
    status?: Record<string, unknown>;
  };
}

export class Api {
  readonly server: URL;
  readonly agent: https.Agent;
  private readonly tls: https.RequestOptions;

  private constructor(server: URL, tls: https.RequestOptions, maxSockets: number) {
    this.server = server;
    this.tls = tls;
    this.agent = new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** From a kubeconfig's current context: client certificate or bearer token (data or files). */
  static fromKubeconfig(file: string, maxSockets = 64): Api {
    type Named<T> = Array<{ name: string } & T>;
    const kc = load(readFileSync(file, 'utf8')) as {
      'current-context': string;
      contexts: Named<{ context: { cluster: string; user: string } }>;
      clusters: Named<{ cluster: Record<string, string | boolean> }>;
      users: Named<{ user: Record<string, string> }>;
    };
    const ctx = kc.contexts.find((c) => c.name === kc['current-context'])?.context;
    const cluster = kc.clusters.find((c) => c.name === ctx?.cluster)?.cluster;
    const user = kc.users.find((u) => u.name === ctx?.user)?.user ?? {};
    if (!cluster) throw new Error(`${file}: no current cluster`);
    const dir = path.dirname(file);
    const pem = (o: Record<string, unknown>, k: string): Buffer | undefined => {
      const data = o[`${k}-data`];
      if (typeof data === 'string') return Buffer.from(data, 'base64');
      const f = o[k];
      if (typeof f === 'string') return readFileSync(path.resolve(dir, f));
      return undefined;
    };
    const tls: https.RequestOptions = {};
    const ca = pem(cluster, 'certificate-authority');
    const cert = pem(user, 'client-certificate');
    const key = pem(user, 'client-key');
    if (ca) tls.ca = ca;
    if (cert) tls.cert = cert;
    if (key) tls.key = key;
    if (cluster['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
    if (user.token) tls.headers = { Authorization: `Bearer ${user.token}` };
    return new Api(new URL(String(cluster.server)), tls, maxSockets);
  }

  /**
   * The controller's write pool (src/kube/http1.ts) to the same server with the same
   * credentials, and the headers its requests carry: the raw loop over the controller's
   * transport instead of node:https.
   */
  http1Pool(maxConnections: number): { pool: Http1Pool; headers: Record<string, string> } {
    const { ca, cert, key, rejectUnauthorized } = this.tls;
    const pem = (x: unknown) => x as string | Buffer | undefined;
    const pool = new Http1Pool(
      {
        protocol: 'https:',
        hostname: this.server.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: Number(this.server.port) || 443,
        host: this.server.host,
        secureContext: tls.createSecureContext({
          ...(ca !== undefined && { ca: pem(ca) }),
          ...(cert !== undefined && { cert: pem(cert) }),
          ...(key !== undefined && { key: pem(key) }),
        }),
        rejectUnauthorized: rejectUnauthorized !== false,
      },
      maxConnections,
    );
    return { pool, headers: { ...(this.tls.headers as Record<string, string> | undefined) } };
  }

  /** A new client with its own agent (its own connections), e.g. one per concurrency level. */
  withSockets(maxSockets: number): Api {
    return new Api(this.server, this.tls, maxSockets);
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * One request; retried (up to 3 times) when a kept-alive connection turns out to be closed by
   * the server (ECONNRESET, "socket hang up"), the usual race of keep-alive clients.
   */
  async request(
    method: string,
    path: string,
    body?: Buffer | string,
    contentType = 'application/json',
    accept = 'application/json',
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(method, path, body, contentType, accept);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (attempt >= 3 || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
      }
    }
  }

  private once(
    method: string,
    path: string,
    body: Buffer | string | undefined,
    contentType: string,
    accept: string,
  ): Promise<Response> {
    const url = new URL(path, this.server);
    return new Promise((resolve, reject) => {
      const req = https.request(
        url,
        {
          ...this.tls,
          method,
          agent: this.agent,
          headers: {
            ...(this.tls.headers as Record<string, string> | undefined),
            Accept: accept,
            ...(body !== undefined && {
              'Content-Type': contentType,
              'Content-Length': Buffer.byteLength(body),
            }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, body: bytes.toString(), bytes });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const r = await this.request(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      contentType,
    );
    if (r.status < 200 || r.status > 299)
      throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 500)}`);
    return JSON.parse(r.body) as T;
  }

  /**
   * Closes the idle kept-alive connections. After an apiserver restart every one of them is dead,
   * and a request (3 attempts) could draw three of them in a row.
   */
  dropIdleConnections(): void {
    for (const sockets of Object.values(this.agent.freeSockets))
      for (const s of sockets ?? []) s.destroy();
  }

  /**
   * Streams watch events of `path` (a list URL; watch=1 is added) until stop() is called.
   * `ready` resolves when the apiserver has answered (the watch is open: on an apiserver just
   * restarted, the answer waits for its watch cache) and rejects if the request fails first.
   */
  watch(
    path: string,
    onEvent: (e: WatchEvent, at: number) => void,
    accept?: string,
  ): { stop(): void; ready: Promise<void> } {
    // Every event of a chunk is stamped with the chunk's arrival.
    let at = 0;
    const lines = new LineSplitter((e) => onEvent(e as WatchEvent, at));
    return this.watchChunks(path, accept, (c) => {
      at = performance.now();
      lines.push(c);
    });
  }

  /** A watch as watch() opens it, its response only counted (bytes per chunk): any encoding. */
  watchBytes(
    path: string,
    onBytes: (n: number) => void,
    accept: string,
  ): { stop(): void; ready: Promise<void> } {
    return this.watchChunks(path, accept, (c) => onBytes(c.length));
  }

  private watchChunks(
    path: string,
    accept: string | undefined,
    onChunk: (c: Buffer) => void,
  ): { stop(): void; ready: Promise<void> } {
    const url = new URL(path, this.server);
    url.searchParams.set('watch', '1');
    url.searchParams.set('allowWatchBookmarks', 'false');
    const req = https.request(url, {
      ...this.tls,
      method: 'GET',
      agent: false,
      headers: {
        ...(this.tls.headers as Record<string, string> | undefined),
        ...(accept !== undefined && { Accept: accept }),
      },
    });
    const ready = new Promise<void>((resolve, reject) => {
      req.once('response', () => resolve());
      req.once('error', reject);
    });
    // stop() before the answer, or a failed request: said through `ready` only if awaited.
    ready.catch(() => undefined);
    req.on('response', (res) => {
      res.on('data', onChunk);
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end();
    return { stop: () => req.destroy(), ready };
  }
}
