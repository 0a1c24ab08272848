// The cold-sync scenario: for one catalog size, the controller's rounds interleaved with the raw
// client's levels and one kubectl apply; returns the typed ColdResult bench/README.md describes.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ImagePuller, pushCatalog } from '../../src/source/index.js';
import { scanCatalog } from '../../src/sync/index.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import type { Api } from '../lib/api.js';
import { CC, CM, METADATA_ONLY } from '../lib/api.js';
import {
  catalogObject,
  catalogWatch,
  countObjects,
  deleteCatalog,
  kubectlApply,
  ownerCatalog,
  rawPosts,
  render,
  succeeded,
} from '../lib/catalogs.js';
import type { Etcd, PlaneMsPerWrite, QuietWait } from '../lib/cluster.js';
import {
  apiserverLiveHeap,
  apiserverPostSeconds,
  apiserverProfile,
  controlPlaneCpu,
  planeDelta,
  planeMsPerWrite,
  waitForQuietControlPlane,
} from '../lib/cluster.js';
import { CONCURRENCY, MB, PPROF_DIR, ROUNDS, log, rawLevel, reuse, round } from '../lib/config.js';
import { procStatus } from '../../test/support/controller.js';
import { processSampler, startController } from '../lib/controller-process.js';
import { writeResults } from '../lib/report.js';
import { median, medianItem } from '../lib/stats.js';
import { noopAndIncremental } from './noop.js';

// ---------- main ----------

export interface ColdResult {
  sizeMB: number;
  catalogBytes: number;
  blobs: number;
  seconds: number;
  pullSeconds: number;
  parseSeconds: number;
  prepareSeconds: number;
  writeSeconds: number;
  writes: number;
  writesPerSecond: number;
  endToEndWritesPerSecond: number;
  rawWritesPerSecond: number;
  rawByConcurrency: Record<string, number>;
  /** 1-minute load average right after each measurement (the machine is shared). */
  loadAverage: Record<string, number>;
  kubectlApplyWritesPerSecond: number | null;
  kubectlApplySeconds: number | null;
  ratioToRaw: number;
  ratioToRawByConcurrency: Record<string, number>;
  /** The controller's CPU (user + system) from creation to Succeeded, and in the write phase. */
  controllerCpuSeconds: number;
  controllerWriteCpuSeconds: number;
  /** controllerWriteCpuSeconds per object written, in ms. */
  controllerCpuMsPerWrite: number;
  /** The raw client's CPU per object POSTed, in ms, by concurrency (the bench process). */
  rawClientCpuMsPerWrite: Record<string, number>;
  /** etcd + kube-apiserver + kube-controller-manager CPU per object, in ms: controller's write phase. */
  controlPlaneCpuMsPerWrite: number;
  /** The same during the raw client's POSTs, by concurrency. */
  rawControlPlaneCpuMsPerWrite: Record<string, number>;
  /** controlPlaneCpuMsPerWrite in total and by process (etcd, apiserver, controllerManager). */
  controlPlaneCpuMsPerWriteByProcess: PlaneMsPerWrite;
  /** rawControlPlaneCpuMsPerWrite by process, by concurrency. */
  rawControlPlaneCpuMsPerWriteByProcess: Record<string, PlaneMsPerWrite>;
  /**
   * CatalogMetadata POSTs in flight at the apiserver, on average over the write phase (from its
   * request duration histogram): the concurrency the controller really kept up.
   */
  meanPostsInFlight: number;
  /** The same for the raw client, by concurrency. */
  rawMeanPostsInFlight: Record<string, number>;
  /** writesPerSecond of each cold-sync round (BENCH_ROUNDS); their median is writesPerSecond. */
  roundWritesPerSecond: number[];
  /** The raw client's rate of each round, by concurrency; their medians are rawByConcurrency. */
  rawRoundWritesPerSecond: Record<string, number[]>;
  /** The wait for a quiet control plane before each measured phase (controller, rawN, kubectl). */
  quietBefore: Record<string, QuietWait>;
  ratioToKubectlApply: number | null;
  peakRssBytes: number;
  /** The peak RSS of each round (peakRssBytes is the highest). */
  roundPeakRssBytes?: number[];
  /** Each round's highest sampled RSS before and after its first status with `syncingTo`. */
  roundPeakRssPrepareBytes?: number[];
  roundPeakRssWriteBytes?: number[];
  vmHwmBytes: number;
  idleRssBytes: number;
  heapAfterSync: { usedBytes: number; totalBytes: number; externalBytes: number };
  etcdBytesBefore: number;
  etcdBytesAfter: number;
  etcdBytesAdded: number;
  etcdBytesPerContentByte: number;
  /** kube-apiserver's live Go heap (after a forced collection) after the sync minus before. */
  apiserverHeapBytesAdded: number;
  apiserverHeapBytesPerObject: number;
}

