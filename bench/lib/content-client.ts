// A catalog content client as operator-controller uses one: GET <urls.base>/api/v1/all and
// /api/v1/metas over keep-alive HTTP or HTTPS (the CA given), timed from the request to the last
// byte. The same client reads catalogd-ts and upstream catalogd in the peer scenario.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mapBounded } from '../../src/util/limits.js';
import { median, percentile } from './stats.js';

const execFileAsync = promisify(execFile);
const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Transfer {
  seconds: number;
  bytes: number;
}

export class ContentClient {
  private readonly agent: http.Agent;

  constructor(
    readonly base: string,
    readonly ca?: Buffer,
    sockets = 16,
  ) {
    const opts = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets };
    this.agent = base.startsWith('https:')
      ? new https.Agent({ ...opts, ...(ca && { ca }) })
      : new http.Agent(opts);
  }

  /** One GET of `<base><suffix>`; `keep` returns the body (else it is counted and dropped). */
  get(
    suffix: string,
    opts: { gzip?: boolean; keep?: boolean } = {},
  ): Promise<Transfer & { body?: Buffer }> {
    const url = `${this.base}${suffix}`;
    const send = url.startsWith('https:') ? https.request : http.request;
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        { agent: this.agent, headers: { 'Accept-Encoding': opts.gzip ? 'gzip' : 'identity' } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
            return;
          }
          if (opts.gzip && res.headers['content-encoding'] !== 'gzip') {
            res.resume();
            reject(new Error(`GET ${url}: asked for gzip, got ${res.headers['content-encoding']}`));
            return;
          }
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on('data', (c: Buffer) => {
            bytes += c.length;
            if (opts.keep) chunks.push(c);
          });
          res.on('end', () =>
            resolve({
              seconds: (performance.now() - t0) / 1000,
              bytes,
              ...(opts.keep && { body: Buffer.concat(chunks) }),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * The set of a JSON-lines body's lines, order- and format-free: each line parsed and
 * re-serialized with sorted keys, the lines sorted, hashed. Two servers that hold the same
 * blobs give the same digest whatever their line order or key order.
 */
export function linesDigest(body: Buffer): { lines: number; sha256: string } {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  const lines = body
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.stringify(canonical(JSON.parse(l))))
    .sort();
  const h = createHash('sha256');
  for (const l of lines) h.update(l).update('\n');
  return { lines: lines.length, sha256: h.digest('hex') };
}

/** `runs` sequential transfers of `suffix` after one warm-up: the median seconds and the bytes. */
export async function medianTransfer(
  c: ContentClient,
  suffix: string,
  runs: number,
  gzip = false,
): Promise<{ seconds: number; bytes: number; all: number[] }> {
  await c.get(suffix, { gzip });
  const all: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const t = await c.get(suffix, { gzip });
    all.push(t.seconds);
    bytes = t.bytes;
  }
  return { seconds: median(all), bytes, all };
}

/** `clients` concurrent readers, each `each` sequential transfers of /all: bytes ÷ wall time. */
export async function parallelTransfers(
  c: ContentClient,
  suffix: string,
  clients: number,
  each: number,
): Promise<{ seconds: number; bytes: number; mbPerSecond: number }> {
  const t0 = performance.now();
  let bytes = 0;
  await mapBounded(
    Array.from({ length: clients }, (_, i) => i),
    clients,
    async () => {
      for (let i = 0; i < each; i++) {
        // Awaited first: `bytes += await …` reads `bytes` before the await and loses the
        // other readers' additions.
        const t = await c.get(suffix);
        bytes += t.bytes;
      }
    },
  );
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, bytes, mbPerSecond: bytes / 1e6 / seconds };
}

/**
 * Sequential requests of each query (cycled to `n`), after one warm-up each: p50 and p99 in ms.
 * Made by bench/query-latency-client.mjs, a process of its own, so that this process's garbage
 * collections (7–15 ms pauses while the scenario runs) are not measured as the server's tail.
 */
export async function queryLatency(
  c: ContentClient,
  queries: string[],
  n: number,
): Promise<{ p50Ms: number; p99Ms: number; requests: number }> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [path.join(BENCH_DIR, 'query-latency-client.mjs'), c.base, String(n), ...queries.slice(0, n)],
    {
      env: { ...process.env, ...(c.ca && { QUERY_LATENCY_CA: c.ca.toString('utf8') }) },
      maxBuffer: 16 << 20,
    },
  );
  const ms = JSON.parse(stdout) as number[];
  return {
    p50Ms: Number(percentile(ms, 0.5).toFixed(2)),
    p99Ms: Number(percentile(ms, 0.99).toFixed(2)),
    requests: n,
  };
}
