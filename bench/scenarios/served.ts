// `served` (issue 55 point 7): the object view's price in each mode, side by side in one run, on
// the generated catalog of the run's largest size and the real catalog (BENCH_REAL_CATALOGS'
// first, default /tmp/real/v4.20): the CRD mode with full and with lean objects, and the served
// mode (--object-view=served: the CRD deleted, the controller's API behind an APIService). Each
// mode starts on a freshly restarted apiserver with an empty etcd (compacted, defragmented) and
// syncs both catalogs, one after the other; then it measures what a client sees. Per mode:
//   - kube-apiserver live heap (median of 3 after a forced GC) and RSS, and etcd's size, added
//     by each catalog, and per 10k objects over both;
//   - apply → Serving and apply → objects visible (CRD: ObjectsSynced=True, every object
//     written and acknowledged; served: the first list through the apiserver that has the
//     catalog's objects, one revision, so all of them), each checked by a count of the objects;
//   - `kubectl get <catalogmetadata> -l package=X` p50/p99 (BENCH_SERVED_QUERIES runs, default
//     30), the CRD with the apiserver's watch cache (the default);
//   - a client-go informer's (hack/informer-check) initial list and sync of every object;
//   - a catalog update (one bundle added, one channel changed) → its watch event;
//   - the controller's RSS settled with both catalogs, and its peak while 16 clients list
//     `-l package=X` for 20 s (their p50/p99).
// BENCH_ONLY=served runs only this; bench/README.md "Served" and docs/deploy.md quote it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { CATALOG_METADATA_PLURAL, GROUP, SERVED_GROUP, VERSION } from '../../src/api/v1/index.js';
import { pushCatalog } from '../../src/source/index.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import { procStatus } from '../../test/support/controller.js';
import { olmv1BinDir } from '../../test/support/olmv1-check.js';
import { freePort } from '../../test/support/ports.js';
import { registerServedApi } from '../../test/support/served-api.js';
import type { BenchHooks } from '../control-plane.js';
import {
  CONTROLLER_NS,
  CONTROLLER_SA,
  applyControllerRbac,
  clusterCatalog,
  kubectl,
  liveHeapSamples,
  prepareCatalog,
  serviceAccountKubeconfig,
  timeKubectl,
} from '../control-plane.js';
import { Api, CC } from '../lib/api.js';
import { addBundleChangeChannel, countObjects } from '../lib/catalogs.js';
import { apiserverRss, readEnvFile } from '../lib/cluster.js';
import { startController } from '../lib/controller-process.js';
import type { Controller } from '../lib/controller-process.js';
import { LOCAL, round } from '../lib/config.js';
import type { CatalogUnderTest } from '../lib/cost-prediction.js';
import { median, percentile } from '../lib/stats.js';

export type ServedBenchMode = 'crd full' | 'crd lean' | 'served';
const MODES: ServedBenchMode[] = ['served', 'crd full', 'crd lean'];
const QUERIES = Math.max(3, Number(process.env.BENCH_SERVED_QUERIES ?? '30'));
const CLIENTS = 16;
const CLIENT_SECONDS = 20;
const INFORMER_RUNS = 3;
const SERVICE = 'catalogd-ts-served-bench';
const CRD_NAME = `${CATALOG_METADATA_PLURAL}.${GROUP}`;
const MiB = 1048576;

/** Where a mode's CatalogMetadata lives: its group, collection path and kubectl resource name. */
function view(mode: ServedBenchMode) {
  const group = mode === 'served' ? SERVED_GROUP : GROUP;
  return {
    group,
    collection: `/apis/${group}/${VERSION}/${CATALOG_METADATA_PLURAL}`,
    kubectlResource: `${CATALOG_METADATA_PLURAL}.${group}`,
  };
}

export interface ServedCatalogRow {
  catalog: string;
  objects: number;
  applyToServingSeconds: number;
  applyToVisibleSeconds: number;
  apiserverHeapBytesAdded: number;
  apiserverRssBytesAdded: number;
  etcdBytesAdded: number;
  kubectlGetByPackage: { package: string; objects: number; p50: number; p99: number };
}