/** What a cold-sync scenario runs against: the bench's cluster, its scratch space, its results. */
export interface ColdSyncContext {
  api: Api;
  etcd: Etcd;
  kubeconfig: string;
  registry: string;
  work: string;
  logDir: string;
  /** The largest size of the run: the no-op and incremental scenario runs on it. */
  largest: number;
  resetControlPlane: () => Promise<void>;
  /** The run's results: the steady-state scenario adds its sections (and they are written). */
  results: Record<string, unknown>;
  started: Date;
}

/** The cold sync of a generated catalog of `sizeMB`. */
export async function coldSync(ctx: ColdSyncContext, sizeMB: number): Promise<ColdResult> {
  const { registry, work } = ctx;
  log(`--- ${sizeMB} MB catalog ---`);
  const dir = path.join(work, `fbc-${sizeMB}`);
  const gen = await generateCatalog(dir, { seed: 1, sizeMB });
  const { ref } = await pushCatalog(dir, `${registry}/bench/catalog-${sizeMB}:v1`);
  log(`generated and pushed ${(gen.bytes / MB).toFixed(1)} MB: ${ref}`);
  const image: SizedCatalog = { sizeMB, dir, ref };

  const { pullSeconds, parseSeconds } = await libraryPhases(ref);

  // Interleaved, so that a slow stretch of the shared machine hits both sides alike.
  const rounds: ColdRound[] = [];
  const rawRounds: Record<string, RawRound[]> = {};
  for (let n = 1; n <= ROUNDS; n++) {
    rounds.push(await coldRound(ctx, image, n));
    for (const level of CONCURRENCY)
      (rawRounds[level] ??= []).push(await rawRound(ctx, image, level, n));
  }
  const rate = (r: (typeof rounds)[number]) => r.objectCount / r.writeSeconds;
  const mid = medianItem(rounds, rate);
  const roundPeakRssBytes = rounds.map((r) => r.peakRssBytes);
  const roundWritesPerSecond = rounds.map((r) => round(rate(r), 1));
  const {
    rawByConcurrency,
    rawRoundWritesPerSecond,
    rawClientCpuMsPerWrite,
    rawControlPlaneCpuMsPerWrite,
    rawControlPlaneByProcess,
    rawMeanPostsInFlight,
  } = rawSummary(rawRounds, mid);

  // (b) kubectl apply --server-side, once.
  const kubectlSeconds =
    process.env.BENCH_SKIP_KUBECTL === '1' ? null : await kubectlRound(ctx, image, mid);
  const raw = bestPlainRate(rawByConcurrency);
  const writesPerSecond = median(rounds.map(rate));
  const kubectlRate = kubectlSeconds === null ? null : mid.objectCount / kubectlSeconds;
  const etcdBytesAdded = mid.after.dbSize - mid.before.dbSize;
  const result: ColdResult = {
    sizeMB,
    catalogBytes: gen.bytes,
    blobs: mid.objectCount,
    seconds: round(mid.seconds),
    pullSeconds: round(pullSeconds),
    parseSeconds: round(parseSeconds),
    prepareSeconds: round(mid.prepareSeconds),
    writeSeconds: round(mid.writeSeconds),
    writes: mid.writes,
    writesPerSecond: round(writesPerSecond, 1),
    endToEndWritesPerSecond: round(mid.objectCount / mid.seconds, 1),
    rawWritesPerSecond: raw,
    rawByConcurrency,
    loadAverage: mid.load,
    kubectlApplyWritesPerSecond: kubectlRate === null ? null : round(kubectlRate, 1),
    kubectlApplySeconds: kubectlSeconds === null ? null : round(kubectlSeconds),
    ratioToRaw: round(writesPerSecond / raw, 3),
    ratioToRawByConcurrency: Object.fromEntries(
      Object.entries(rawByConcurrency).map(([level, r]) => [level, round(writesPerSecond / r, 3)]),
    ),
    controllerCpuSeconds: round(mid.controllerCpuSeconds),
    controllerWriteCpuSeconds: round(mid.controllerWriteCpuSeconds),
    controllerCpuMsPerWrite: round((mid.controllerWriteCpuSeconds * 1000) / mid.objectCount, 3),
    rawClientCpuMsPerWrite,
    controlPlaneCpuMsPerWrite: mid.ourPlane.total,
    rawControlPlaneCpuMsPerWrite,
    controlPlaneCpuMsPerWriteByProcess: mid.ourPlane,
    rawControlPlaneCpuMsPerWriteByProcess: rawControlPlaneByProcess,
    quietBefore: mid.quiet,
    roundWritesPerSecond,
    rawRoundWritesPerSecond,
    meanPostsInFlight: mid.meanPostsInFlight,
    rawMeanPostsInFlight,
    ratioToKubectlApply: kubectlRate === null ? null : round(writesPerSecond / kubectlRate, 2),
    peakRssBytes: Math.max(...roundPeakRssBytes),
    roundPeakRssBytes,
    roundPeakRssPrepareBytes: rounds.map((r) => r.peakRssPrepareBytes),
    roundPeakRssWriteBytes: rounds.map((r) => r.peakRssWriteBytes),
    vmHwmBytes: Math.max(...rounds.map((r) => r.vmHwmBytes)),
    idleRssBytes: mid.idleRssBytes,
    heapAfterSync: mid.heap,
    etcdBytesBefore: mid.before.dbSize,
    etcdBytesAfter: mid.after.dbSize,
    etcdBytesAdded,
    etcdBytesPerContentByte: round(etcdBytesAdded / gen.bytes, 2),
    apiserverHeapBytesAdded: mid.apiserverHeapAdded,
    apiserverHeapBytesPerObject: Math.round(mid.apiserverHeapAdded / mid.objectCount),
  };
  await rm(dir, { recursive: true, force: true });
  return result;
}

