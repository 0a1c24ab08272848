// The one connection to the apiserver. The kubeconfig (or in-cluster config) is read by
// kubeconfig.ts; requests go through kept-alive connections, because client-node opens a new
// TLS connection per request by default and a catalog sync makes tens of thousands of requests.
// Writes whose responses are discarded (a sync's creates, updates and deletes) go through
// http1.ts's pool, which spends about half node:https's CPU per request; everything else
// (reads, lists, watches, proxied content) through one keep-alive https.Agent. Not undici: its
// HTTP/1.1 parser (WebAssembly) added about 16 MB to the controller's RSS, and over HTTP/2 (its
// default) the apiserver spent about 0.35 ms more per write (bench/README.md, stop 18).
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { RequestRetry } from '../util/backoff.js';
import type { Http1Pool } from './http1.js';
import { requestRetryDelay } from '../util/backoff.js';
import { LineSplitter } from './json-lines.js';
import { KubeApiError, abortError, abortGroups, apiError, isNetworkError } from './errors.js';
import type { ClientCredentials, ClusterConnection } from './kubeconfig.js';
import { loadConnection, machineKubeconfigEnv } from './kubeconfig.js';
import type { KubeClientOptions, RequestOptions, ResponseInfo } from './request-options.js';

/** requestRetry's waits (src/util/backoff.ts) in real time, for callers that inject none. */
const defaultRequestRetry: RequestRetry = {
  retryDelay: (attempt, retryAfterMs) => requestRetryDelay(attempt, retryAfterMs),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
};

/** Credentials are re-read this often, so rotated in-cluster tokens are picked up. */
const AUTH_REFRESH_MS = 60_000;

export class KubeClient {
  readonly server: URL;
  private readonly basePath: string;
  private readonly hostname: string;
  private readonly connection: ClusterConnection;
  private readonly agentOptions: http.AgentOptions;
  /** The kept-alive connections of the current client identity (TLS client certificate). */
  private pool?: ConnectionPool;
  /** Every agent made, the retired ones too (close() ends their requests still in flight). */
  private readonly agents = new Set<http.Agent>();
  /** Every write pool made (http1.ts), the retired ones too, for close(). */
  private readonly writePools = new Set<Http1Pool>();
  /** Most connections of each pool: the agent's and the write pool's. */
  private readonly maxSockets: number;
  private readonly attempts: number;
  private readonly retry: RequestRetry;
  private readonly onRequest: NonNullable<KubeClientOptions['onRequest']>;
  /** The CA bundle as a string (tls.createSecureContext's input). */
  private readonly ca?: string;
  private auth?: { value: Promise<RequestCredentials>; at: number };
  private readonly now: () => number;

  constructor(opts: KubeClientOptions = {}) {
    // Loaded only for a user whose credentials come from a plugin (delegated-auth.ts): the
    // client library's entry point stays small for everyone else.
    let delegate: Promise<(contextName: string) => Promise<ClientCredentials>> | undefined;
    this.connection = loadConnection(
      opts.kubeconfig,
      opts.env ?? machineKubeconfigEnv(),
      (_, ctx) => {
        delegate ??= import('./delegated-auth.js').then((m) =>
          m.clientNodeCredentials(opts.kubeconfig),
        );
        return delegate.then((d) => d(ctx));
      },
    );
    this.server = this.connection.server;
    // A server URL with a path (a proxy, Rancher) prefixes every API path.
    this.basePath = this.server.pathname.replace(/\/+$/, '');
    // An IPv6 literal without its brackets, as http.request wants it.
    this.hostname = this.server.hostname.replace(/^\[(.*)\]$/, '$1');
    this.maxSockets = opts.maxSockets ?? 32;
    this.agentOptions = { keepAlive: true, maxSockets: this.maxSockets, maxFreeSockets: 32 };
    this.attempts = opts.attempts ?? 5;
    this.retry = opts.retry ?? defaultRequestRetry;
    this.onRequest = opts.onRequest ?? (() => {});
    this.now = opts.now ?? Date.now;
    if (this.connection.ca !== undefined) this.ca = this.connection.ca.toString('utf8');
  }