export interface ServedModeResult {
  mode: ServedBenchMode;
  catalogs: ServedCatalogRow[];
  objects: number;
  /** Over both catalogs, MiB per 10,000 objects. */
  per10k: { apiserverHeapMiB: number; apiserverRssMiB: number; etcdMiB: number };
  informer: { objects: number; lists: number; syncSeconds: number[] };
  update: { toServingSeconds: number; toWatchEventSeconds: number | null };
  controller: {
    settledRssMiB: number;
    peakRssUnderClientsMiB: number;
    clientLists: number;
    clientListP50Ms: number;
    clientListP99Ms: number;
  };
}

interface Prepared {
  cat: CatalogUnderTest;
  packages: string[];
}

/** The catalog's package names: its directories (one per package in both catalogs). */
async function packagesOf(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

const seconds = (from: number, to: number) => round((to - from) / 1000, 3);

interface CatalogStatus {
  metadata: { generation: number };
  status?: {
    contentHash?: string;
    objectCount?: number;
    urls?: { base?: string };
    conditions?: Array<{ type: string; status: string; observedGeneration?: number }>;
  };
}

const conditionTrue = (c: CatalogStatus, type: string) =>
  c.status?.conditions?.some(
    (x) => x.type === type && x.status === 'True' && x.observedGeneration === c.metadata.generation,
  ) ?? false;

/**
 * Applies the ClusterCatalog (at t0) and polls, every 100 ms, its status and (served) a one-item
 * list of its objects: the seconds to Serving with a content hash, and to the objects visible.
 */
async function applyAndWait(
  h: BenchHooks,
  mode: ServedBenchMode,
  name: string,
  { ref, objects: blobs }: CatalogUnderTest,
): Promise<{ serving: number; visible: number; objects: number }> {
  const v = view(mode);
  const t0 = performance.now();
  await h.api.json('POST', CC, clusterCatalog(name, ref, mode === 'crd lean' ? 'lean' : 'full'));
  let serving: number | undefined;
  let visible: number | undefined;
  const deadline = t0 + 900_000;
  while (serving === undefined || visible === undefined) {
    if (performance.now() > deadline) throw new Error(`${name} not visible in 900 s`);
    const c = await h.api.json<CatalogStatus>('GET', `${CC}/${name}`);
    const now = performance.now();
    // Serving: the HTTP view (status.urls.base) names the revision; in the CRD mode the objects
    // (status.contentHash, ObjectsSynced) follow.
    if (serving === undefined && conditionTrue(c, 'Serving') && c.status?.urls?.base) serving = now;
    if (visible === undefined) {
      if (mode !== 'served') {
        if (conditionTrue(c, 'ObjectsSynced')) visible = now;
      } else {
        const l = await h.api.request(
          'GET',
          `${v.collection}?labelSelector=catalog%3D${name}&limit=1`,
        );
        if (l.status === 200 && (JSON.parse(l.body) as { items: unknown[] }).items.length > 0)
          visible = performance.now();
      }
    }
    await delay(100);
  }
  // The served view may answer before the status says how many objects there are: the count
  // is checked against the catalog's blobs (render's count).
  const counted = await countObjects(h.api, name, v.collection);
  if (counted !== blobs)
    throw new Error(`${name}: ${counted} objects listed, the catalog has ${blobs}`);
  return { serving: seconds(t0, serving), visible: seconds(t0, visible), objects: counted };
}

/** The apiserver's live heap, its RSS and etcd's size (compacted), once the control plane is quiet. */
async function planeSizes(h: BenchHooks) {
  await h.waitForQuiet(h.api);
  const rss = apiserverRss();
  const heap = median(await liveHeapSamples(h.api));
  if (!h.reuse) await h.etcd.compactDefrag();
  return { heap, rss, etcd: (await h.etcd.status()).dbSize };
}

/** `kubectl get <resource> -l package=<pkg>` (a Table), QUERIES times: p50/p99 seconds. */
function kubectlGet(h: BenchHooks, mode: ServedBenchMode, pkg: string) {
  const args = ['get', view(mode).kubectlResource, '-l', `package=${pkg}`];
  const { seconds: runs, stdout } = timeKubectl(h, args, QUERIES);
  return {
    package: pkg,
    objects: stdout.split('\n').filter((l) => l !== '').length - 1, // the header line
    p50: round(median(runs), 3),
    p99: round(percentile(runs, 0.99), 3),
  };
}

/**
 * hack/informer-check on every object of the mode's CatalogMetadata, INFORMER_RUNS times: the
 * seconds from its start to SYNCED (its first list, however many requests, in its store), the
 * objects its lists returned and the list requests it made.
 */
async function informerSync(h: BenchHooks, mode: ServedBenchMode) {
  const bin = path.join(await olmv1BinDir(), 'informer-check');
  const syncSeconds: number[] = [];
  let objects = 0;
  let lists = 0;
  for (let i = 0; i < INFORMER_RUNS; i++) {
    const t0 = performance.now();
    const child = spawn(bin, ['-group', view(mode).group, '-resource', CATALOG_METADATA_PLURAL], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, KUBECONFIG: h.kubeconfig },
    });
    const exited = new Promise<void>((r) => child.once('close', () => r()));
    let listed = 0;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error('informer-check did not sync in 300 s')),
        300_000,
      );
      child.once('exit', () => reject(new Error('informer-check exited before it synced')));
      createInterface({ input: child.stdout }).on('line', (l) => {
        const e = JSON.parse(l) as { event: string; lists?: number; items?: number };
        if (e.event === 'LIST') {
          lists = e.lists ?? lists;
          listed += e.items ?? 0;
        }
        if (e.event === 'SYNCED') {
          syncSeconds.push(seconds(t0, performance.now()));
          objects = listed;
          clearTimeout(t);
          resolve();
        }
      });
    });
    child.kill('SIGTERM');
    await exited;
  }
  return { objects, lists, syncSeconds };
}