/** A generated catalog of one size, on disk and pushed. */
interface SizedCatalog {
  sizeMB: number;
  dir: string;
  ref: string;
}

// Cold syncs by the real controller, ROUNDS of them, each into a fresh catalog name by a
// fresh controller, interleaved with the raw levels (below); the median round is reported,
// peak RSS is the highest of all rounds.
async function coldRound(ctx: ColdSyncContext, image: SizedCatalog, roundNo: number) {
  const { api, etcd, kubeconfig, registry, work, logDir, largest, resetControlPlane } = ctx;
  const { results, started } = ctx;
  const { sizeMB, dir, ref } = image;
  const name = `bench-${sizeMB}mb-${roundNo}`;
  await resetControlPlane();
  const before = await etcd.status();
  const controller = await startController(kubeconfig, logDir);
  const idleRssBytes = procStatus(controller.pid)?.rss ?? 0;
  const quiet: Record<string, QuietWait> = {
    controller: await waitForQuietControlPlane(api),
  };
  const heapBefore = await apiserverLiveHeap(api);
  const sampler = processSampler(controller.pid);
  const watch = catalogWatch(api, name);
  await delay(300); // the watch is open before the create
  const served0 = await apiserverPostSeconds(api);
  const t0 = performance.now();
  await api.json('POST', CC, catalogObject(name, ref));
  const profile = PPROF_DIR
    ? (async () => {
        while (watch.writingAt === undefined && performance.now() - t0 < 900_000) await delay(50);
        await delay(1000);
        await apiserverProfile(api, `controller-${sizeMB}mb-r${roundNo}`);
      })()
    : undefined;
  const tDone = await watch.until((s) => succeeded(s), 900_000);
  await profile;
  const rss = sampler.stop();
  const peakRssBytes = Math.max(rss.sampledPeak, rss.hwm);
  // Which phase the peak falls in says what to look at: pull/parse/spool, or writing.
  const peakRssPrepareBytes = sampler.peakBetween(t0, watch.writingAt ?? tDone);
  const peakRssWriteBytes = sampler.peakBetween(watch.writingAt ?? tDone, Infinity);
  const controllerCpuSeconds = sampler.cpuBetween(t0, tDone).controller;
  const load: Record<string, number> = { controller: round(os.loadavg()[0]!) };
  const seconds = (tDone - t0) / 1000;
  const writingAt = watch.writingAt ?? t0;
  const writeSeconds = (tDone - writingAt) / 1000;
  const writeCpu = sampler.cpuBetween(writingAt, tDone);
  const controllerWriteCpuSeconds = writeCpu.controller;
  const writes = await controller.metric('catalogd_catalogmetadata_writes_total');
  const heap = {
    usedBytes: await controller.metric('nodejs_heap_size_used_bytes'),
    totalBytes: await controller.metric('nodejs_heap_size_total_bytes'),
    externalBytes: await controller.metric('nodejs_external_memory_bytes'),
  };
  const objectCount = watch.state?.objectCount ?? 0;
  const listed = await countObjects(api, name);
  if (listed !== objectCount || writes !== objectCount)
    throw new Error(`objectCount ${objectCount}, listed ${listed}, writes ${writes}`);
  const ourPlane = planeMsPerWrite(writeCpu.controlPlane, objectCount);
  // All of the sync's CatalogMetadata POSTs are in its write phase.
  const meanPostsInFlight = round(((await apiserverPostSeconds(api)) - served0) / writeSeconds, 1);
  const apiserverHeapAdded = (await apiserverLiveHeap(api)) - heapBefore;
  if (!reuse) await etcd.compactDefrag();
  const after = await etcd.status();
  log(
    `cold sync (round ${roundNo}): ${objectCount} objects in ${seconds.toFixed(1)} s (write phase ${writeSeconds.toFixed(1)} s), ` +
      `apiserver heap before ${(quiet.controller!.apiserverHeapBytes / MB).toFixed(0)} MB, cpu probe ${quiet.controller!.cpuProbeOpsPerSecond}/s, ` +
      `peak RSS ${(peakRssBytes / MB).toFixed(1)} MB (prepare ${(peakRssPrepareBytes / MB).toFixed(1)}, write ${(peakRssWriteBytes / MB).toFixed(1)}), control plane ${JSON.stringify(ourPlane)} ms/object`,
  );

  if (sizeMB === largest && roundNo === ROUNDS) {
    const copy = path.join(work, `fbc-${sizeMB}-changed`);
    await cp(dir, copy, { recursive: true });
    results.noop = await noopAndIncremental(api, controller, watch, name, copy, registry, results);
    await rm(copy, { recursive: true, force: true });
    await writeResults(results, started);
  }
  watch.stop();
  await deleteCatalog(api, name);
  await controller.stop();
  return {
    before,
    after,
    idleRssBytes,
    quiet,
    peakRssBytes,
    peakRssPrepareBytes,
    peakRssWriteBytes,
    vmHwmBytes: rss.hwm,
    controllerCpuSeconds,
    load,
    seconds,
    prepareSeconds: (writingAt - t0) / 1000,
    writeSeconds,
    controllerWriteCpuSeconds,
    writes,
    heap,
    objectCount,
    ourPlane,
    meanPostsInFlight,
    apiserverHeapAdded,
  };
}

