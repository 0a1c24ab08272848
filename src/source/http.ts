// The HTTP transport under the registry client: node:http/https with keep-alive agents (one
// connection pool per process), an optional CA bundle, and an idle-socket timeout. Bodies stream.
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import type { Clock, Timer } from '../util/clock.js';

export interface HttpRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  /** A factory, so that a retried request can send its body again. */
  body?: () => Buffer | Readable;
  /** Aborting destroys the request, and the response body once there is one. */
  signal?: AbortSignal;
  /**
   * Connect to this address instead of resolving the URL's host: the address a redirect's target
   * was judged by (destinations.ts), so that DNS cannot answer otherwise in between. Such a
   * connection is never pooled: no other request shares it, and it is closed after its response.
   */
  connectTo?: { address: string; family: 4 | 6 };
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  /** The address that answered, when the transport knows it (a redirect is judged against it). */
  remoteAddress?: string | undefined;
}

/** The one thing the registry client needs from a transport. */
export interface HttpClient {
  send(req: HttpRequest): Promise<HttpResponse>;
}

export interface NodeHttpClientOptions {
  /** Extra PEM CA certificates trusted besides the system roots. */
  ca?: string | Buffer;
  /** Idle socket timeout (connect, headers, and between body chunks). */
  timeoutMs?: number;
  maxSockets?: number;
}

export class NodeHttpClient implements HttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  /** For requests with connectTo: no keep-alive, no limit (so no request waits for another's socket). */
  private readonly pinnedHttpAgent: http.Agent;
  private readonly pinnedHttpsAgent: https.Agent;
  private readonly timeoutMs: number;

  constructor(opts: NodeHttpClientOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    const common = { keepAlive: true, maxSockets: opts.maxSockets ?? 16 };
    this.httpAgent = new http.Agent(common);
    const ca = opts.ca ? [...tlsRootCertificates(), opts.ca.toString()] : undefined;
    this.httpsAgent = new https.Agent({ ...common, ...(ca && { ca }) });
    this.pinnedHttpAgent = new http.Agent({ keepAlive: false });
    this.pinnedHttpsAgent = new https.Agent({ keepAlive: false, ...(ca && { ca }) });
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    const isHttps = req.url.protocol === 'https:';
    const mod = isHttps ? https : http;
    const { signal } = req;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const pin = req.connectTo;
      const r = mod.request(req.url, {
        method: req.method,
        headers: req.headers,
        agent: pin
          ? isHttps
            ? this.pinnedHttpsAgent
            : this.pinnedHttpAgent
          : isHttps
            ? this.httpsAgent
            : this.httpAgent,
        timeout: this.timeoutMs,
        ...(pin && { lookup: pinnedLookup(pin) }),
      });
      r.on('timeout', () =>
        r.destroy(Object.assign(new Error('socket timeout'), { code: 'ETIMEDOUT' })),
      );
      // The request and then its response are destroyed with the abort's reason, so a reader of
      // the body sees why it ended (the attempt's deadline, the catalog deleted).
      let onAbort = (): void => void r.destroy(abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      const unlisten = () => signal?.removeEventListener('abort', onAbort);
      r.on('error', (err) => {
        unlisten();
        reject(err);
      });
      r.on('response', (res) => {
        if (signal) {
          signal.removeEventListener('abort', onAbort);
          onAbort = () => {
            res.destroy(abortReason(signal));
            r.destroy();
          };
          signal.addEventListener('abort', onAbort, { once: true });
          res.once('close', unlisten);
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: res,
          remoteAddress: res.socket?.remoteAddress,
        });
      });
      const body = req.body?.();
      if (body === undefined) r.end();
      else if (Buffer.isBuffer(body)) r.end(body);
      else {
        body.on('error', (err) => r.destroy(err));
        body.pipe(r);
      }
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    this.pinnedHttpAgent.destroy();
    this.pinnedHttpsAgent.destroy();
  }
}

/** A lookup that answers with the one address given, whatever the name. */
function pinnedLookup(pin: { address: string; family: 4 | 6 }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [pin]);
    else callback(null, pin.address, pin.family);
  };
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

export interface MinimumRate {
  /** Fewer bytes than this per second, averaged over a window, fail the transfer. */
  bytesPerSecond: number;
  windowMs: number;
}

/** 1 kB/s over 30 s windows: a trickle fails within a minute while a slow link passes. */
export const defaultMinimumRate: MinimumRate = { bytesPerSecond: 1024, windowMs: 30_000 };

/**
 * Watches a transfer's rate: `count` is called with every chunk's size; `tooSlow(bytes so far)`
 * is called once a window passes in which fewer than `bytesPerSecond * windowMs / 1000` bytes
 * arrived. The idle-socket timeout alone lets a registry that sends a byte every 20 s hold a
 * transfer for ever. `stop` when the transfer ends.
 */
export function rateGuard(
  rate: MinimumRate,
  clock: Pick<Clock, 'setTimer'>,
  tooSlow: (bytes: number) => void,
): { count(n: number): void; stop(): void } {
  const minPerWindow = (rate.bytesPerSecond * rate.windowMs) / 1000;
  let total = 0;
  let inWindow = 0;
  let timer: Timer | undefined;
  let stopped = rate.bytesPerSecond <= 0;
  const arm = () => {
    timer = clock.setTimer(rate.windowMs, () => {
      if (stopped) return;
      if (inWindow < minPerWindow) {
        stopped = true;
        tooSlow(total);
        return;
      }
      inWindow = 0;
      arm();
    });
  };
  if (!stopped) arm();
  return {
    count(n) {
      total += n;
      inWindow += n;
    },
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}

/** The bundled Mozilla roots, so that a custom CA bundle adds to them rather than replacing them. */
function tlsRootCertificates(): string[] {
  return [...rootCertificates];
}

/** Discards a response body so the connection returns to the pool. */
export function drain(res: HttpResponse): void {
  res.body.resume();
  res.body.on('error', () => {});
}
