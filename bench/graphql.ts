// `graphql` (issue 56): GraphQL query latency and memory. The content server as the controller
// runs it (bench/serve-server.mjs with SERVE_GRAPHQL=1: the built server, the Deployment's
// NODE_OPTIONS and MALLOC_ARENA_MAX, the endpoint mounted as the controller mounts it) serves a
// generated catalog and each real one; per catalog, over one keep-alive connection:
//   - p50/p99 of each of upstream's own queries (its how-to and sample-queries.txt);
//   - p50/p99 of the one-package query (the package's channels and their heads, through the
//     additions: the issue's acceptance query) beside GET /api/v1/metas?package= of the same
//     package (the blobs a client would fetch to compute it), and of every field of the
//     package's olm.package, olm.channel and olm.bundle blobs through upstream's fields;
//   - the server's peak RSS while 16 clients send those queries at once.
// With --upstream, upstream catalogd v1.11 (GraphQLCatalogQueries on; needs `make cluster-up`,
// bench/lib/upstream.ts) serves the same catalogs, and the same queries are timed against
// both over HTTPS, interleaved query by query, and its RSS under the same 16 clients. With
// --controller, the whole controller syncs the same catalogs and takes the same 16 clients
// (bench/graphql-controller.ts): its peak RSS.
//
//   npx tsx bench/graphql.ts [--size-mb 50] [--real /tmp/real/v4.20] [--runs 30] [--each 2]
//                            [--upstream] [--controller]
//
// The every-field query is built from upstream-compatible root fields (limit/offset over the
// package's run of blobs in blob order); BENCH_GRAPHQL_PACKAGE_QUERY replaces the channels-and-
// heads one with any query text in which $PACKAGE stands for the package's name.
// Needs `make build`. Writes bench/results/graphql.json and prints a table.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readCatalog } from '../src/fbc/index.js';
import { ContentStore } from '../src/server/index.js';
import { generateCatalog } from '../test/support/fbcgen.js';
import { MALLOC_ARENA_MAX, NODE_OPTIONS, RESULTS, ROOT, log, round } from './lib/config.js';
import type { ControllerClients } from './graphql-controller.js';
import { controllerUnderClients } from './graphql-controller.js';
import type { ClientsResult, Target, Timing } from './lib/graphql-clients.js';
import { CLIENTS, onePackage, peakRssUnderClients, post, time } from './lib/graphql-clients.js';
import type { NamedQuery } from '../test/support/upstream-graphql-queries.js';
import {
  UPSTREAM_HOWTO_QUERIES,
  upstreamSampleQueries,
} from '../test/support/upstream-graphql-queries.js';
import { startServeServer } from './lib/server-process.js';
import type { UpstreamGraphql } from './lib/upstream.js';
import { startUpstreamGraphql } from './lib/upstream.js';

const TLS = path.join(ROOT, 'test/fixtures/tls');

interface Catalog {
  name: string;
  dir: string;
  contentHash: string;
}

/** The catalog's revision built from its directory, as the controller's publisher builds it. */
async function storeCatalog(store: ContentStore, name: string, dir: string): Promise<Catalog> {
  const { contentHash } = await store.buildNewRevision(name, readCatalog(dir, { catalog: name }));
  return { name, dir, contentHash };
}