type ColdRound = Awaited<ReturnType<typeof coldRound>>;

// (a) the raw limit: one POST run per concurrency level, into a fresh catalog name.
async function rawRound(ctx: ColdSyncContext, image: SizedCatalog, level: string, roundNo: number) {
  const { api, work, resetControlPlane } = ctx;
  const { sizeMB, dir, ref } = image;
  const { concurrency: conc, withWatch, metadataResponses } = rawLevel(level);
  const cat = `bench-raw-${sizeMB}mb-c${level}-${roundNo}`;
  const owner = await ownerCatalog(api, cat, ref);
  const file = path.join(work, `render-${cat}.json`);
  const bodies = render(dir, cat, owner, file);
  await resetControlPlane();
  const quiet = await waitForQuietControlPlane(api);
  const cpu0 = process.cpuUsage();
  const plane0 = controlPlaneCpu();
  const watcher = withWatch ? api.watch(CM, () => undefined, METADATA_ONLY) : undefined;
  // Open before the first write: after the restart the answer waits for the watch cache.
  await watcher?.ready;
  const profile = PPROF_DIR
    ? delay(1000).then(() => apiserverProfile(api, `raw-${sizeMB}mb-c${level}-r${roundNo}`))
    : undefined;
  const { seconds, meanInFlight } = await rawPosts(
    api,
    bodies,
    conc,
    metadataResponses ? METADATA_ONLY : 'application/json',
  );
  watcher?.stop();
  const cpu = process.cpuUsage(cpu0);
  const plane = planeMsPerWrite(planeDelta(plane0, controlPlaneCpu()), bodies.length);
  const load = round(os.loadavg()[0]!);
  await profile;
  const rate = bodies.length / seconds;
  log(
    `raw POST c=${level} (round ${roundNo}): ${bodies.length} in ${seconds.toFixed(1)} s = ${rate.toFixed(1)}/s, ` +
      `apiserver heap before ${(quiet.apiserverHeapBytes / MB).toFixed(0)} MB, cpu probe ${quiet.cpuProbeOpsPerSecond}/s, control plane ${JSON.stringify(plane)} ms/object`,
  );
  await deleteCatalog(api, cat);
  await rm(file, { force: true });
  return {
    rate,
    quiet,
    load,
    plane,
    meanInFlight,
    clientCpuMsPerWrite: round((cpu.user + cpu.system) / 1000 / bodies.length, 3),
  };
}