  /** The namespace of the kubeconfig's current context (for a controller run out of cluster). */
  get contextNamespace(): string | undefined {
    return this.connection.namespace;
  }

  close(): void {
    for (const agent of this.agents) agent.destroy();
    this.agents.clear();
    for (const writes of this.writePools) writes.close();
    this.writePools.clear();
    this.pool = undefined;
  }

  /**
   * The connection pool for these credentials. TLS material goes to the agent as one
   * SecureContext, made once per client identity, rather than as ca, cert and key options: the
   * https.Agent names its pools by concatenating those strings (about 4 kB) twice per request,
   * and the names are flattened and hashed each time (bench/README, stop 39). A new client
   * certificate (a rotated file, an exec plugin's) gets a new agent: its requests open new
   * connections with it, and the old agent's idle connections are closed.
   */
  private poolFor(auth: RequestCredentials): ConnectionPool {
    const { identity } = auth;
    // The same string object until the credentials are read again (every AUTH_REFRESH_MS).
    if (this.pool?.identity === identity) return this.pool;
    if (this.pool) {
      retire(this.pool.agent);
      this.pool.writes?.retire();
    }
    const tlsServer = this.server.protocol === 'https:';
    const agent = tlsServer
      ? new https.Agent(this.agentOptions)
      : new http.Agent(this.agentOptions);
    this.agents.add(agent);
    this.pool = {
      identity,
      agent,
      ...(tlsServer && {
        secureContext: tls.createSecureContext({
          ...(this.ca !== undefined && { ca: this.ca }),
          ...(auth.cert !== undefined && { cert: auth.cert }),
          ...(auth.key !== undefined && { key: auth.key }),
        }),
      }),
    };
    return this.pool;
  }

  private credentials(): Promise<RequestCredentials> {
    const now = this.now();
    if (!this.auth || now - this.auth.at > AUTH_REFRESH_MS) {
      const value = this.connection.credentials().then(requestCredentials);
      this.auth = { value, at: now };
      value.catch(() => (this.auth = undefined));
    }
    return this.auth.value;
  }

