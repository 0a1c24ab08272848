// The content server's speed and memory against a baseline in the same run (issue 39 points 3
// and 4): ours (bench/serve-server.mjs: the built server with the Deployment's NODE_OPTIONS and
// MALLOC_ARENA_MAX) and hack/serve-baseline (upstream catalogd v1.5.1's way: http.ServeContent
// of the file, its metas index, klauspost's gzhttp) serve the same revision files, over HTTP
// and over HTTPS; curl is the client of both, so that neither pays for a client in its process.
// Everything on 127.0.0.1; the two servers are measured interleaved.
//
//   npx tsx bench/serve.ts [--size-mb 50] [--real /tmp/real/v4.20] [--runs 5] [--clients 16]
//                          [--per-client 5] [--metas 200] [--ours CHECKOUT]
//
// Needs `make build` (ours runs from dist/). Writes bench/results/serve.json and prints a table.
import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readCatalog } from '../src/fbc/index.js';
import { ContentStore } from '../src/server/index.js';
import { generateCatalog, prng } from '../test/support/fbcgen.js';
import { procStatus } from '../test/support/controller.js';
import { MALLOC_ARENA_MAX, NODE_OPTIONS, RESULTS, ROOT, log, round } from './lib/config.js';
import { memoryUsageOf, startServeServer, startServer } from './lib/server-process.js';

const TLS = path.join(ROOT, 'test/fixtures/tls');
const CA = path.join(TLS, 'ca.crt');

interface Transfer {
  status: number;
  bytes: number;
  seconds: number;
}

/** One curl process fetching `urls` in order over one connection. */
async function curl(urls: string[], headers: string[] = []): Promise<Transfer[]> {
  const args = ['-s', '--cacert', CA, '-w', '%{http_code} %{size_download} %{time_total}\\n'];
  for (const h of headers) args.push('-H', h);
  for (const u of urls) args.push('-o', '/dev/null', u);
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn('curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.on('data', (c: Buffer) => (text += c.toString()));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}`)),
    );
  });
  const transfers = out
    .trim()
    .split('\n')
    .map((l) => {
      const [status, bytes, seconds] = l.split(' ').map(Number);
      return { status: status!, bytes: bytes!, seconds: seconds! };
    });
  const bad = transfers.find((t) => t.status !== 200);
  if (bad) throw new Error(`a transfer answered ${bad.status}`);
  return transfers;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function rssBytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const s = procStatus(pid);
  return (field === 'VmRSS' ? s?.rss : s?.hwm) ?? 0;
}

/** The highest RSS of `pid` while `work` runs (sampled every 50 ms). */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<[T, number]> {
  let peak = rssBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);
  try {
    const r = await work();
    return [r, Math.max(peak, rssBytes(pid))];
  } finally {
    clearInterval(timer);
  }
}

/** Ours's process.memoryUsage(), in MB. */
async function memoryUsage(p: ChildProcess): Promise<Record<string, number>> {
  const usage = await memoryUsageOf(p);
  return Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, round(v / 1048576, 1)]));
}

interface Catalog {
  name: string;
  dir: string;
  contentHash: string;
  packages: string[];
  allBytes: number;
}

async function storeCatalog(store: ContentStore, name: string, dir: string): Promise<Catalog> {
  // One read of the FBC: the store hashes what it builds (as the publisher does).
  const { contentHash } = await store.buildNewRevision(name, readCatalog(dir, { catalog: name }));
  await store.activate(name, contentHash, new Date(0));
  const lease = store.acquire(name)!;
  const packages = lease.packageNames().sort();
  const allBytes = lease.allBytes;
  lease.release();
  const revDir = path.join(store.root, name, contentHash.slice('sha256:'.length));
  return { name, dir: revDir, contentHash, packages, allBytes };
}

const MBps = (bytes: number, seconds: number) => round(bytes / 1048576 / seconds, 1);