interface CatalogResult {
  catalog: string;
  package: string;
  packageBlobs: number;
  targets: Record<
    string,
    {
      queries: Record<string, Timing>;
      /** Channels and heads (the additions: ours only). */
      onePackage?: Timing;
      /** Every field of the package's blobs through upstream's fields. */
      onePackageEveryField: Timing;
      metasPackage?: Timing;
      /** In a process started for this phase (ours; upstream: the one process). */
      clients: ClientsResult;
      /** ours: in the process that served the timings before (long-running). */
      clientsAfterTimings?: ClientsResult;
      /** ours: the same clients sending /api/v1/metas?package= only, in a process started for them. */
      clientsMetasOnly?: ClientsResult;
    }
  >;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'size-mb': { type: 'string', default: '50' },
      real: { type: 'string', default: '/tmp/real/v4.20' },
      runs: { type: 'string', default: '30' },
      each: { type: 'string', default: '2' },
      upstream: { type: 'boolean', default: false },
      controller: { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  const tmp = await mkdtemp(path.join(tmpdir(), 'graphql-bench-'));
  const procs: ChildProcess[] = [];
  let upstream: UpstreamGraphql | undefined;
  try {
    const gen = path.join(tmp, 'fbc');
    await generateCatalog(gen, { seed: 1, sizeMB: Number(values['size-mb']) });
    const store = new ContentStore(path.join(tmp, 'store'));
    const catalogs = [await storeCatalog(store, `generated-${values['size-mb']}mb`, gen)];
    for (const dir of (values.real ?? '').split(',').filter((d) => d && existsSync(d)))
      catalogs.push(await storeCatalog(store, path.basename(dir).replace(/[^a-z0-9-]/g, '-'), dir));
    await store.close();
    const env = {
      ...process.env,
      NODE_OPTIONS,
      MALLOC_ARENA_MAX: MALLOC_ARENA_MAX ?? '',
      SERVE_GRAPHQL: '1',
    };
    const startOurs = async () => {
      const [p, u] = await startServeServer(
        [
          path.join(ROOT, 'bench/serve-server.mjs'),
          store.root,
          path.join(TLS, 'a.crt'),
          path.join(TLS, 'a.key'),
          ...catalogs.map((c) => `${c.name}=${c.contentHash}`),
        ],
        env,
      );
      procs.push(p);
      return { proc: p, urls: u };
    };
    const { proc: ours, urls } = await startOurs();
    const ca = readFileSync(path.join(TLS, 'ca.crt'));
    const oursOver = (base: string, id: string, tlsCa?: Buffer, pid = ours.pid!): Target => ({
      id,
      pid,
      graphql: (c) => `${base}/catalogs/${c}/api/v1/graphql`,
      metas: (c) => `${base}/catalogs/${c}/api/v1/metas`,
      additions: true,
      ...(tlsCa && { ca: tlsCa }),
      agent: new (tlsCa ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: 1 }),
    });
    const targets = [oursOver(urls.http, 'catalogd-ts http')];
    if (values.upstream) {
      upstream = await startUpstreamGraphql(catalogs, log);
      const u = upstream;
      targets.push(oursOver(urls.https, 'catalogd-ts https', ca), {
        id: 'upstream v1.11 https',
        pid: u.pid,
        graphql: (c) => u.url(c),
        metas: (c) => u.url(c).replace(/graphql$/, 'metas'),
        additions: false,
        ca: u.ca,
        agent: new HttpsAgent({ keepAlive: true, maxSockets: 1 }),
      });
    }
    const queries: NamedQuery[] = [...UPSTREAM_HOWTO_QUERIES, ...upstreamSampleQueries()];
    const results: CatalogResult[] = [];
    for (const c of catalogs) {
      log(`graphql bench: ${c.name}`);
      const one = await onePackage(targets[0]!, c.name);
      const r: CatalogResult = {
        catalog: c.name,
        package: one.pkg,
        packageBlobs: one.blobs,
        targets: {},
      };
      for (const t of targets)
        r.targets[t.id] = {
          queries: {},
          onePackageEveryField: undefined as unknown as Timing,
          clients: undefined as never,
        };
      // Interleaved: each query on each target before the next query.
      for (const q of queries)
        for (const t of targets)
          r.targets[t.id]!.queries[q.id] = await time(t, t.graphql(c.name), post(q.query), runs);
      for (const t of targets) {
        const slot = r.targets[t.id]!;
        if (t.additions) slot.onePackage = await time(t, t.graphql(c.name), post(one.query), runs);
        slot.onePackageEveryField = await time(
          t,
          t.graphql(c.name),
          post(one.everyFieldQuery),
          runs,
        );
        slot.metasPackage = await time(
          t,
          `${t.metas(c.name)}?package=${encodeURIComponent(one.pkg)}`,
          undefined,
          runs,
        );
      }
      for (const t of targets) {
        const mix = [
          ...(t.additions ? [{ url: t.graphql(c.name), body: post(one.query) }] : []),
          { url: t.graphql(c.name), body: post(one.everyFieldQuery) },
          ...queries.map((q) => ({ url: t.graphql(c.name), body: post(q.query) })),
        ];
        const each = Number(values.each);
        if (t.pid !== ours.pid) {
          r.targets[t.id]!.clients = await peakRssUnderClients(t, mix, each);
          continue;
        }
        r.targets[t.id]!.clientsAfterTimings = await peakRssUnderClients(t, mix, each, ours);
        // The same clients against a process started for them (as after a restart).
        const fresh = await startOurs();
        const https = t.ca !== undefined;
        const ft = oursOver(https ? fresh.urls.https : fresh.urls.http, t.id, t.ca, fresh.proc.pid);
        const freshMix = mix.map((m) => ({
          url: ft.graphql(c.name),
          body: m.body,
        }));
        r.targets[t.id]!.clients = await peakRssUnderClients(ft, freshMix, each, fresh.proc);
        fresh.proc.kill();
        // The content server's own share: the same clients, the same number of requests, metas.
        const plain = await startOurs();
        const pt = oursOver(https ? plain.urls.https : plain.urls.http, t.id, t.ca, plain.proc.pid);
        const metasMix = mix.map(() => ({
          url: `${pt.metas(c.name)}?package=${encodeURIComponent(one.pkg)}`,
          body: undefined,
        }));
        r.targets[t.id]!.clientsMetasOnly = await peakRssUnderClients(
          pt,
          metasMix,
          each,
          plain.proc,
        );
        plain.proc.kill();
      }
      results.push(r);
    }
    let controller: ControllerClients[] | undefined;
    if (values.controller) {
      // Upstream's CRD gives way to ours first (its close puts ours back).
      await upstream?.close();
      upstream = undefined;
      controller = await controllerUnderClients(catalogs, queries, Number(values.each), tmp);
    }
    const out = {
      runs,
      clients: CLIENTS,
      nodeOptions: NODE_OPTIONS,
      catalogs: results,
      ...(controller && { controller }),
    };
    await mkdir(RESULTS, { recursive: true });
    await writeFile(path.join(RESULTS, 'graphql.json'), `${JSON.stringify(out, null, 2)}\n`);
    process.stdout.write(graphqlMarkdown(out));
  } finally {
    await upstream?.close();
    for (const p of procs) p.kill();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** A peak-RSS cell: the peak, before, V8's share (ours) and what was resident after. */
const rss = (x: ClientsResult | undefined) =>
  x
    ? `${x.peakRssMB} MB (${x.rssBeforeMB} MB before${x.peakHeapUsedMB === undefined ? '' : `; V8 heap used ≤ ${x.peakHeapUsedMB}, total ≤ ${x.peakHeapTotalMB}, external ≤ ${x.peakExternalMB}`}${x.after ? `; after: anonymous ${x.after.anonymousMB}, of it main arena ${x.after.mainArenaMB}, files ${x.after.fileMB}` : ''}; ${x.requests} requests in ${x.seconds} s, ${x.non200} not 200)`
    : '-';

/** The bench's table (README). */
export function graphqlMarkdown(out: {
  catalogs: CatalogResult[];
  controller?: ControllerClients[];
}): string {
  const lines: string[] = [];
  for (const c of out.catalogs) {
    const ids = Object.keys(c.targets);
    lines.push(
      `\n**${c.catalog}**: one package \`${c.package}\` (${c.packageBlobs} blobs)\n`,
      `| query | ${ids.map((i) => `${i} p50 / p99 ms (status)`).join(' | ')} |`,
      `| --- | ${ids.map(() => '---').join(' | ')} |`,
    );
    const row = (name: string, pick: (t: CatalogResult['targets'][string]) => Timing | undefined) =>
      lines.push(
        `| ${name} | ${ids
          .map((i) => {
            const x = pick(c.targets[i]!);
            return x
              ? `${x.p50Ms} / ${x.p99Ms} (${x.status}, ${round(x.bytes / 1024, 1)} KiB${x.firstMs === undefined ? '' : `, first ${x.firstMs}`})`
              : '-';
          })
          .join(' | ')} |`,
      );
    row('one package, GraphQL channels and heads', (t) => t.onePackage);
    row('one package, /api/v1/metas?package=', (t) => t.metasPackage);
    row('one package, GraphQL every field (upstream fields)', (t) => t.onePackageEveryField);
    for (const q of Object.keys(c.targets[ids[0]!]!.queries)) row(q, (t) => t.queries[q]);
    lines.push(
      `| peak RSS, ${CLIENTS} clients, process started for them | ${ids.map((i) => rss(c.targets[i]!.clients)).join(' | ')} |`,
      `| peak RSS, ${CLIENTS} clients, after the timings above | ${ids.map((i) => rss(c.targets[i]!.clientsAfterTimings)).join(' | ')} |`,
      `| peak RSS, ${CLIENTS} clients, as many metas?package= instead, process started for them | ${ids.map((i) => rss(c.targets[i]!.clientsMetasOnly)).join(' | ')} |`,
    );
  }
  if (out.controller?.length) {
    lines.push(
      `\n**The controller** (as deployed; every catalog synced, objects written), ${CLIENTS} clients on one catalog at a time:\n`,
      '| catalog | one package | peak RSS |',
      '| --- | --- | --- |',
    );
    for (const c of out.controller) {
      lines.push(`| ${c.catalog} | \`${c.package}\` | ${rss(c.clients)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((err: unknown) => {
    process.stderr.write(
      `bench/graphql: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  });