type RawRound = Awaited<ReturnType<typeof rawRound>>;

/** Pull and parse measured directly with the controller's own library pieces (see README). */
async function libraryPhases(ref: string): Promise<{ pullSeconds: number; parseSeconds: number }> {
  const pullCache = await mkdtemp(path.join(os.tmpdir(), 'catalogd-bench-pull-'));
  let t = performance.now();
  const pulled = await new ImagePuller({ cacheDir: pullCache }).pull(ref);
  const pullSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const scan = await scanCatalog({
    catalog: { name: 'bench', uid: 'bench' },
    dir: pulled.configsDir,
    maxObjectBytes: 1048576,
    contentUrl: () => 'http://127.0.0.1/',
  });
  const parseSeconds = (performance.now() - t) / 1000;
  await rm(pullCache, { recursive: true, force: true });
  log(
    `library phases: pull ${pullSeconds.toFixed(2)} s, parse ${parseSeconds.toFixed(2)} s (${scan.blobs} blobs)`,
  );
  return { pullSeconds, parseSeconds };
}

/** One kubectl apply --server-side of the catalog; its quiet and load go into `mid`. */
async function kubectlRound(
  ctx: ColdSyncContext,
  image: SizedCatalog,
  mid: Pick<ColdRound, 'quiet' | 'load' | 'objectCount'>,
): Promise<number> {
  const { api, work, resetControlPlane } = ctx;
  const { sizeMB, dir, ref } = image;
  const cat = `bench-ssa-${sizeMB}mb`;
  const file = path.join(work, `render-${cat}.json`);
  render(dir, cat, await ownerCatalog(api, cat, ref), file);
  await resetControlPlane();
  mid.quiet.kubectl = await waitForQuietControlPlane(api);
  const kubectlSeconds = kubectlApply(file);
  mid.load.kubectl = round(os.loadavg()[0]!);
  log(`kubectl apply --server-side: ${mid.objectCount} in ${kubectlSeconds.toFixed(1)} s`);
  await deleteCatalog(api, cat);
  await rm(file, { force: true });
  return kubectlSeconds;
}

/** Each raw level's median round, by level; its quiet and load go into the reported round's. */
function rawSummary(rawRounds: Record<string, RawRound[]>, mid: Pick<ColdRound, 'quiet' | 'load'>) {
  const rawByConcurrency: Record<string, number> = {};
  const rawRoundWritesPerSecond: Record<string, number[]> = {};
  const rawClientCpuMsPerWrite: Record<string, number> = {};
  const rawControlPlaneCpuMsPerWrite: Record<string, number> = {};
  const rawControlPlaneByProcess: Record<string, PlaneMsPerWrite> = {};
  const rawMeanPostsInFlight: Record<string, number> = {};
  for (const [level, runs] of Object.entries(rawRounds)) {
    const m = medianItem(runs, (r) => r.rate);
    rawByConcurrency[level] = round(median(runs.map((r) => r.rate)), 1);
    rawRoundWritesPerSecond[level] = runs.map((r) => round(r.rate, 1));
    rawClientCpuMsPerWrite[level] = m.clientCpuMsPerWrite;
    rawControlPlaneCpuMsPerWrite[level] = m.plane.total;
    rawControlPlaneByProcess[level] = m.plane;
    rawMeanPostsInFlight[level] = m.meanInFlight;
    mid.quiet[`raw${level}`] = m.quiet;
    mid.load[`raw${level}`] = m.load;
  }
  return {
    rawByConcurrency,
    rawRoundWritesPerSecond,
    rawClientCpuMsPerWrite,
    rawControlPlaneCpuMsPerWrite,
    rawControlPlaneByProcess,
    rawMeanPostsInFlight,
  };
}

/** The raw limit: the best median rate of the plain levels (no watch, full responses). */
function bestPlainRate(rawByConcurrency: Record<string, number>): number {
  return Math.max(
    ...Object.entries(rawByConcurrency)
      .filter(([level]) => rawLevel(level).plain)
      .map(([, rate]) => rate),
  );
}
