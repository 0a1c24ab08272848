// `peer` (issue 39): catalogd-ts beside upstream catalogd v1.5.1 as a user choosing between them
// would see them: same machine, same control plane, same registry and images (by digest), one
// controller after the other, each with its own ClusterCatalog CRD. Per catalog and controller:
// apply → Serving=True over cold syncs, peak RSS while syncing and while 16 clients read /all,
// /all and metas speed through one client, idle CPU, and what the catalog adds to kube-apiserver's
// RSS and etcd. Per controller also the settled memory of one process with both catalogs loaded.
// BENCH_ONLY=peer (`make bench-peer`) runs only this; see bench/README.md "Peer".
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ANNOTATION_CONTENT_PROFILE, GROUP, VERSION } from '../../src/api/v1/index.js';
import { pushCatalog } from '../../src/source/index.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import { procStatus } from '../../test/support/controller.js';
import type { Api } from '../lib/api.js';
import { CC } from '../lib/api.js';
import { deleteCatalog } from '../lib/catalogs.js';
import { apiserverRss, waitForQuietControlPlane } from '../lib/cluster.js';
import { MB, OUT, RESULTS, ROOT, log, round } from '../lib/config.js';
import {
  ContentClient,
  linesDigest,
  medianTransfer,
  parallelTransfers,
  queryLatency,
} from '../lib/content-client.js';
import type { Controller } from '../lib/controller-process.js';
import { procCpuSeconds, processSampler, startController } from '../lib/controller-process.js';
import type { ResidentMemory } from '../lib/proc-memory.js';
import { residentMemory } from '../lib/proc-memory.js';
import { updateReadme, writeResults } from '../lib/report.js';
import { median } from '../lib/stats.js';
import type { ColdSyncContext } from './cold-sync.js';
import {
  UPSTREAM_CRD,
  allowInsecureRegistry,
  selfSignedCert,
  serviceAccountFiles,
  startUpstream,
  upstreamBinDir,
} from '../lib/upstream.js';

/** Cold syncs per controller and catalog (issue 39: at least 3). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_PEER_ROUNDS ?? '3'));
/** Sequential /all transfers whose median is reported (identity and gzip). */
const TRANSFERS = Math.max(1, Number(process.env.BENCH_PEER_TRANSFERS ?? '5'));
const READERS = 16;
const READS_EACH = Math.max(1, Number(process.env.BENCH_PEER_READS_EACH ?? '5'));
/** metas?package= requests (cycling over the catalog's packages); a quarter for schema=. */
const METAS = Math.max(4, Number(process.env.BENCH_PEER_METAS ?? '200'));
/** Seconds of idle CPU measured (reported per minute). */
const IDLE_SECONDS = Math.max(5, Number(process.env.BENCH_PEER_IDLE_SECONDS ?? '60'));
/**
 * Seconds of quiet after the readers before the idle window: past catalogd-ts's one post-burst
 * memory reclaim (the first quiet --memory-reclaim-interval, 2 s, after the readers; 10 s
 * before stop 35), which is the readers' cost, not idle's. Both contenders wait the same.
 */
const IDLE_SETTLE_SECONDS = Math.max(0, Number(process.env.BENCH_PEER_IDLE_SETTLE_SECONDS ?? '25'));
/** The generated catalog's size in MB (test/support/fbcgen.ts, seed 1). */
const SIZE_MB = Number(process.env.BENCH_PEER_SIZE_MB ?? '50');
const REAL = (process.env.BENCH_REAL_CATALOGS ?? '/tmp/real/v4.20').split(',').filter(Boolean);
/** Seconds of quiet (no requests, control plane quiet) before the settled memory is read. */
const SETTLE_SECONDS = Math.max(0, Number(process.env.BENCH_PEER_SETTLE_SECONDS ?? '45'));
/** `1`: only the settled-memory run of each contender (no per-catalog rounds). */
const SETTLED_ONLY = process.env.BENCH_PEER_SETTLED_ONLY === '1';
/** Comma-separated contender ids to run (default all: catalogd-ts, upstream, catalogd-ts-none). */
const CONTENDERS = process.env.BENCH_PEER_CONTENDERS?.split(',').filter(Boolean);
/** Extra flags of the catalogd-ts processes (e.g. `--memory-reclaim-interval=0`). */
const CONTROLLER_FLAGS = (process.env.BENCH_PEER_CONTROLLER_FLAGS ?? '').split(' ').filter(Boolean);

