// The sync's write path to the apiserver: a pool of kept-alive HTTP/1.1 connections, one request
// at a time on each, the response read whole (http1-parser.ts). Why not node:https: per request
// it builds a ClientRequest, an IncomingMessage, the agent's bookkeeping and their event
// listeners, and a cold sync makes tens of thousands of requests on the two cores it may share
// with the apiserver. Measured (bench/README, stop 45): the raw POST loop of 10,875 creates spent
// 0.19 to 0.24 ms of CPU per write over node:https, 0.11 to 0.13 over this. Not undici: its parser
// (WebAssembly) added about 16 MB to the controller's RSS (stop 18). Used only for requests
// whose responses are small and read whole (client.ts's discardResponse); lists, watches and
// proxied content keep node:https.
import net from 'node:net';
import tls from 'node:tls';
import type { ParsedResponse } from './http1-parser.js';
import { ResponseParser } from './http1-parser.js';
import { abortError, abortGroups } from './errors.js';

/** Where the pool connects, and how. */
export interface Http1Target {
  protocol: 'http:' | 'https:';
  /** The host to connect to (an IPv6 literal without brackets). */
  hostname: string;
  port: number;
  /** The Host header (the URL's host, with its port). */
  host: string;
  secureContext?: tls.SecureContext;
  servername?: string;
  rejectUnauthorized?: boolean;
}

export interface Http1Request {
  method: string;
  /** The path and query, already encoded. */
  path: string;
  /** Header names and values (without Host and Content-Length, which the pool sets). */
  headers: Record<string, string>;
  body?: Buffer;
  signal?: AbortSignal;
}

/** A network failure of one request: retryable as node:https's are (errors.ts, isNetworkError). */
function connectionError(message: string, cause?: unknown): Error {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return Object.assign(new Error(message, cause === undefined ? {} : { cause }), {
    code: typeof code === 'string' ? code : 'ECONNRESET',
  });
}

/** The connections with a request in flight under each signal, ended when it aborts. */
const openUnder = abortGroups<Connection>((conn, err) => conn.destroy(err));

/** Refuses what would split a request line or a header (CR, LF, and the path's spaces). */
const UNSAFE_HEADER = /[\r\n\0]/;
const UNSAFE_PATH = /[\s\0]/;