/**
 * A watch of the catalog's objects from a list's resourceVersion, then the catalog moved to
 * `ref` (its update): the seconds to Serving the update and to its first watch event.
 */
async function updateToWatchEvent(
  h: BenchHooks,
  mode: ServedBenchMode,
  name: string,
  ref: string,
): Promise<ServedModeResult['update']> {
  const v = view(mode);
  const list = await h.api.json<{ metadata: { resourceVersion: string } }>(
    'GET',
    `${v.collection}?labelSelector=catalog%3D${name}&limit=1`,
  );
  let eventAt: number | undefined;
  const w = h.api.watch(
    `${v.collection}?labelSelector=catalog%3D${name}&resourceVersion=${list.metadata.resourceVersion}`,
    (e, at) => {
      if (e.type === 'ADDED' || e.type === 'MODIFIED') eventAt ??= at;
    },
  );
  try {
    await w.ready;
    const before = await h.api.json<CatalogStatus>('GET', `${CC}/${name}`);
    const t0 = performance.now();
    await h.api.request(
      'PATCH',
      `${CC}/${name}`,
      JSON.stringify({ spec: { source: { image: { ref } } } }),
      'application/merge-patch+json',
    );
    let servingAt: number | undefined;
    while (servingAt === undefined || eventAt === undefined) {
      if (performance.now() - t0 > 300_000) break;
      if (servingAt === undefined) {
        const c = await h.api.json<CatalogStatus>('GET', `${CC}/${name}`);
        if (conditionTrue(c, 'Serving') && c.status?.urls?.base !== before.status?.urls?.base)
          servingAt = performance.now();
      }
      await delay(100);
    }
    if (servingAt === undefined) throw new Error(`${name}'s update not served in 300 s`);
    return {
      toServingSeconds: seconds(t0, servingAt),
      toWatchEventSeconds: eventAt === undefined ? null : seconds(t0, eventAt),
    };
  } finally {
    w.stop();
  }
}

