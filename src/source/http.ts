// The HTTP transport under the registry client: node:http/https with keep-alive agents (one
// connection pool per process), an optional CA bundle, and an idle-socket timeout. Bodies stream.
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';

export interface HttpRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  /** A factory, so that a retried request can send its body again. */
  body?: () => Buffer | Readable;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
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
  private readonly timeoutMs: number;

  constructor(opts: NodeHttpClientOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    const common = { keepAlive: true, maxSockets: opts.maxSockets ?? 16 };
    this.httpAgent = new http.Agent(common);
    const ca = opts.ca ? [...tlsRootCertificates(), opts.ca.toString()] : undefined;
    this.httpsAgent = new https.Agent({ ...common, ...(ca && { ca }) });
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    const isHttps = req.url.protocol === 'https:';
    const mod = isHttps ? https : http;
    return new Promise((resolve, reject) => {
      const r = mod.request(req.url, {
        method: req.method,
        headers: req.headers,
        agent: isHttps ? this.httpsAgent : this.httpAgent,
        timeout: this.timeoutMs,
      });
      r.on('timeout', () =>
        r.destroy(Object.assign(new Error('socket timeout'), { code: 'ETIMEDOUT' })),
      );
      r.on('error', reject);
      r.on('response', (res) =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res }),
      );
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
  }
}

/** The bundled Mozilla roots, so that a custom CA bundle adds to them rather than replacing them. */
function tlsRootCertificates(): string[] {
  return [...rootCertificates];
}

/** Reads a response body into memory, failing past `limit` bytes. */
export async function readLimited(
  body: Readable,
  limit: number,
  onTooLarge: () => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    n += chunk.length;
    if (n > limit) {
      body.destroy();
      throw onTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Discards a response body so the connection returns to the pool. */
export function drain(res: HttpResponse): void {
  res.body.resume();
  res.body.on('error', () => {});
}