/** What the scenario runs against: the bench's cluster and scratch space (as cold-sync's). */
export type PeerContext = Pick<
  ColdSyncContext,
  'api' | 'etcd' | 'kubeconfig' | 'registry' | 'work' | 'logDir' | 'resetControlPlane'
>;

/** One controller on one catalog. Seconds, bytes; medians over the rounds where so named. */
export interface PeerSide {
  /** apply → Serving=True per round, and their median. */
  servingSeconds: number;
  roundServingSeconds: number[];
  /** apply → fully synced (catalogd-ts: objects written; upstream: the same as Serving). */
  syncedSeconds: number;
  /** The highest controller RSS from start to synced, over all rounds (VmHWM included). */
  peakRssSyncBytes: number;
  /** The highest controller RSS while READERS clients read /all READS_EACH times each. */
  peakRssReadersBytes: number;
  allIdentity: { seconds: number; bytes: number; runs: number[] };
  allParallel: { clients: number; each: number; seconds: number; mbPerSecond: number };
  allGzip: { seconds: number; bytes: number; runs: number[] };
  metasPackage: { p50Ms: number; p99Ms: number; requests: number };
  metasSchemaPackage: { p50Ms: number; p99Ms: number; requests: number };
  idleCpuSecondsPerMinute: number;
  /** kube-apiserver VmRSS after the sync minus before it (freshly restarted), median round. */
  apiserverRssBytesAdded: number;
  /** etcd's db (compacted, defragmented) after minus before, median round. */
  etcdBytesAdded: number;
  /** The /all body's lines, order- and key-order-free (linesDigest). */
  allLines: { lines: number; sha256: string };
}

export interface PeerCatalog {
  id: string;
  ref: string;
  contentBytes: number;
  sides: Record<string, PeerSide | { todo: string }>;
  /** Whether catalogd-ts's and upstream's /all held the same lines. */
  sameLines: boolean | null;
}

/**
 * One process of a contender with every catalog applied at once and synced (catalogd-ts: its
 * objects written too), then READERS clients reading each catalog's /all READS_EACH times, then
 * `settleSeconds` of quiet: its memory then.
 */
export interface SettledMemory extends ResidentMemory {
  catalogs: string[];
  readers: { clients: number; each: number };
  settleSeconds: number;
  /** VmRSS at the same moment. */
  vmRssBytes: number;
  /** VmRSS of the same process started and ready, before any catalog. */
  idleVmRssBytes: number;
  /** catalogd-ts only: V8's heap and external memory from its /metrics (nodejs_* gauges). */
  v8?: { heapUsedBytes: number; heapTotalBytes: number; externalBytes: number };
}

export interface PeerResult {
  rounds: number;
  transfers: number;
  readers: { clients: number; each: number };
  metasRequests: number;
  idleSeconds: number;
  upstream: { version: string; binary: string };
  catalogs: PeerCatalog[];
  /** Per contender id. */
  settled: Record<string, SettledMemory>;
}

/** One contender: how it is started, which CRD it needs, how its ClusterCatalog looks. */
interface Contender {
  id: string;
  crd: string;
  start(): Promise<Controller & { ca?: Buffer }>;
  annotations?: Record<string, string>;
  /** Fully synced: upstream is when Serving; catalogd-ts when its objects are written too. */
  synced: (s: CatalogStatus) => boolean;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  observedGeneration?: number;
}
interface CatalogStatus {
  metadata: { generation?: number };
  status?: {
    conditions?: Condition[];
    syncingTo?: string;
    contentHash?: string;
    urls?: { base?: string };
  };
}