function requestHead(target: Http1Target, req: Http1Request): string {
  if (!/^[A-Z]+$/.test(req.method)) throw new TypeError(`invalid method ${req.method}`);
  if (!req.path.startsWith('/') || UNSAFE_PATH.test(req.path))
    throw new TypeError(`invalid request path ${JSON.stringify(req.path)}`);
  let head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${target.host}\r\n`;
  for (const name in req.headers) {
    const value = req.headers[name]!;
    if (UNSAFE_HEADER.test(name) || UNSAFE_HEADER.test(value) || name.includes(':'))
      throw new TypeError(`invalid header ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}content-length: ${req.body?.length ?? 0}\r\n\r\n`;
}

interface Exchange {
  parser: ResponseParser;
  resolve: (r: ParsedResponse) => void;
  reject: (err: Error) => void;
}

/** One connection: one request at a time; `onIdle` when it may carry another, `onGone` when not. */
class Connection {
  private readonly socket: net.Socket;
  private exchange?: Exchange;
  private gone = false;

  constructor(
    target: Http1Target,
    private readonly onIdle: (c: Connection) => void,
    private readonly onGone: (c: Connection) => void,
  ) {
    this.socket =
      target.protocol === 'https:'
        ? tls.connect({
            host: target.hostname,
            port: target.port,
            ...(target.secureContext && { secureContext: target.secureContext }),
            // No SNI for an IP address (RFC 6066), as node:https does.
            ...((target.servername !== undefined || net.isIP(target.hostname) === 0) && {
              servername: target.servername ?? target.hostname,
            }),
            rejectUnauthorized: target.rejectUnauthorized ?? true,
          })
        : net.connect({ host: target.hostname, port: target.port });
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, 30_000);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (err) => this.fail(connectionError(err.message, err)));
    this.socket.on('close', () => this.fail(connectionError('the connection closed')));
  }

  send(req: Http1Request, head: string): Promise<ParsedResponse> {
    return new Promise((resolve, reject) => {
      this.exchange = { parser: new ResponseParser(req.method === 'HEAD'), resolve, reject };
      this.socket.cork();
      this.socket.write(head, 'latin1');
      if (req.body && req.body.length > 0) this.socket.write(req.body);
      this.socket.uncork();
    });
  }

  /** Ends the connection; the request on it, if any, fails with `err`. */
  destroy(err: Error): void {
    this.fail(err);
  }

  private onData(chunk: Buffer): void {
    const ex = this.exchange;
    if (!ex) {
      this.fail(connectionError('bytes from the server with no request'));
      return;
    }
    let res: ParsedResponse | undefined;
    try {
      res = ex.parser.push(chunk);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (res) this.complete(ex, res);
  }

  private onEnd(): void {
    const ex = this.exchange;
    if (!ex) {
      this.fail(connectionError('the server closed the connection'));
      return;
    }
    try {
      this.complete(ex, ex.parser.end());
    } catch {
      // A response cut short by the connection's end: a reset, retried as one.
      this.fail(connectionError('the connection ended before the response did'));
    }
  }

  private complete(ex: Exchange, res: ParsedResponse): void {
    this.exchange = undefined;
    ex.resolve(res);
    if (res.keepAlive && !this.gone) this.onIdle(this);
    else this.fail(connectionError('the connection is not kept alive'));
  }

  private fail(err: Error): void {
    const ex = this.exchange;
    this.exchange = undefined;
    ex?.reject(err);
    if (this.gone) return;
    this.gone = true;
    this.socket.destroy();
    this.onGone(this);
  }
}

/**
 * At most `maxConnections` connections to one target, idle ones reused newest first; requests
 * beyond wait in order. A failed connection fails only its own request (retried by the caller).
 */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly busy = new Set<Connection>();
  private readonly waiting: Array<{
    start: (c: Connection) => void;
    fail: (err: Error) => void;
  }> = [];
  private opened = 0;
  /** No new requests; connections close as their requests end. */
  private retired = false;

  constructor(
    private readonly target: Http1Target,
    private readonly maxConnections: number,
  ) {}

  /** Sends one request and reads its whole response. */
  async request(req: Http1Request): Promise<ParsedResponse> {
    const head = requestHead(this.target, req);
    const { signal } = req;
    if (signal?.aborted) throw abortError(signal);
    if (this.retired) throw connectionError('the connection pool was closed');
    const conn = await this.acquire(signal);
    if (signal?.aborted) {
      this.release(conn);
      throw abortError(signal);
    }
    const open = signal && openUnder(signal);
    open?.add(conn);
    try {
      return await conn.send(req, head);
    } finally {
      open?.delete(conn);
    }
  }

  /** Closes idle connections now and the others when their requests end; fails waiting ones. */
  retire(): void {
    this.retired = true;
    for (const w of this.waiting.splice(0))
      w.fail(connectionError('the connection pool was closed'));
    for (const c of this.idle.splice(0))
      c.destroy(connectionError('the connection pool was closed'));
  }

  /** Closes every connection now: requests in flight fail. */
  close(): void {
    this.retire();
    for (const c of [...this.busy]) c.destroy(connectionError('the connection pool was closed'));
  }

  /** Connections open, idle or busy (tests, metrics). */
  get size(): number {
    return this.opened;
  }

  private acquire(signal?: AbortSignal): Promise<Connection> {
    const reused = this.idle.pop();
    if (reused) {
      this.busy.add(reused);
      return Promise.resolve(reused);
    }
    if (this.opened < this.maxConnections) return Promise.resolve(this.connect());
    return new Promise((resolve, reject) => {
      const waiter = {
        start: (c: Connection) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(c);
        },
        fail: (err: Error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(abortError(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private connect(): Connection {
    this.opened++;
    const c = new Connection(
      this.target,
      (idle) => this.release(idle),
      (gone) => this.forget(gone),
    );
    this.busy.add(c);
    return c;
  }

  /** A connection whose request ended and that may carry another. */
  private release(c: Connection): void {
    this.busy.delete(c);
    if (this.retired) {
      c.destroy(connectionError('the connection pool was closed'));
      return;
    }
    const next = this.waiting.shift();
    if (next) {
      this.busy.add(c);
      next.start(c);
    } else this.idle.push(c);
  }

  /** A connection that closed: its place goes to the next waiting request. */
  private forget(c: Connection): void {
    this.opened--;
    this.busy.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    const next = this.waiting.shift();
    if (next) next.start(this.connect());
  }
}