  /**
   * The request path with its query, under the server URL's path. Built as a string: a URL
   * object per request is measurable over the tens of thousands of requests of a sync.
   */
  private requestPath(path: string, query: RequestOptions['query']): string {
    let search = '';
    for (const k in query) {
      const v = query[k];
      if (v !== undefined)
        search += `${search ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
    }
    return `${this.basePath}${path}${search}`;
  }

  /** Opens a request and resolves with the response (any status); the body is not read. */
  private async open(
    path: string,
    opts: RequestOptions,
    body: Buffer | undefined,
  ): Promise<http.IncomingMessage> {
    const auth = await this.credentials();
    const headers = requestHeaders(auth, opts, body);
    if (body) headers['content-length'] = String(body.length);
    const lib = this.server.protocol === 'https:' ? https : http;
    const pool = this.poolFor(auth);
    const signal = opts.signal;
    if (signal?.aborted) throw abortError(signal);
    return new Promise((resolve, reject) => {
      const req = lib.request(
        {
          protocol: this.server.protocol,
          hostname: this.hostname,
          port: this.server.port,
          path: this.requestPath(path, opts.query),
          method: opts.method ?? 'GET',
          agent: pool.agent,
          headers,
          ...(pool.secureContext && { secureContext: pool.secureContext }),
          ...(this.connection.servername !== undefined && {
            servername: this.connection.servername,
          }),
          rejectUnauthorized: this.connection.rejectUnauthorized,
        },
        resolve,
      );
      req.on('error', reject);
      if (signal) abortOnSignal(signal, req);
      req.end(body);
    });
  }

  /**
   * Sends a request over the write pool (http1.ts) and reads its whole response: for requests
   * whose answers are small and, when they succeed, not read (discardResponse).
   */
  private async exchange(
    path: string,
    opts: RequestOptions,
    body: Buffer | undefined,
  ): Promise<Answer> {
    const auth = await this.credentials();
    const pool = this.poolFor(auth);
    if (!pool.writes) {
      // Loaded at the first write: the client library's entry point (reads only) stays small.
      const { Http1Pool } = await import('./http1.js');
      // Replaced meanwhile (new credentials, close()): a pool made now would never be closed.
      if (this.pool !== pool)
        throw Object.assign(new Error('the connection pool was replaced'), { code: 'ECONNRESET' });
      pool.writes ??= new Http1Pool(
        {
          protocol: this.server.protocol === 'https:' ? 'https:' : 'http:',
          hostname: this.hostname,
          port: Number(this.server.port) || (this.server.protocol === 'https:' ? 443 : 80),
          host: this.server.host,
          ...(pool.secureContext && { secureContext: pool.secureContext }),
          ...(this.connection.servername !== undefined && {
            servername: this.connection.servername,
          }),
          rejectUnauthorized: this.connection.rejectUnauthorized,
        },
        this.maxSockets,
      );
      this.writePools.add(pool.writes);
    }
    const res = await pool.writes.request({
      method: opts.method ?? 'GET',
      path: this.requestPath(path, opts.query),
      headers: requestHeaders(auth, opts, body),
      ...(body && { body }),
      ...(opts.signal && { signal: opts.signal }),
    });
    return {
      status: res.status,
      header: (name) => res.headers[name],
      drain: () => Promise.resolve(),
      text: () => Promise.resolve(res.body.toString('utf8')),
    };
  }

  /** The response of open() as an Answer: the body read when asked for. */
  private async openAnswer(
    path: string,
    opts: RequestOptions,
    body: Buffer | undefined,
  ): Promise<Answer> {
    const res = await this.open(path, opts, body);
    return {
      status: res.statusCode ?? 0,
      header: (name) => {
        const v = res.headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      },
      drain: () => drain(res),
      text: () => readBody(res),
    };
  }

  /** Sends a request and returns the parsed JSON body; retries 429, 5xx and network errors. */
  async request<T>(path: string, opts: RequestOptions): Promise<T> {
    const body =
      opts.body === undefined
        ? undefined
        : Buffer.isBuffer(opts.body)
          ? opts.body
          : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
    for (let attempt = 1; ; attempt++) {
      let retryAfterMs: number | undefined;
      const sentAt = performance.now();
      try {
        const res = opts.discardResponse
          ? await this.exchange(path, opts, body)
          : await this.openAnswer(path, opts, body);
        const { status } = res;
        opts.onResponse?.(responseInfo(res, performance.now() - sentAt));
        if (opts.discardResponse && status >= 200 && status < 300) {
          await res.drain();
          this.onRequest(opts.verb, opts.resource, status);
          return undefined as T;
        }
        const text = await res.text();
        this.onRequest(opts.verb, opts.resource, status);
        if (status >= 200 && status < 300) return (text ? JSON.parse(text) : undefined) as T;
        const err = apiError(status, text, opts.verb, opts.resource);
        const retryAfter = Number(res.header('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
        if (!err.retryable || attempt >= this.attempts) throw err;
      } catch (err) {
        if (err instanceof KubeApiError && !err.retryable) throw err;
        if (opts.signal?.aborted) throw err;
        if (!(err instanceof KubeApiError) && !isNetworkError(err)) throw err;
        opts.onResponse?.({ status: 0, latencyMs: performance.now() - sentAt });
        if (attempt >= this.attempts) throw err;
        this.onRequest(opts.verb, opts.resource, 0);
      }
      await this.retry.sleep(this.retry.retryDelay(attempt, retryAfterMs), opts.signal);
    }
  }

  /**
   * A GET of a path under the server that is not an API object (the content server through the
   * apiserver's service proxy, `/api/v1/namespaces/NS/services/https:NAME:PORT/proxy/...`), with
   * the kubeconfig's CA and credentials, as a fetch Response whose body is not read yet. Not
   * retried: the caller decides.
   */
  async getResponse(
    pathAndQuery: string,
    opts: { signal?: AbortSignal; accept?: string; resource: string },
  ): Promise<Response> {
    const res = await this.open(
      pathAndQuery,
      {
        verb: 'get',
        resource: opts.resource,
        accept: opts.accept ?? '*/*',
        ...(opts.signal && { signal: opts.signal }),
      },
      undefined,
    );
    const status = res.statusCode ?? 0;
    this.onRequest('get', opts.resource, status);
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
    }
    const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
    if (noBody) res.resume();
    const body = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
    return new Response(body, { status, headers });
  }

  /**
   * Streams a watch: calls onEvent with every event ({type, object}) until the server ends the
   * stream (resolves), the connection fails (rejects) or the signal aborts (resolves). A JSON
   * response is read line by line; a protobuf one (a metadata-only watch that asked for it
   * first) frame by frame, each decoded into the JSON shape (metadata-protobuf.ts).
   */
  async watchEvents(
    path: string,
    opts: RequestOptions,
    onEvent: (event: unknown) => void,
  ): Promise<void> {
    let res: http.IncomingMessage;
    try {
      res = await this.open(path, opts, undefined);
    } catch (err) {
      if (opts.signal?.aborted) return;
      throw err;
    }
    const status = res.statusCode ?? 0;
    this.onRequest(opts.verb, opts.resource, status);
    if (status < 200 || status >= 300) {
      throw apiError(status, await readBody(res), opts.verb, opts.resource);
    }
    try {
      const splitter = isProtobuf(res.headers['content-type'])
        ? (await import('./metadata-protobuf.js')).protobufWatchReader(onEvent)
        : new LineSplitter(onEvent);
      for await (const chunk of res) splitter.push(chunk as Buffer);
    } catch (err) {
      if (opts.signal?.aborted) return;
      throw err;
    }
  }
}

/** A protobuf response (`application/vnd.kubernetes.protobuf`, with or without `;stream=watch`). */
function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim() === 'application/vnd.kubernetes.protobuf';
}

/** A response as request() reads it, from either transport. */
interface Answer {
  status: number;
  /** A header by its lower-case name. */
  header(name: string): string | undefined;
  /** Reads and drops the body. */
  drain(): Promise<void>;
  text(): Promise<string>;
}

function responseInfo(res: Answer, latencyMs: number): ResponseInfo {
  const level = res.header('x-kubernetes-pf-prioritylevel-uid');
  return {
    status: res.status,
    latencyMs,
    ...(level !== undefined && { priorityLevel: level }),
  };
}

/** The headers of a request: credentials, Accept, and the body's type. */
function requestHeaders(
  auth: RequestCredentials,
  opts: RequestOptions,
  body: Buffer | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    ...auth.headers,
    accept: opts.accept ?? 'application/json',
    'user-agent': 'catalogd-ts',
  };
  if (body) headers['content-type'] = opts.contentType ?? 'application/json';
  return headers;
}

interface ConnectionPool {
  /** The client certificate and key it was made for. */
  identity: string;
  agent: http.Agent;
  secureContext?: tls.SecureContext;
  /** The write pool (http1.ts), made at the first write. */
  writes?: Http1Pool;
}

/**
 * An agent no new request goes to: its idle connections close now, those in use when their
 * request ends (keepAlive off makes the agent close a connection that comes free).
 */
function retire(agent: http.Agent): void {
  // http.Agent reads this field when a connection comes free (@types/node does not declare it).
  (agent as http.Agent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) {
    for (const socket of sockets ?? []) socket.destroy();
  }
}

interface RequestCredentials {
  cert?: string;
  key?: string;
  /** The client certificate and key as one string: the connection pool's key. */
  identity: string;
  headers: Record<string, string>;
}

function requestCredentials(c: ClientCredentials): RequestCredentials {
  const cert = c.cert?.toString('utf8');
  const key = c.key?.toString('utf8');
  return {
    headers: c.headers,
    identity: `${cert ?? ''}\n${key ?? ''}`,
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
  };
}

/** The requests open under each signal, destroyed when it aborts (errors.ts, abortGroups). */
const openUnder = abortGroups<http.ClientRequest>((req, err) => req.destroy(err));

function abortOnSignal(signal: AbortSignal, req: http.ClientRequest): void {
  const open = openUnder(signal);
  open.add(req);
  // 'close' comes after the response has been read too, so a watch stays abortable.
  req.once('close', () => open.delete(req));
}

// Event listeners rather than `for await`: an async iterator per response costs measurable CPU
// over the tens of thousands of requests of a sync.
function drain(res: http.IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    res.once('end', resolve);
    res.once('error', reject);
    res.resume();
  });
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.once('error', reject);
  });
}