/** The controller's VmRSS, median of 5 samples 1 s apart. */
async function settledRss(pid: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    if (i > 0) await delay(1000);
    xs.push(procStatus(pid)?.rss ?? NaN);
  }
  return median(xs);
}

/**
 * CLIENTS clients, each listing `-l package=X` (X going round `packages`) for CLIENT_SECONDS as
 * the admin: the controller's peak RSS meanwhile (sampled every 100 ms) and the lists' latency.
 */
async function clientsList(h: BenchHooks, mode: ServedBenchMode, pid: number, packages: string[]) {
  const api = Api.fromKubeconfig(h.kubeconfig, CLIENTS);
  const times: number[] = [];
  let peak = procStatus(pid)?.rss ?? 0;
  const sampler = setInterval(() => (peak = Math.max(peak, procStatus(pid)?.rss ?? 0)), 100);
  const end = performance.now() + CLIENT_SECONDS * 1000;
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = c; performance.now() < end; i += CLIENTS) {
          const pkg = packages[i % packages.length]!;
          const t0 = performance.now();
          const r = await api.request(
            'GET',
            `${view(mode).collection}?labelSelector=package%3D${encodeURIComponent(pkg)}`,
          );
          if (r.status !== 200) throw new Error(`list -l package=${pkg}: ${r.status} ${r.body}`);
          times.push(performance.now() - t0);
        }
      }),
    );
  } finally {
    clearInterval(sampler);
    api.close();
  }
  return {
    peakRssUnderClientsMiB: round(peak / MiB, 1),
    clientLists: times.length,
    clientListP50Ms: round(median(times), 1),
    clientListP99Ms: round(percentile(times, 0.99), 1),
  };
}

/** The CatalogMetadata CRD installed (CRD modes) or deleted (served mode), and established. */
async function installCrd(h: BenchHooks, present: boolean): Promise<void> {
  const crd = path.join(h.root, 'crds', `${GROUP}_${CATALOG_METADATA_PLURAL}.yaml`);
  if (present) {
    kubectl(h, ['apply', '--server-side', '-f', crd]);
    kubectl(h, ['wait', '--for=condition=Established', '--timeout=60s', '-f', crd]);
  } else {
    kubectl(h, ['delete', '--ignore-not-found', '--wait=true', 'crd', CRD_NAME]);
  }
}

/** The controller of `mode` as its ServiceAccount; served: its API registered behind the APIService. */
async function startModeController(
  h: BenchHooks,
  mode: ServedBenchMode,
  kubeconfig: string,
  certs: string,
): Promise<{ controller: Controller; stop(): Promise<void> }> {
  if (mode !== 'served') {
    const controller = await startController(kubeconfig, h.logDir);
    return { controller, stop: () => controller.stop() };
  }
  const port = await freePort();
  const controller = await startController(kubeconfig, h.logDir, [
    '--no-leader-elect',
    '--object-view=served',
    `--api-listen=0.0.0.0:${port}`,
    `--tls-cert-file=${certs}/tls.crt`,
    `--tls-key-file=${certs}/tls.key`,
    '--no-metrics-secure',
  ]);
  try {
    const registration = await registerServedApi({
      port,
      caBundle: await readFile(path.join(certs, 'ca.crt'), 'utf8'),
      namespace: 'default',
      service: SERVICE,
      host: readEnvFile(path.join(LOCAL, 'env')).HOST_IP!,
    });
    return {
      controller,
      async stop() {
        try {
          await registration.unregister();
        } finally {
          await controller.stop();
        }
      },
    };
  } catch (err) {
    await controller.stop();
    throw err;
  }
}

