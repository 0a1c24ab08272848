// The GraphQL bench's clients (bench/graphql.ts): requests over one keep-alive connection,
// p50/p99 of a query, the peak RSS of a server process while 16 clients query it, and the
// one-package query built from upstream-compatible root fields.
import type { ChildProcess } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { memoryUsageOf } from './server-process.js';
import { procStatus } from '../../test/support/controller.js';
import { round } from './config.js';
import type { Shape } from '../../test/support/upstream-graphql-queries.js';
import { SHAPE_QUERY, rootLists, selectAll } from '../../test/support/upstream-graphql-queries.js';
import { residentMemory } from './proc-memory.js';
import { percentile } from './stats.js';

export const CLIENTS = 16;

export interface Reply {
  status: number;
  contentType: string;
  body: string;
  ms: number;
}

/**
 * One request over `agent` (undefined: the global one), the answer read whole; `ca` trusts a
 * certificate for https. A body is POSTed as JSON, none is a GET, unless `method` says.
 */
export function send(
  agent: HttpAgent | undefined,
  url: string,
  body: string | undefined,
  ca?: Buffer,
  method: 'GET' | 'POST' = body === undefined ? 'GET' : 'POST',
): Promise<Reply> {
  const t0 = performance.now();
  const u = new URL(url);
  const req = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = req(
      u,
      {
        agent,
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(ca && { ca }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - t0,
          }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** A server to time: how to reach one catalog's GraphQL and metas, and its process. */
export interface Target {
  id: string;
  pid: number;
  graphql(catalog: string): string;
  metas(catalog: string): string;
  /** Answers the additions (fbcPackage, …): catalogd-ts, not upstream. */
  additions?: boolean;
  ca?: Buffer;
  agent: HttpAgent;
}

export interface Timing {
  p50Ms: number;
  p99Ms: number;
  /** The first of the runs (cold: for the channels-and-heads query, the package not yet kept). */
  firstMs?: number;
  requests: number;
  status: number;
  bytes: number;
}

export async function time(
  t: Target,
  url: string,
  body: string | undefined,
  runs: number,
): Promise<Timing> {
  const ms: number[] = [];
  let last: Reply | undefined;
  for (let i = 0; i < runs; i++) {
    last = await send(t.agent, url, body, t.ca);
    ms.push(last.ms);
  }
  return {
    p50Ms: round(percentile(ms, 0.5)),
    p99Ms: round(percentile(ms, 0.99)),
    ...(ms.length > 0 && { firstMs: round(ms[0]!) }),
    requests: runs,
    status: last?.status ?? 0,
    bytes: Buffer.byteLength(last?.body ?? ''),
  };
}

/** VmRSS of process `pid` (procStatus); throws once it is gone. */
export function rssBytes(pid: number): number {
  const s = procStatus(pid);
  if (!s) throw new Error(`process ${pid} is gone`);
  return s.rss;
}

export interface ClientsResult {
  /** VmRSS before the clients start. */
  rssBeforeMB: number;
  peakRssMB: number;
  /** ours only: the highest V8 heap used and external (incl. array buffers) seen, sampled. */
  peakHeapUsedMB?: number;
  peakHeapTotalMB?: number;
  peakExternalMB?: number;
  /** Right after the clients: anonymous and file-backed resident memory, glibc's main arena. */
  after?: { anonymousMB: number; fileMB: number; mainArenaMB: number };
  seconds: number;
  requests: number;
  non200: number;
}

/**
 * The highest RSS of `t`'s process while CLIENTS clients each send every request `each` times
 * (each client starting at another request); `proc`: also sample its V8 memory.
 */
export async function peakRssUnderClients(
  t: Target,
  requests: Array<{ url: string; body: string | undefined }>,
  each: number,
  proc?: ChildProcess,
): Promise<ClientsResult> {
  const rssBefore = rssBytes(t.pid);
  let peak = rssBefore;
  let heap = 0;
  let heapTotal = 0;
  let external = 0;
  let sampling = false;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(t.pid));
    if (!proc || sampling) return;
    sampling = true;
    void memoryUsageOf(proc).then((m) => {
      heap = Math.max(heap, m.heapUsed);
      heapTotal = Math.max(heapTotal, m.heapTotal);
      external = Math.max(external, m.external);
      sampling = false;
    });
  }, 50);
  const t0 = performance.now();
  let non200 = 0;
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const agent = new (t.ca ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; i < each; i++)
          for (let j = 0; j < requests.length; j++) {
            const r = requests[(j + c) % requests.length]!;
            if ((await send(agent, r.url, r.body, t.ca)).status !== 200) non200++;
          }
        agent.destroy();
      }),
    );
  } finally {
    clearInterval(timer);
  }
  const MiB = 1048576;
  const after = residentMemory(t.pid);
  return {
    after: {
      anonymousMB: round(after.anonymousBytes / MiB, 1),
      fileMB: round(after.fileBytes / MiB, 1),
      mainArenaMB: round(after.mainArenaBytes / MiB, 1),
    },
    rssBeforeMB: round(rssBefore / MiB, 1),
    peakRssMB: round(Math.max(peak, rssBytes(t.pid)) / MiB, 1),
    ...(proc && {
      peakHeapUsedMB: round(heap / MiB, 1),
      peakHeapTotalMB: round(heapTotal / MiB, 1),
      peakExternalMB: round(external / MiB, 1),
    }),
    seconds: round((performance.now() - t0) / 1000),
    requests: CLIENTS * each * requests.length,
    non200,
  };
}

