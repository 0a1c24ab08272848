// A round-robin HTTP proxy over the content servers of several controller replicas: what a
// Kubernetes Service in front of catalogd's Deployment does, one request to each in turn.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /**
   * The backends (`http://host:port`), in turn; filled after the start, since the replicas are
   * given the proxy's URL as their --server-url.
   */
  backends: string[];
  /** Requests sent to each backend, in backend order. */
  counts: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  const backends: string[] = [];
  const counts: number[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    if (backends.length === 0) {
      res.writeHead(502).end();
      return;
    }
    const i = next++ % backends.length;
    counts[i] = (counts[i] ?? 0) + 1;
    const target = new URL(backends[i]!);
    const upstream = request(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    backends,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