const cond = (s: CatalogStatus, type: string) => s.status?.conditions?.find((c) => c.type === type);
const serving = (s: CatalogStatus) => cond(s, 'Serving')?.status === 'True';
const progressed = (s: CatalogStatus) => {
  const p = cond(s, 'Progressing');
  return p?.reason === 'Succeeded' && p.observedGeneration === s.metadata.generation;
};

// ---------- the CRD each contender needs ----------

const CRD_NAME = `clustercatalogs.${GROUP}`;

/** Replaces the ClusterCatalog CRD (deleting the other's, which removes its ClusterCatalogs). */
function installCrd(file: string): void {
  execFileSync('kubectl', ['delete', 'crd', CRD_NAME, '--ignore-not-found', '--wait=true'], {
    stdio: 'ignore',
  });
  execFileSync('kubectl', ['apply', '--server-side', '--force-conflicts', '-f', file], {
    stdio: 'ignore',
  });
  execFileSync(
    'kubectl',
    ['wait', '--for=condition=Established', '--timeout=60s', `crd/${CRD_NAME}`],
    { stdio: 'ignore' },
  );
}

/** Whether the built controller knows the content profile `none` (issue 39 point 7). */
function controllerKnowsNone(): boolean {
  const r = (() => {
    try {
      return execFileSync(
        process.execPath,
        [path.join(ROOT, 'dist', 'src', 'cmd', 'catalogd.js'), 'controller', '--help'],
        { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '/nonexistent' } },
      );
    } catch (err) {
      return String((err as { stdout?: string }).stdout ?? '');
    }
  })();
  return /--content-profile\s+\S*none/.test(r);
}

// ---------- one controller, one catalog ----------

async function watchCatalog(
  api: Api,
  name: string,
  synced: (s: CatalogStatus) => boolean,
): Promise<{
  servingAt: Promise<number>;
  syncedAt: Promise<number>;
  stop(): void;
  last(): CatalogStatus | undefined;
}> {
  let last: CatalogStatus | undefined;
  let onServing: (t: number) => void = () => undefined;
  let onSynced: (t: number) => void = () => undefined;
  const servingAt = new Promise<number>((r) => (onServing = r));
  const syncedAt = new Promise<number>((r) => (onSynced = r));
  const w = api.watch(`${CC}?fieldSelector=metadata.name%3D${name}`, (e, at) => {
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
    last = e.object;
    if (serving(last)) onServing(at);
    if (synced(last)) onSynced(at);
  });
  return { servingAt, syncedAt, stop: () => w.stop(), last: () => last };
}