async function deleteClusterCatalog(h: BenchHooks, mode: ServedBenchMode, name: string) {
  if (mode === 'served') {
    await h.api.request('DELETE', `${CC}/${name}`);
    const deadline = Date.now() + 120_000;
    while ((await h.api.request('GET', `${CC}/${name}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error(`ClusterCatalog ${name} not deleted`);
      await delay(500);
    }
  } else await h.deleteCatalog(h.api, name);
}

async function measureMode(
  h: BenchHooks,
  mode: ServedBenchMode,
  prepared: Prepared[],
  updateRef: string,
  controllerKubeconfig: string,
  certs: string,
): Promise<ServedModeResult> {
  // The restart waits for the garbage collector to watch CatalogMetadata: with the CRD installed.
  await installCrd(h, true);
  await h.resetControlPlane();
  if (mode === 'served') await installCrd(h, false);
  const run = await startModeController(h, mode, controllerKubeconfig, certs);
  const names: string[] = [];
  try {
    let sizes = await planeSizes(h);
    const first = sizes;
    const rows: ServedCatalogRow[] = [];
    for (const { cat, packages } of prepared) {
      const name = `bench-served-${cat.id}`.replace(/[^a-z0-9-]/g, '-');
      names.push(name);
      const t = await applyAndWait(h, mode, name, cat);
      const after = await planeSizes(h);
      rows.push({
        catalog: cat.id,
        objects: t.objects,
        applyToServingSeconds: t.serving,
        applyToVisibleSeconds: t.visible,
        apiserverHeapBytesAdded: after.heap - sizes.heap,
        apiserverRssBytesAdded: after.rss - sizes.rss,
        etcdBytesAdded: after.etcd - sizes.etcd,
        kubectlGetByPackage: kubectlGet(h, mode, packages[0]!),
      });
      h.log(`served bench, ${mode}: ${JSON.stringify(rows.at(-1))}`);
      sizes = after;
    }
    const objects = rows.reduce((n, r) => n + r.objects, 0);
    const per10k = (b: number) => round((b / MiB) * (10_000 / objects), 1);
    const settled = await settledRss(run.controller.pid);
    const clients = await clientsList(
      h,
      mode,
      run.controller.pid,
      prepared.flatMap((p) => p.packages),
    );
    const informer = await informerSync(h, mode);
    const update = await updateToWatchEvent(h, mode, names[0]!, updateRef);
    const result: ServedModeResult = {
      mode,
      catalogs: rows,
      objects,
      per10k: {
        apiserverHeapMiB: per10k(sizes.heap - first.heap),
        apiserverRssMiB: per10k(sizes.rss - first.rss),
        etcdMiB: per10k(sizes.etcd - first.etcd),
      },
      informer,
      update,
      controller: { settledRssMiB: round(settled / MiB, 1), ...clients },
    };
    h.log(`served bench, ${mode}: ${JSON.stringify({ ...result, catalogs: undefined })}`);
    return result;
  } finally {
    // The controller removes its finalizer: delete while it runs.
    for (const n of names) await deleteClusterCatalog(h, mode, n);
    await run.stop();
  }
}

export async function measureServed(h: BenchHooks): Promise<Record<string, unknown>> {
  const genDir = path.join(h.work, `served-${h.sizeMB}mb`);
  await generateCatalog(genDir, { seed: 1, sizeMB: h.sizeMB });
  const prepare = async (id: string, dir: string): Promise<Prepared> => {
    const cat = await prepareCatalog(h, id, dir);
    return { cat, packages: await packagesOf(cat.dir) };
  };
  const prepared = [await prepare(`generated-${h.sizeMB}mb`, genDir)];
  const real = (process.env.BENCH_REAL_CATALOGS ?? '/tmp/real/v4.20').split(',')[0];
  if (real && !existsSync(real)) h.log(`served bench: real catalog ${real} missing, skipped`);
  else if (real) prepared.push(await prepare(`real-${path.basename(real)}`, real));
  // The generated catalog's update: one bundle added, one channel changed.
  const updateDir = await mkdtemp(path.join(h.work, 'served-update-'));
  await cp(genDir, updateDir, { recursive: true });
  await addBundleChangeChannel(updateDir);
  const { ref: updateRef } = await pushCatalog(
    updateDir,
    `${h.registry}/bench/served-generated-${h.sizeMB}mb:v2`,
  );
  await rm(updateDir, { recursive: true, force: true });
  const certs = path.join(h.work, 'served-certs');
  execFileSync(
    path.join(h.root, 'hack', 'serving-cert.sh'),
    [
      ...['--out', certs, '--namespace', 'default', '--service', SERVICE, '--no-secret'],
      ...['--days', '2', '--ip', '127.0.0.1', '--dns', 'localhost'],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  applyControllerRbac(h);
  // What config/served adds: delegated authentication and authorization.
  for (const f of ['auth_delegator_binding.yaml', 'auth_reader_binding.yaml'])
    kubectl(h, ['apply', '--server-side', '-f', path.join(h.root, 'config', 'served', f)]);
  const controller = await serviceAccountKubeconfig(h, CONTROLLER_NS, CONTROLLER_SA);
  controller.api.close();
  const modes = (process.env.BENCH_SERVED_MODES?.split(',') as ServedBenchMode[]) ?? MODES;
  const rows: ServedModeResult[] = [];
  try {
    for (const mode of modes)
      rows.push(await measureMode(h, mode, prepared, updateRef, controller.file, certs));
  } finally {
    await installCrd(h, true);
    await h.resetControlPlane();
  }
  return {
    catalogs: prepared.map((p) => ({
      id: p.cat.id,
      objects: p.cat.objects,
      contentBytes: p.cat.contentBytes,
      packages: p.packages.length,
    })),
    modes: rows,
  };
}

const mib1 = (b: number) => (b / MiB).toFixed(1);

/** The tables bench/README.md and docs/deploy.md quote. */
export function servedMarkdown(r: Record<string, unknown>): string {
  const modes = r.modes as ServedModeResult[];
  const lines = [
    '| mode | catalog | objects | apply → Serving | apply → objects visible | apiserver heap / RSS added (MiB) | etcd added (MiB) | `kubectl get -l package=` p50 / p99 |',
    '|---|---|---|---|---|---|---|---|',
    ...modes.flatMap((m) =>
      m.catalogs.map(
        (c) =>
          `| ${m.mode} | ${c.catalog} | ${c.objects} | ${c.applyToServingSeconds} s | ${c.applyToVisibleSeconds} s (${(c.applyToVisibleSeconds / c.applyToServingSeconds).toFixed(2)}x) | ${mib1(c.apiserverHeapBytesAdded)} / ${mib1(c.apiserverRssBytesAdded)} | ${mib1(c.etcdBytesAdded)} | ${c.kubectlGetByPackage.p50} / ${c.kubectlGetByPackage.p99} s (${c.kubectlGetByPackage.objects} objects) |`,
      ),
    ),
    '',
    "| mode | objects | per 10k objects: apiserver heap / RSS / etcd (MiB) | informer initial sync (median) | update → Serving / watch event | controller RSS settled / peak under 16 clients (MiB) | 16 clients' lists p50 / p99 |",
    '|---|---|---|---|---|---|---|',
    ...modes.map(
      (m) =>
        `| ${m.mode} | ${m.objects} | ${m.per10k.apiserverHeapMiB} / ${m.per10k.apiserverRssMiB} / ${m.per10k.etcdMiB} | ${median(m.informer.syncSeconds).toFixed(2)} s (${m.informer.objects} objects) | ${m.update.toServingSeconds} / ${m.update.toWatchEventSeconds ?? 'none'} s | ${m.controller.settledRssMiB} / ${m.controller.peakRssUnderClientsMiB} | ${m.controller.clientListP50Ms} / ${m.controller.clientListP99Ms} ms (${m.controller.clientLists} lists) |`,
    ),
  ];
  return lines.join('\n') + '\n';
}