async function measureCatalog(
  c: Catalog,
  servers: Record<string, { pid: { http: number; https: number }; http: string; https: string }>,
  opts: { runs: number; clients: number; perClient: number; metas: number },
) {
  const result: Record<string, unknown> = {
    blobs: undefined,
    allMB: round(c.allBytes / 1048576, 1),
  };
  const names = Object.keys(servers);
  for (const proto of ['http', 'https'] as const) {
    const url = (s: string, p: string) => `${servers[s]![proto]}/catalogs/${c.name}/api/v1/${p}`;
    const single: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    const gzip: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (let i = 0; i < opts.runs; i++)
      for (const s of names) {
        const [t] = await curl([url(s, 'all')]);
        if (t!.bytes !== c.allBytes) throw new Error(`${s}: /all is ${t!.bytes} bytes`);
        single[s]!.push(t!.seconds);
        gzip[s]!.push((await curl([url(s, 'all')], ['Accept-Encoding: gzip']))[0]!.seconds);
      }
    const concurrent: Record<string, { MBps: number; peakRssMB: number }> = {};
    for (const s of names) {
      const urls = Array.from({ length: opts.perClient }, () => url(s, 'all'));
      const t0 = performance.now();
      const [all, peak] = await peakRss(servers[s]!.pid[proto], () =>
        Promise.all(Array.from({ length: opts.clients }, () => curl(urls))),
      );
      const seconds = (performance.now() - t0) / 1000;
      const bytes = all.flat().reduce((n, t) => n + t.bytes, 0);
      concurrent[s] = { MBps: MBps(bytes, seconds), peakRssMB: round(peak / 1048576, 1) };
    }
    const rnd = prng(7);
    const pkgs = Array.from(
      { length: opts.metas },
      () => c.packages[Math.floor(rnd() * c.packages.length)]!,
    );
    const metas: Record<string, Record<string, { p50Ms: number; p99Ms: number }>> = {};
    for (const s of names) {
      const lat = (ts: Transfer[]) => ({
        p50Ms: round(
          quantile(
            ts.map((t) => t.seconds * 1000),
            0.5,
          ),
        ),
        p99Ms: round(
          quantile(
            ts.map((t) => t.seconds * 1000),
            0.99,
          ),
        ),
      });
      metas[s] = {
        package: lat(
          await curl(pkgs.map((p) => `${url(s, 'metas')}?package=${encodeURIComponent(p)}`)),
        ),
        schemaPackage: lat(
          await curl(
            Array.from({ length: opts.metas }, () => `${url(s, 'metas')}?schema=olm.package`),
          ),
        ),
      };
    }
    const med = (xs: number[]) => round(quantile(xs, 0.5), 4);
    result[proto] = {
      singleSeconds: Object.fromEntries(names.map((s) => [s, med(single[s]!)])),
      singleRatio: round(quantile(single.ours!, 0.5) / quantile(single.baseline!, 0.5)),
      gzipSeconds: Object.fromEntries(names.map((s) => [s, med(gzip[s]!)])),
      gzipSpeedup: round(quantile(gzip.baseline!, 0.5) / quantile(gzip.ours!, 0.5), 1),
      concurrent,
      concurrentRatio: round(concurrent.ours!.MBps / concurrent.baseline!.MBps),
      metas,
    };
    log(`${c.name} ${proto}: ${JSON.stringify(result[proto])}`);
  }
  return result;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'size-mb': { type: 'string', default: '50' },
      real: { type: 'string', default: '/tmp/real/v4.20' },
      runs: { type: 'string', default: '5' },
      clients: { type: 'string', default: '16' },
      'per-client': { type: 'string', default: '5' },
      metas: { type: 'string', default: '200' },
      // Another checkout's build to measure as ours (e.g. main's, for a before/after).
      ours: { type: 'string', default: ROOT },
    },
  });
  const opts = {
    runs: Number(values.runs),
    clients: Number(values.clients),
    perClient: Number(values['per-client']),
    metas: Number(values.metas),
  };
  const oursRoot = path.resolve(values.ours);
  if (!existsSync(path.join(oursRoot, 'dist/src/server/index.js')))
    throw new Error('bench/serve.ts runs the built server: make build first');
  const baselineBin = execFileSync(path.join(ROOT, 'hack/serve-baseline/build.sh'), {
    encoding: 'utf8',
  }).trim();
  const tmp = await mkdtemp(path.join(tmpdir(), 'serve-bench-'));
  const procs: ChildProcess[] = [];
  try {
    const gen = path.join(tmp, 'fbc');
    await generateCatalog(gen, { seed: 1, sizeMB: Number(values['size-mb']) });
    const store = new ContentStore(path.join(tmp, 'store'));
    const catalogs = [await storeCatalog(store, `generated-${values['size-mb']}mb`, gen)];
    if (values.real && existsSync(values.real))
      catalogs.push(await storeCatalog(store, path.basename(values.real), values.real));
    await store.close();

    const env = { ...process.env, NODE_OPTIONS, MALLOC_ARENA_MAX: MALLOC_ARENA_MAX ?? '' };
    const [ours, oursUrls] = await startServeServer(
      [
        path.join(oursRoot, 'bench/serve-server.mjs'),
        store.root,
        path.join(TLS, 'a.crt'),
        path.join(TLS, 'a.key'),
        ...catalogs.map((c) => `${c.name}=${c.contentHash}`),
      ],
      env,
    );
    procs.push(ours);
    const goArgs = catalogs.map((c) => `${c.name}=${c.dir}`);
    const [goHttp, httpLine] = await startServer(baselineBin, goArgs, process.env);
    const tlsArgs = ['-tls-cert', path.join(TLS, 'a.crt'), '-tls-key', path.join(TLS, 'a.key')];
    const [goHttps, httpsLine] = await startServer(
      baselineBin,
      [...tlsArgs, ...goArgs],
      process.env,
    );
    procs.push(goHttp, goHttps);
    const urlOf = (l: string) => l.replace(/^listening /, '').replace('[::]', '127.0.0.1');
    await new Promise((r) => setTimeout(r, 2000));
    const loadedRssMB = round(rssBytes(ours.pid!) / 1048576, 1);
    const loadedMemory = await memoryUsage(ours);

    const servers = {
      ours: { pid: { http: ours.pid!, https: ours.pid! }, ...oursUrls },
      baseline: {
        pid: { http: goHttp.pid!, https: goHttps.pid! },
        http: urlOf(httpLine),
        https: urlOf(httpsLine),
      },
    };
    const results: Record<string, unknown> = {};
    for (const c of catalogs) results[c.name] = await measureCatalog(c, servers, opts);
    await new Promise((r) => setTimeout(r, 5000));
    const report = {
      method: { ...opts, nodeOptions: NODE_OPTIONS, mallocArenaMax: MALLOC_ARENA_MAX ?? null },
      oursRss: {
        loadedMB: loadedRssMB,
        loadedMemoryMB: loadedMemory,
        settledAfterLoadMB: round(rssBytes(ours.pid!) / 1048576, 1),
        settledMemoryMB: await memoryUsage(ours),
        highWaterMB: round(rssBytes(ours.pid!, 'VmHWM') / 1048576, 1),
      },
      baselineRss: { settledAfterLoadMB: round(rssBytes(goHttp.pid!) / 1048576, 1) },
      catalogs: results,
    };
    await mkdir(RESULTS, { recursive: true });
    await writeFile(path.join(RESULTS, 'serve.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const p of procs) p.kill();
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