async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(new Error(`${what}: no result in ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}

/** Creates the ClusterCatalog `name` of image `ref` as `who` wants it (its annotations). */
async function createCatalog(api: Api, who: Contender, name: string, ref: string): Promise<void> {
  await api.json('POST', CC, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ClusterCatalog',
    metadata: { name, ...(who.annotations && { annotations: who.annotations }) },
    spec: { source: { type: 'Image', image: { ref } } },
  });
}

interface Round {
  serving: number;
  synced: number;
  peakRss: number;
  apiserverRssAdded: number;
  etcdAdded: number;
}

/** The HTTP and idle measurements, on the last round's controller with its catalog synced. */
async function contentAndIdle(
  ctx: PeerContext,
  c: Controller & { ca?: Buffer },
  base: string,
  packages: string[],
  sampler: ReturnType<typeof processSampler>,
): Promise<
  Omit<
    PeerSide,
    | 'servingSeconds'
    | 'roundServingSeconds'
    | 'syncedSeconds'
    | 'peakRssSyncBytes'
    | 'apiserverRssBytesAdded'
    | 'etcdBytesAdded'
  >
> {
  const client = new ContentClient(base, c.ca, READERS);
  try {
    const body = (await client.get('/api/v1/all', { keep: true })).body!;
    const allLines = linesDigest(body);
    const identity = await medianTransfer(client, '/api/v1/all', TRANSFERS);
    const gzip = await medianTransfer(client, '/api/v1/all', TRANSFERS, true);
    const t0 = performance.now();
    const parallel = await parallelTransfers(client, '/api/v1/all', READERS, READS_EACH);
    const peakRssReadersBytes = sampler.peakBetween(t0, performance.now());
    const pkgQueries = packages.map((p) => `/api/v1/metas?package=${encodeURIComponent(p)}`);
    const metasPackage = await queryLatency(client, pkgQueries, METAS);
    const metasSchemaPackage = await queryLatency(
      client,
      ['/api/v1/metas?schema=olm.package'],
      Math.max(4, METAS >> 2),
    );
    client.close();
    // Idle: after the readers' sockets closed and the control plane settled.
    await waitForQuietControlPlane(ctx.api);
    await delay(IDLE_SETTLE_SECONDS * 1000);
    const cpu0 = procCpuSeconds(c.pid);
    await delay(IDLE_SECONDS * 1000);
    const idle = ((procCpuSeconds(c.pid) - cpu0) * 60) / IDLE_SECONDS;
    return {
      peakRssReadersBytes,
      allIdentity: {
        seconds: round(identity.seconds, 4),
        bytes: identity.bytes,
        runs: identity.all.map((x) => round(x, 4)),
      },
      allParallel: {
        clients: READERS,
        each: READS_EACH,
        seconds: round(parallel.seconds, 3),
        mbPerSecond: round(parallel.mbPerSecond, 1),
      },
      allGzip: {
        seconds: round(gzip.seconds, 4),
        bytes: gzip.bytes,
        runs: gzip.all.map((x) => round(x, 4)),
      },
      metasPackage,
      metasSchemaPackage,
      idleCpuSecondsPerMinute: round(idle, 3),
      allLines,
    };
  } finally {
    client.close();
  }
}

/** The package names of a catalog's FBC (the `olm.package` blobs), for metas?package= queries. */
function packagesOf(body: Buffer): string[] {
  return body
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { name?: string }).name ?? '')
    .filter((n) => n !== '');
}

/** The content and idle measurements, taken on each contender's last round. */
type ContentAndIdle = Awaited<ReturnType<typeof contentAndIdle>>;

/**
 * Round `r` of `who` on `cat`: one cold sync by a fresh process on a freshly restarted control
 * plane; on the last round, the content and idle measurements too, on the same process.
 */
async function coldRound(
  ctx: PeerContext,
  who: Contender,
  cat: { id: string; ref: string },
  r: number,
): Promise<{ round: Round; rest?: ContentAndIdle }> {
  const name = `peer-${who.id}-${cat.id}-${r}`.replace(/[^a-z0-9-]/g, '-');
  await ctx.resetControlPlane();
  const c = await who.start();
  const sampler = processSampler(c.pid);
  try {
    await waitForQuietControlPlane(ctx.api);
    await ctx.etcd.compactDefrag();
    const etcd0 = (await ctx.etcd.status()).dbSize;
    const rss0 = apiserverRss();
    const w = await watchCatalog(ctx.api, name, who.synced);
    const t0 = performance.now();
    await createCatalog(ctx.api, who, name, cat.ref);
    const servingAt = await withDeadline(w.servingAt, 900_000, `${name} Serving`);
    const syncedAt = await withDeadline(w.syncedAt, 900_000, `${name} synced`);
    const base = w.last()?.status?.urls?.base;
    w.stop();
    if (!base) throw new Error(`${name}: no status.urls.base`);
    const peak = Math.max(sampler.peakBetween(-Infinity, syncedAt), procStatus(c.pid)?.hwm ?? 0);
    await waitForQuietControlPlane(ctx.api);
    const rss1 = apiserverRss();
    await ctx.etcd.compactDefrag();
    const etcd1 = (await ctx.etcd.status()).dbSize;
    const round: Round = {
      serving: (servingAt - t0) / 1000,
      synced: (syncedAt - t0) / 1000,
      peakRss: peak,
      apiserverRssAdded: rss1 - rss0,
      etcdAdded: etcd1 - etcd0,
    };
    log(`peer ${who.id} ${cat.id} round ${r}: ${JSON.stringify(round)}`);
    let rest: ContentAndIdle | undefined;
    if (r === ROUNDS) {
      const client = new ContentClient(base, c.ca);
      const pkgs = packagesOf(
        (await client.get('/api/v1/metas?schema=olm.package', { keep: true })).body!,
      );
      client.close();
      rest = await contentAndIdle(ctx, c, base, pkgs.slice(0, 50), sampler);
      log(`peer ${who.id} ${cat.id} content: ${JSON.stringify({ ...rest, allLines: undefined })}`);
    }
    // The controller removes its finalizer: delete while it runs.
    await deleteCatalog(ctx.api, name);
    return { round, ...(rest && { rest }) };
  } finally {
    sampler.stop();
    await c.stop();
  }
}

/** One contender's side of a catalog from its rounds and its last round's measurements. */
function sideOf(rounds: Round[], rest: ContentAndIdle): PeerSide {
  const mid = (f: (r: Round) => number) => median(rounds.map(f));
  return {
    servingSeconds: round(
      mid((r) => r.serving),
      2,
    ),
    roundServingSeconds: rounds.map((r) => round(r.serving, 2)),
    syncedSeconds: round(
      mid((r) => r.synced),
      2,
    ),
    peakRssSyncBytes: Math.max(...rounds.map((r) => r.peakRss)),
    apiserverRssBytesAdded: mid((r) => r.apiserverRssAdded),
    etcdBytesAdded: mid((r) => r.etcdAdded),
    ...rest,
  };
}

/** The settled memory of one process of `who` with every catalog of `cats` loaded. */
async function settledMemory(
  ctx: PeerContext,
  who: Contender,
  cats: Array<{ id: string; ref: string }>,
): Promise<SettledMemory> {
  await ctx.resetControlPlane();
  const c = await who.start();
  const names = cats.map((cat) => `peer-settled-${who.id}-${cat.id}`.replace(/[^a-z0-9-]/g, '-'));
  try {
    await waitForQuietControlPlane(ctx.api);
    const idleVmRssBytes = procStatus(c.pid)?.rss ?? 0;
    const watches = await Promise.all(names.map((n) => watchCatalog(ctx.api, n, who.synced)));
    for (const [i, cat] of cats.entries()) await createCatalog(ctx.api, who, names[i]!, cat.ref);
    const bases: string[] = [];
    for (const [i, w] of watches.entries()) {
      await withDeadline(w.syncedAt, 900_000, `${names[i]} synced`);
      w.stop();
      const base = w.last()?.status?.urls?.base;
      if (!base) throw new Error(`${names[i]}: no status.urls.base`);
      bases.push(base);
    }
    for (const base of bases) {
      const client = new ContentClient(base, c.ca, READERS);
      try {
        await parallelTransfers(client, '/api/v1/all', READERS, READS_EACH);
      } finally {
        client.close();
      }
    }
    await waitForQuietControlPlane(ctx.api);
    await delay(SETTLE_SECONDS * 1000);
    const mem = residentMemory(c.pid);
    const vmRssBytes = procStatus(c.pid)?.rss ?? 0;
    const v8 = who.id.startsWith('catalogd-ts')
      ? {
          heapUsedBytes: await c.metric('nodejs_heap_size_used_bytes'),
          heapTotalBytes: await c.metric('nodejs_heap_size_total_bytes'),
          externalBytes: await c.metric('nodejs_external_memory_bytes'),
        }
      : undefined;
    const settled: SettledMemory = {
      catalogs: cats.map((cat) => cat.id),
      readers: { clients: READERS, each: READS_EACH },
      settleSeconds: SETTLE_SECONDS,
      vmRssBytes,
      idleVmRssBytes,
      ...mem,
      ...(v8 && { v8 }),
    };
    log(`peer ${who.id} settled: ${JSON.stringify(settled)}`);
    for (const n of names) await deleteCatalog(ctx.api, n);
    return settled;
  } finally {
    await c.stop();
  }
}

// ---------- the scenario ----------

/**
 * catalogd-ts elects a leader as deployed (upstream does too); a Lease of its own per process,
 * so that no round waits for the previous process's Lease to expire.
 */
const leaderElection = () => ['--leader-elect', `--leader-election-id=bench-peer-${Date.now()}`];

async function catalogsUnderTest(ctx: PeerContext) {
  const out: Array<{ id: string; dir: string; ref: string; contentBytes: number }> = [];
  const gen = path.join(ctx.work, `peer-${SIZE_MB}mb`);
  await generateCatalog(gen, { seed: 1, sizeMB: SIZE_MB });
  const dirs = [{ id: `generated-${SIZE_MB}mb`, dir: gen }];
  for (const d of REAL) {
    if (existsSync(d)) dirs.push({ id: `real-${path.basename(d)}`, dir: d });
    else log(`peer: real catalog ${d} missing, skipped`);
  }
  for (const { id, dir } of dirs) {
    const { ref } = await pushCatalog(dir, `${ctx.registry}/bench/peer-${id}:v1`);
    const du = execFileSync('du', ['-sb', dir], { encoding: 'utf8' });
    out.push({ id, dir, ref, contentBytes: Number(du.split('\t')[0]) });
  }
  return out;
}

export async function peer(ctx: PeerContext): Promise<PeerResult> {
  const binDir = upstreamBinDir();
  await allowInsecureRegistry(binDir, ctx.registry);
  const tls = selfSignedCert(ctx.work);
  const ca = readFileSync(tls.cert);
  const saDir = await serviceAccountFiles(ctx.api, ctx.work);
  const oursCrd = path.join(ROOT, 'crds', `${GROUP}_clustercatalogs.yaml`);
  const oursSynced = (s: CatalogStatus) => serving(s) && progressed(s) && !s.status?.syncingTo;
  const contenders: Contender[] = [
    {
      id: 'catalogd-ts',
      crd: oursCrd,
      start: () =>
        startController(ctx.kubeconfig, ctx.logDir, [...leaderElection(), ...CONTROLLER_FLAGS]),
      synced: oursSynced,
    },
    {
      id: 'upstream',
      crd: UPSTREAM_CRD,
      start: () =>
        startUpstream({
          binDir,
          kubeconfig: ctx.kubeconfig,
          logDir: ctx.logDir,
          serviceAccountDir: saDir,
          tls,
        }).then((u) => Object.assign(u, { ca })),
      synced: (s) => serving(s) && progressed(s),
    },
  ];
  const none = controllerKnowsNone();
  if (none)
    contenders.push({
      id: 'catalogd-ts-none',
      crd: oursCrd,
      start: () =>
        startController(ctx.kubeconfig, ctx.logDir, [...leaderElection(), ...CONTROLLER_FLAGS]),
      annotations: { [ANNOTATION_CONTENT_PROFILE]: 'none' },
      synced: oursSynced,
    });

  const cats = await catalogsUnderTest(ctx);
  const results: PeerCatalog[] = cats.map((c): PeerCatalog => ({
    id: c.id,
    ref: c.ref,
    contentBytes: c.contentBytes,
    sides: none
      ? {}
      : {
          // TODO(issue 39 point 7): filled in once the controller knows the profile `none`
          // (branch h-serve-first); this scenario then runs it as a third contender.
          'catalogd-ts-none': { todo: 'the controller under test has no content profile none' },
        },
    sameLines: null,
  }));
  const settled: Record<string, SettledMemory> = {};
  let crd = '';
  const useCrd = (file: string): void => {
    if (crd !== file) installCrd(file);
    crd = file;
  };
  const active = contenders.filter((w) => !CONTENDERS || CONTENDERS.includes(w.id));
  if (!SETTLED_ONLY)
    for (const [i, cat] of cats.entries()) {
      log(`peer: ${cat.id} (${round(cat.contentBytes / MB, 1)} MiB), ${ROUNDS} rounds`);
      const rounds = new Map<string, Round[]>(active.map((w) => [w.id, []]));
      const rests = new Map<string, ContentAndIdle>();
      for (let r = 1; r <= ROUNDS; r++) {
        // The contenders take turns within a round, in alternating order (A B C, C B A, …): a
        // machine that slows down or speeds up during the bench weighs on each alike.
        for (const who of r % 2 === 1 ? active : [...active].reverse()) {
          useCrd(who.crd);
          const { round: one, rest } = await coldRound(ctx, who, cat, r);
          rounds.get(who.id)!.push(one);
          if (rest) rests.set(who.id, rest);
        }
      }
      for (const who of active)
        results[i]!.sides[who.id] = sideOf(rounds.get(who.id)!, rests.get(who.id)!);
    }
  for (const who of active) {
    useCrd(who.crd);
    log(`peer: ${who.id} settled with ${cats.map((c) => c.id).join(' and ')}`);
    settled[who.id] = await settledMemory(ctx, who, cats);
  }
  useCrd(oursCrd);
  for (const r of results) {
    const a = r.sides['catalogd-ts'] as PeerSide | undefined;
    const b = r.sides.upstream as PeerSide | undefined;
    r.sameLines = a && b ? a.allLines.sha256 === b.allLines.sha256 : null;
  }
  return {
    rounds: ROUNDS,
    transfers: TRANSFERS,
    readers: { clients: READERS, each: READS_EACH },
    metasRequests: METAS,
    idleSeconds: IDLE_SECONDS,
    upstream: {
      version: path.basename(path.dirname(binDir)),
      binary: path.join(binDir, 'catalogd'),
    },
    catalogs: results,
    settled,
  };
}

// ---------- the table ----------

const mib = (b: number) => `${(b / MB).toFixed(1)} MiB`;
/** a ÷ b; beyond 100× (upstream writes no objects: its etcd and apiserver add ~0) just "≫ 100×". */
const ratio = (a: number, b: number) =>
  a <= 0 && b <= 0 ? '–' : b <= 0 || a / b > 100 ? '≫ 100×' : `${(a / b).toFixed(2)}×`;

/** One markdown table: a row per measurement, a column per catalog, "ours vs upstream (ratio)". */
export function peerMarkdown(r: PeerResult): string {
  const rows: Array<[string, (s: PeerSide) => number, (x: number) => string]> = [
    ['apply → Serving=True (median)', (s) => s.servingSeconds, (x) => `${x.toFixed(2)} s`],
    ['apply → objects written too', (s) => s.syncedSeconds, (x) => `${x.toFixed(2)} s`],
    ['controller peak RSS, sync', (s) => s.peakRssSyncBytes, mib],
    [`controller peak RSS, ${READERS} clients reading /all`, (s) => s.peakRssReadersBytes, mib],
    [
      '/all identity, one transfer (median)',
      (s) => s.allIdentity.seconds,
      (x) => `${x.toFixed(3)} s`,
    ],
    [
      `/all identity, ${READERS} clients × ${r.readers.each} (MB/s)`,
      (s) => s.allParallel.mbPerSecond,
      (x) => x.toFixed(0),
    ],
    ['/all gzip, one transfer (median)', (s) => s.allGzip.seconds, (x) => `${x.toFixed(3)} s`],
    ['metas?package= p99', (s) => s.metasPackage.p99Ms, (x) => `${x.toFixed(1)} ms`],
    [
      'metas?schema=olm.package p99',
      (s) => s.metasSchemaPackage.p99Ms,
      (x) => `${x.toFixed(1)} ms`,
    ],
    [
      'idle controller CPU per minute',
      (s) => s.idleCpuSecondsPerMinute,
      (x) => `${x.toFixed(2)} s`,
    ],
    ['kube-apiserver RSS added', (s) => s.apiserverRssBytesAdded, mib],
    ['etcd bytes added', (s) => s.etcdBytesAdded, mib],
  ];
  const head = `| | ${r.catalogs.map((c) => `${c.id}: catalogd-ts vs upstream (ratio)`).join(' | ')} |`;
  const sep = `|---|${r.catalogs.map(() => '---').join('|')}|`;
  const body = rows.map(([label, get, fmt]) => {
    const cells = r.catalogs.map((c) => {
      const a = c.sides['catalogd-ts'] as PeerSide | undefined;
      const b = c.sides.upstream as PeerSide | undefined;
      if (!a || !b) return '–';
      return `${fmt(get(a))} vs ${fmt(get(b))} (${ratio(get(a), get(b))})`;
    });
    return `| ${label} | ${cells.join(' | ')} |`;
  });
  const noneRow = `| catalogd-ts, profile none: Serving / peak RSS sync / etcd added | ${r.catalogs
    .map((c) => {
      const n = c.sides['catalogd-ts-none'];
      if (!n) return '–';
      if ('todo' in n) return `TODO: ${n.todo}`;
      return `${n.servingSeconds.toFixed(2)} s / ${mib(n.peakRssSyncBytes)} / ${mib(n.etcdBytesAdded)}`;
    })
    .join(' | ')} |`;
  const same = `| /all bodies hold the same lines | ${r.catalogs.map((c) => String(c.sameLines)).join(' | ')} |`;
  return [head, sep, ...body, noneRow, same].join('\n') + '\n' + settledMarkdown(r.settled);
}

/**
 * The settled memory of each contender (one process, every catalog loaded): VmRSS, VmRSS before
 * the catalogs, and where it is (anonymous pages, glibc's main arena among them, and
 * file-backed pages; for catalogd-ts V8's heap and external memory).
 */
export function settledMarkdown(settled: PeerResult['settled']): string {
  const rows = Object.entries(settled);
  if (rows.length === 0) return '';
  const s0 = rows[0]![1];
  const what =
    `settled RSS, one process with ${s0.catalogs.join(' and ')} loaded, after ` +
    `${s0.readers.clients} clients × ${s0.readers.each} reads of each /all and ${s0.settleSeconds} s quiet`;
  const line = ([id, s]: [string, SettledMemory]) =>
    `| ${id} | ${mib(s.vmRssBytes)} | ${mib(s.idleVmRssBytes)} | ${mib(s.anonymousBytes)} | ${mib(s.mainArenaBytes)} | ${mib(s.fileBytes)} | ${
      s.v8
        ? `${mib(s.v8.heapUsedBytes)} / ${mib(s.v8.heapTotalBytes)} / ${mib(s.v8.externalBytes)}`
        : '–'
    } |`;
  return (
    [
      '',
      `| ${what} | VmRSS | VmRSS before the catalogs | anonymous | of it glibc's main arena | file-backed | V8 heap used / total / external |`,
      '|---|---|---|---|---|---|---|',
      ...rows.map(line),
    ].join('\n') + '\n'
  );
}

/**
 * BENCH_ONLY=peer: the scenario, its results in bench/results/$BENCH_OUT.json (`peer`) and
 * peer.md, the table in bench/README.md (BENCH_OUT=latest, not settled-only), printed.
 */
export async function runPeer(
  ctx: PeerContext,
  results: Record<string, unknown>,
  started: Date,
): Promise<void> {
  const r = await peer(ctx);
  results.peer = r;
  await writeResults(results, started);
  const table = peerMarkdown(r);
  await writeFile(path.join(RESULTS, `${OUT === 'latest' ? 'peer' : OUT}.md`), table);
  // A settled-only run has no rounds: the README keeps the last full table.
  if (OUT === 'latest' && !SETTLED_ONLY) await updateReadme(table, 'peer');
  process.stdout.write(`\n${table}`);
}