export const post = (query: string) => JSON.stringify({ query });

/**
 * The one-package query (issue 56, point 3): a package's channels and their heads,
 * what a resolver or `kubectl catalog channels` asks, through the additions; `$PACKAGE` stands
 * for the package. Its metas counterpart is `/api/v1/metas?package=`: the blobs a client would
 * fetch to compute the same answer itself.
 */
export const CHANNEL_HEADS_QUERY =
  'query { fbcPackage(name: "$PACKAGE") { name defaultChannelName channels { name headName head { name version } } } }';

export interface OnePackage {
  pkg: string;
  /** The acceptance query: channels and heads (CHANNEL_HEADS_QUERY, or the override). */
  query: string;
  /** Every field of every blob of the package, through upstream-compatible root fields. */
  everyFieldQuery: string;
  blobs: number;
}

/**
 * The package with the most bundles, its channels-and-heads query, and a query for all its
 * blobs with every field: each schema's run of the package's blobs as pages (blob order is
 * schema, package, name), found by paging through the `package` (olm.package: `name`) field.
 */
export async function onePackage(t: Target, catalog: string): Promise<OnePackage> {
  const url = t.graphql(catalog);
  const shape = (
    JSON.parse((await send(t.agent, url, post(SHAPE_QUERY), t.ca)).body) as { data: Shape }
  ).data;
  const keyOf = (field: string) => (field === 'olmpackages' ? 'name' : 'package');
  const runs = new Map<string, Map<string, { offset: number; count: number }>>();
  for (const { field } of rootLists(shape)) {
    if (!['olmpackages', 'olmchannels', 'olmbundles'].includes(field)) continue;
    const byPkg = new Map<string, { offset: number; count: number }>();
    for (let offset = 0; ; offset += 100) {
      const r = await send(
        t.agent,
        url,
        post(`{ ${field}(limit: 100, offset: ${offset}) { ${keyOf(field)} } }`),
        t.ca,
      );
      const page =
        (JSON.parse(r.body) as { data: Record<string, Array<Record<string, string>>> }).data[
          field
        ] ?? [];
      page.forEach((o, i) => {
        const k = o[keyOf(field)] ?? '';
        const run = byPkg.get(k) ?? { offset: offset + i, count: 0 };
        run.count++;
        byPkg.set(k, run);
      });
      if (page.length < 100) break;
    }
    runs.set(field, byPkg);
  }
  const bundles = runs.get('olmbundles') ?? new Map<string, { offset: number; count: number }>();
  const pkg = [...bundles].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1))[0]![0];
  const typeOf = (field: string) => rootLists(shape).find((f) => f.field === field)!.type;
  const parts: string[] = [];
  let blobs = 0;
  for (const [field, byPkg] of runs) {
    const run = byPkg.get(pkg);
    if (!run) continue;
    blobs += run.count;
    for (let i = 0; i < run.count; i += 100)
      parts.push(
        `${field}${i}: ${field}(limit: ${Math.min(100, run.count - i)}, offset: ${run.offset + i}) { ${selectAll(shape, typeOf(field))} }`,
      );
  }
  const text = process.env.BENCH_GRAPHQL_PACKAGE_QUERY || CHANNEL_HEADS_QUERY;
  return {
    pkg,
    query: text.replaceAll('$PACKAGE', pkg),
    everyFieldQuery: `{ ${parts.join(' ')} }`,
    blobs,
  };
}
