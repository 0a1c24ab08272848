// `controlPlane` in bench/results (issue 25, SPEC §7 "Control-plane cost"): what a synced catalog
// costs kube-apiserver's heap and etcd, per content profile, beside the same bytes stored as
// ConfigMaps; how other API clients fare during a cold sync, with and without the project's
// FlowSchema (config/flowcontrol); and how close `catalogd render --cost` predicts it. Called by
// bench/run.ts with its helpers (BENCH_ONLY=controlPlane runs only this). See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { dump, load } from 'js-yaml';
import { ANNOTATION_CONTENT_PROFILE, GROUP, VERSION } from '../src/api/v1/index.js';
import type { ContentProfile } from '../src/api/v1/index.js';
import { measureCatalog } from '../src/cmd/render-cost.js';
import { renderTarget } from '../src/cmd/render-target.js';
import { pushCatalog } from '../src/source/index.js';
import { scanCatalog } from '../src/sync/index.js';
import type { CostModel, CostSample } from '../src/cmd/render-cost-model.js';
import { fitCostModel } from '../src/cmd/render-cost-model.js';
import {
  controlPlaneTargets,
  renderCostPrediction,
  writeCostFiles,
  type CatalogUnderTest,
  type ProfileMeasurement,
} from './lib/cost-prediction.js';
import { generateCatalog } from '../test/support/fbcgen.js';
import { mapBounded } from '../src/util/limits.js';
import { Api, CC } from './lib/api.js';
import { stateOf, succeeded } from './lib/catalogs.js';
import { apiserverRss } from './lib/cluster.js';
import { latencyProbe } from './lib/latency.js';
import { median, percentile } from './lib/stats.js';

/** The controller's ServiceAccount (config/rbac), which config/flowcontrol's FlowSchema matches. */
export const CONTROLLER_NS = 'catalogd-system';
export const CONTROLLER_SA = 'catalogd-ts';
/** The other client: its own ServiceAccount, reading ConfigMaps of its own namespace. */
export const OTHER_NS = 'bench-other-client';
export const OTHER_SA = 'bench-other-client';
export const OTHER_CONFIGMAPS = 20;
/** ConfigMap baseline: one ConfigMap per blob, in this namespace. */
const BASELINE_NS = 'bench-configmap-baseline';
const IDLE_PROBE_SECONDS = 15;
/** config/flowcontrol's PriorityLevelConfiguration and FlowSchema (one name). */
export const PRIORITY_LEVEL = 'catalogd-ts-catalogmetadata';
/** Heap samples per measurement (after a forced GC each); the median is used. */
const HEAP_SAMPLES = 3;

/** What bench/run.ts lends this module (it owns the cluster, the controller and the helpers). */
export interface BenchHooks {
  root: string;
  api: Api;
  /** The admin kubeconfig (system:masters): the bench's own requests, exempt from APF. */
  kubeconfig: string;
  registry: string;
  work: string;
  logDir: string;
  reuse: boolean;
  /** The largest generated catalog size of the run (BENCH_SIZES), in MB. */
  sizeMB: number;
  log(msg: string): void;
  etcd: { compactDefrag(): Promise<void>; status(): Promise<{ dbSize: number }> };
  /** etcd compacted and defragmented, kube-apiserver and kube-controller-manager restarted. */
  resetControlPlane(): Promise<void>;
  waitForQuiet(api: Api): Promise<unknown>;
  startController(kubeconfig: string, logDir: string): Promise<{ stop(): Promise<void> }>;
  deleteCatalog(api: Api, name: string): Promise<void>;
}

const r3 = (x: number) => Number(x.toFixed(3));

// ---------- apiserver heap ----------

async function metric(api: Api, name: string): Promise<number> {
  const r = await api.request('GET', '/metrics');
  const line = r.body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

/** The first sample of a metric whose labels include `label` (NaN: none). */
async function labelledMetric(api: Api, name: string, label: string): Promise<number> {
  const r = await api.request('GET', '/metrics');
  const line = r.body.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * kube-apiserver's live heap: a heap profile request with gc=1 makes it collect first, so
 * go_memstats_heap_alloc_bytes then counts what is reachable. HEAP_SAMPLES of them, 1 s apart.
 */
export async function liveHeapSamples(api: Api): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < HEAP_SAMPLES; i++) {
    if (i > 0) await delay(1000);
    await api.request('GET', '/debug/pprof/heap?gc=1');
    out.push(await metric(api, 'go_memstats_heap_alloc_bytes'));
  }
  return out;
}

// ---------- identities: the controller's ServiceAccount and the other client's ----------

/** A TokenRequest token for a ServiceAccount, written into a kubeconfig beside the admin's. */
export async function serviceAccountKubeconfig(
  h: BenchHooks,
  ns: string,
  sa: string,
): Promise<{ file: string; api: Api }> {
  const tr = await h.api.json<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 4 * 3600 },
    },
  );
  type Named<T> = Array<{ name: string } & T>;
  const admin = load(await readFile(h.kubeconfig, 'utf8')) as {
    'current-context': string;
    contexts: Named<{ context: { cluster: string } }>;
    clusters: Named<{ cluster: Record<string, unknown> }>;
  };
  const ctx = admin.contexts.find((c) => c.name === admin['current-context'])!.context;
  const cluster = { ...admin.clusters.find((c) => c.name === ctx.cluster)!.cluster };
  // A relative certificate-authority path stays valid: the file is written beside the admin's.
  const file = path.join(path.dirname(h.kubeconfig), `kubeconfig-${ns}-${sa}`);
  writeFileSync(
    file,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: sa, user: { token: tr.status.token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: sa } }],
      'current-context': 'c',
    }),
    { mode: 0o600 },
  );
  return { file, api: Api.fromKubeconfig(file, 8) };
}

export function kubectl(h: BenchHooks, args: string[], input?: string): void {
  execFileSync('kubectl', [`--kubeconfig=${h.kubeconfig}`, ...args], {
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'],
    ...(input !== undefined && { input }),
  });
}

/** `kubectl <args>` as the admin, `runs` times: the seconds of each run and the last one's stdout. */
export function timeKubectl(
  h: BenchHooks,
  args: string[],
  runs: number,
): { seconds: number[]; stdout: string } {
  const seconds: number[] = [];
  let stdout = '';
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    stdout = execFileSync('kubectl', [`--kubeconfig=${h.kubeconfig}`, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    seconds.push((performance.now() - t0) / 1000);
  }
  return { seconds, stdout };
}

/** The controller's namespace and RBAC as deployed (config/namespace, config/rbac). */
export function applyControllerRbac(h: BenchHooks): void {
  for (const dir of ['namespace', 'rbac'])
    kubectl(h, ['apply', '--server-side', '-k', path.join(h.root, 'config', dir)]);
}

/** The other client: a namespace, OTHER_CONFIGMAPS small ConfigMaps, get/list on them only. */
export function applyOtherClient(h: BenchHooks): void {
  const docs: unknown[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OTHER_NS } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: OTHER_SA, namespace: OTHER_NS },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: OTHER_SA, namespace: OTHER_NS },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: OTHER_SA, namespace: OTHER_NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: OTHER_SA },
      subjects: [{ kind: 'ServiceAccount', name: OTHER_SA, namespace: OTHER_NS }],
    },
    ...Array.from({ length: OTHER_CONFIGMAPS }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: OTHER_NS },
      data: { value: 'x'.repeat(512) },
    })),
  ];
  kubectl(h, ['apply', '--server-side', '-f', '-'], docs.map((d) => dump(d)).join('---\n'));
}

// ---------- one catalog synced by the controller ----------

export function clusterCatalog(name: string, ref: string, profile: ContentProfile) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ClusterCatalog',
    metadata: { name, annotations: { [ANNOTATION_CONTENT_PROFILE]: profile } },
    spec: { source: { type: 'Image', image: { ref } } },
  };
}

interface CatalogStatus {
  metadata: { generation: number };
  status?: {
    syncingTo?: string;
    contentHash?: string;
    objectCount?: number;
    storedBytes?: number;
    conditions?: Array<{ type: string; reason?: string; observedGeneration?: number }>;
  };
}

/**
 * Creates the ClusterCatalog and polls it (once a second, as the bench's admin) until it has
 * synced; returns the object count, and the seconds from creation and from the first status with
 * `syncingTo` (the controller's first write).
 */
export async function syncCatalog(
  h: BenchHooks,
  name: string,
  ref: string,
  profile: ContentProfile,
  /** Called when the write phase is seen to start (the first status with `syncingTo`). */
  onWriting?: () => void,
): Promise<{ objects: number; storedBytes?: number; seconds: number; writeSeconds: number }> {
  const t0 = performance.now();
  await h.api.json('POST', CC, clusterCatalog(name, ref, profile));
  let writingAt: number | undefined;
  const deadline = t0 + 900_000;
  for (;;) {
    const c = await h.api.json<CatalogStatus>('GET', `${CC}/${name}`);
    if (c.status?.syncingTo && writingAt === undefined) {
      writingAt = performance.now();
      onWriting?.();
    }
    if (succeeded(stateOf(c))) {
      const now = performance.now();
      return {
        objects: c.status?.objectCount ?? 0,
        ...(c.status?.storedBytes !== undefined && { storedBytes: c.status.storedBytes }),
        seconds: (now - t0) / 1000,
        writeSeconds: (now - (writingAt ?? t0)) / 1000,
      };
    }
    if (performance.now() > deadline) throw new Error(`${name} did not sync in 900 s`);
    await delay(250);
  }
}

/**
 * One catalog in one profile, on a freshly restarted apiserver: live heap (median of
 * HEAP_SAMPLES after a forced GC each) and etcd (compacted, defragmented) before the sync and
 * after it settled, the controller running as its ServiceAccount. `during`, when given, runs
 * while the catalog syncs (the other client's probe).
 */
export async function measureProfile(
  h: BenchHooks,
  controllerKubeconfig: string,
  cat: CatalogUnderTest,
  profile: ContentProfile,
  /** Runs after the measurement, the catalog synced (the watch-cache scenario's queries). */
  probe?: (catalog: string) => Promise<Record<string, unknown>>,
): Promise<ProfileMeasurement & { probe?: Record<string, unknown> }> {
  const name = `bench-cp-${cat.id}-${profile}`.replace(/[^a-z0-9-]/g, '-');
  await h.resetControlPlane();
  const controller = await h.startController(controllerKubeconfig, h.logDir);
  try {
    await h.waitForQuiet(h.api);
    const before = await liveHeapSamples(h.api);
    const rssBefore = apiserverRss();
    if (!h.reuse) await h.etcd.compactDefrag();
    const etcdBefore = (await h.etcd.status()).dbSize;
    const sync = await syncCatalog(h, name, cat.ref, profile);
    // The watch cache holds decoded copies of what was written: measure once the writes and
    // their watchers (the garbage collector's graph, the controller's drift watch) are done.
    await h.waitForQuiet(h.api);
    const rssAfter = apiserverRss();
    const after = await liveHeapSamples(h.api);
    if (!h.reuse) await h.etcd.compactDefrag();
    const etcdAfter = (await h.etcd.status()).dbSize;
    const heapAdded = median(after) - median(before);
    const etcdAdded = etcdAfter - etcdBefore;
    const m: ProfileMeasurement & { probe?: Record<string, unknown> } = {
      objects: sync.objects,
      apiserverRssBytes: { before: rssBefore, after: rssAfter },
      apiserverHeapBytesAdded: heapAdded,
      apiserverHeapBytesPerContentByte: r3(heapAdded / cat.contentBytes),
      etcdBytesAdded: etcdAdded,
      etcdBytesPerContentByte: r3(etcdAdded / cat.contentBytes),
      heapSamples: { before, after },
      syncSeconds: Number(sync.seconds.toFixed(1)),
      ...(sync.storedBytes !== undefined && { statusStoredBytes: sync.storedBytes }),
    };
    if (probe) m.probe = await probe(name);
    h.log(
      `control plane, ${cat.id} ${profile}: ${JSON.stringify({ ...m, heapSamples: undefined })}`,
    );
    return m;
  } finally {
    // The controller removes its finalizer: delete while it runs.
    await h.deleteCatalog(h.api, name);
    await controller.stop();
  }
}

/** The same blobs stored as ConfigMap string data (one per blob): the apiserver's floor. */
async function measureConfigMaps(
  h: BenchHooks,
  cat: CatalogUnderTest,
): Promise<ProfileMeasurement> {
  await h.resetControlPlane();
  const blobs: Buffer[] = [];
  const scanTarget = renderTarget(cat.dir, { catalog: 'baseline', output: 'json' });
  let i = 0;
  await scanCatalog(scanTarget, undefined, (_obj, blob) => {
    blobs.push(
      Buffer.from(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `blob-${i++}`, namespace: BASELINE_NS },
          data: { content: blob.canonical },
        }),
      ),
    );
  });
  await h.api.json('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: BASELINE_NS },
  });
  try {
    await h.waitForQuiet(h.api);
    const before = await liveHeapSamples(h.api);
    const rssBefore = apiserverRss();
    if (!h.reuse) await h.etcd.compactDefrag();
    const etcdBefore = (await h.etcd.status()).dbSize;
    const client = h.api.withSockets(16);
    await mapBounded(blobs, 16, async (body) => {
      const r = await client.request('POST', `/api/v1/namespaces/${BASELINE_NS}/configmaps`, body);
      if (r.status !== 201) throw new Error(`ConfigMap POST: ${r.status} ${r.body.slice(0, 300)}`);
    });
    client.close();
    await h.waitForQuiet(h.api);
    const after = await liveHeapSamples(h.api);
    if (!h.reuse) await h.etcd.compactDefrag();
    const etcdAdded = (await h.etcd.status()).dbSize - etcdBefore;
    const heapAdded = median(after) - median(before);
    const m: ProfileMeasurement = {
      objects: blobs.length,
      apiserverRssBytes: { before: rssBefore, after: apiserverRss() },
      apiserverHeapBytesAdded: heapAdded,
      apiserverHeapBytesPerContentByte: r3(heapAdded / cat.contentBytes),
      etcdBytesAdded: etcdAdded,
      etcdBytesPerContentByte: r3(etcdAdded / cat.contentBytes),
      heapSamples: { before, after },
    };
    h.log(
      `control plane, ${cat.id} as ConfigMaps: ${JSON.stringify({ ...m, heapSamples: undefined })}`,
    );
    return m;
  } finally {
    await deleteNamespace(h.api, BASELINE_NS);
  }
}

/** Deletes a namespace (its ConfigMaps first, in one request) and waits until it is gone. */
async function deleteNamespace(api: Api, ns: string): Promise<void> {
  await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps`);
  await api.request('DELETE', `/api/v1/namespaces/${ns}`);
  const deadline = Date.now() + 300_000;
  while ((await api.request('GET', `/api/v1/namespaces/${ns}`)).status !== 404) {
    if (Date.now() > deadline) throw new Error(`namespace ${ns} not deleted`);
    await delay(1000);
  }
}

// ---------- other clients during a cold sync ----------

interface ClientLatency {
  idle: number;
  duringColdSync: number;
  /** duringColdSync ÷ idle (target ≤ 3). */
  ratio: number;
  /** The controller's CatalogMetadata writes per second in that cold sync: the trade-off. */
  writesPerSecond: number;
  endToEndWritesPerSecond: number;
  requests: { idle: number; duringColdSync: number };
  p50: { idle: number; duringColdSync: number };
  /** p99 of the GETs and of the LISTs alone (a LIST without resourceVersion reads etcd's revision). */
  p99ByVerb: {
    get: { idle: number; duringColdSync: number };
    list: { idle: number; duringColdSync: number };
  };
  /** Responses other than 200 during the sync (429: rejected by APF). */
  errorsDuringColdSync: number;
  /** The seats the apiserver gave config/flowcontrol's level (with the FlowSchema only). */
  prioritySeats?: number;
}

/**
 * The other client's p99 (seconds) over IDLE_PROBE_SECONDS with the controller idle, then during
 * a cold sync of `cat` (full profile), on a freshly restarted apiserver.
 */
async function otherClientLatency(
  h: BenchHooks,
  controllerKubeconfig: string,
  other: Api,
  cat: CatalogUnderTest,
  label: string,
): Promise<ClientLatency> {
  const name = `bench-cp-${cat.id}-${label}`.replace(/[^a-z0-9-]/g, '-');
  await h.resetControlPlane();
  const controller = await h.startController(controllerKubeconfig, h.logDir);
  try {
    await h.waitForQuiet(h.api);
    const idleProbe = latencyProbe(other, OTHER_NS, OTHER_CONFIGMAPS);
    await delay(IDLE_PROBE_SECONDS * 1000);
    const idle = await idleProbe.stop();
    const busyProbe = latencyProbe(other, OTHER_NS, OTHER_CONFIGMAPS);
    const sync = await syncCatalog(h, name, cat.ref, 'full');
    const busy = await busyProbe.stop();
    const p99Idle = percentile(idle.seconds, 0.99);
    const p99Busy = percentile(busy.seconds, 0.99);
    const out: ClientLatency = {
      idle: r3(p99Idle),
      duringColdSync: r3(p99Busy),
      ratio: Number((p99Busy / p99Idle).toFixed(2)),
      writesPerSecond: Math.round(sync.objects / sync.writeSeconds),
      endToEndWritesPerSecond: Math.round(sync.objects / sync.seconds),
      requests: { idle: idle.seconds.length, duringColdSync: busy.seconds.length },
      p50: {
        idle: Number(percentile(idle.seconds, 0.5).toFixed(4)),
        duringColdSync: Number(percentile(busy.seconds, 0.5).toFixed(4)),
      },
      errorsDuringColdSync: busy.errors,
      p99ByVerb: {
        get: {
          idle: r3(percentile(idle.getSeconds, 0.99)),
          duringColdSync: r3(percentile(busy.getSeconds, 0.99)),
        },
        list: {
          idle: r3(percentile(idle.listSeconds, 0.99)),
          duringColdSync: r3(percentile(busy.listSeconds, 0.99)),
        },
      },
    };
    const seats = await labelledMetric(
      h.api,
      'apiserver_flowcontrol_nominal_limit_seats',
      `priority_level="${PRIORITY_LEVEL}"`,
    );
    if (!Number.isNaN(seats)) out.prioritySeats = seats;
    h.log(`other client, ${label}: ${JSON.stringify(out)}`);
    return out;
  } finally {
    // The controller removes its finalizer: delete while it runs.
    await h.deleteCatalog(h.api, name);
    await controller.stop();
  }
}

/** Applies config/flowcontrol and waits until the apiserver has taken it up (not dangling). */
export async function applyFlowSchema(h: BenchHooks): Promise<void> {
  kubectl(h, ['apply', '--server-side', '-k', path.join(h.root, 'config', 'flowcontrol')]);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const fs = await h.api.json<{
      status?: { conditions?: Array<{ type: string; status: string }> };
    }>('GET', `/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/${PRIORITY_LEVEL}`);
    const dangling = fs.status?.conditions?.find((c) => c.type === 'Dangling');
    if (dangling?.status === 'False') return;
    if (Date.now() > deadline) throw new Error('FlowSchema not taken up in 60 s');
    await delay(500);
  }
}

// ---------- the section ----------

/** Whether the built controller knows the lean profile (`--content-profile`, branch h-lean). */
function controllerHasLean(root: string): boolean {
  try {
    const help = execFileSync(
      process.execPath,
      [path.join(root, 'dist', 'src', 'cmd', 'catalogd.js'), 'controller', '--help'],
      { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '/nonexistent' } },
    );
    return help.includes('--content-profile');
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? '').includes('--content-profile');
  }
}

export async function prepareCatalog(
  h: BenchHooks,
  id: string,
  dir: string,
): Promise<CatalogUnderTest> {
  const { ref } = await pushCatalog(dir, `${h.registry}/bench/control-plane-${id}:v1`);
  // The controller's objects, with a real uid's length in the owner reference, as render sees them.
  const { profiles, full } = await measureCatalog(dir, {
    catalog: `bench-cp-${id}`,
    output: 'json',
  });
  return {
    id,
    dir,
    ref,
    objects: full.blobs,
    contentBytes: full.bytes,
    objectBytes: {
      full: profiles.full.objectBytes,
      lean: profiles.lean.objectBytes,
      none: profiles.none.objectBytes,
    },
    contentValues: {
      full: profiles.full.contentValues,
      lean: profiles.lean.contentValues,
      none: profiles.none.contentValues,
    },
  };
}

/** The generated catalog of the run's largest size, then each of BENCH_REAL_CATALOGS found. */
async function prepareCatalogs(h: BenchHooks): Promise<CatalogUnderTest[]> {
  const catalogs: CatalogUnderTest[] = [];
  const genDir = path.join(h.work, `control-plane-${h.sizeMB}mb`);
  await generateCatalog(genDir, { seed: 1, sizeMB: h.sizeMB });
  catalogs.push(await prepareCatalog(h, `generated-${h.sizeMB}mb`, genDir));
  const realDirs = (process.env.BENCH_REAL_CATALOGS ?? '/tmp/real/v4.20')
    .split(',')
    .filter((d) => d !== '');
  for (const d of realDirs) {
    if (!existsSync(d)) {
      h.log(`control plane: real catalog ${d} missing, skipped`);
      continue;
    }
    catalogs.push(await prepareCatalog(h, `real-${path.basename(d)}`, d));
  }
  h.log(
    `control plane: catalogs ${catalogs.map((c) => `${c.id} (${c.objects} objects)`).join(', ')}`,
  );
  return catalogs;
}

/**
 * Another client's latency during the cold sync of `gen`: without the FlowSchema, with it, and
 * with it at each BENCH_FLOWSCHEMA_SHARES=1,2,... nominalConcurrencyShares of its level (how
 * config/flowcontrol's value was chosen; docs/deploy.md).
 */
async function otherClientsWithFlowSchema(
  h: BenchHooks,
  controllerKubeconfig: string,
  other: Api,
  gen: CatalogUnderTest,
) {
  const without = await otherClientLatency(h, controllerKubeconfig, other, gen, 'no-flowschema');
  await applyFlowSchema(h);
  const bySetting: Record<string, ClientLatency> = {};
  try {
    const withFs = await otherClientLatency(h, controllerKubeconfig, other, gen, 'flowschema');
    for (const shares of (process.env.BENCH_FLOWSCHEMA_SHARES ?? '').split(',').filter(Boolean)) {
      kubectl(h, [
        'patch',
        'prioritylevelconfiguration',
        PRIORITY_LEVEL,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { limited: { nominalConcurrencyShares: Number(shares) } } }),
      ]);
      const key = `nominalConcurrencyShares=${shares}`;
      const n = Object.keys(bySetting).filter((k) => k.startsWith(`${key}`)).length;
      bySetting[n === 0 ? key : `${key} (run ${n + 1})`] = await otherClientLatency(
        h,
        controllerKubeconfig,
        other,
        gen,
        `flowschema-shares-${shares}`,
      );
    }
    return {
      ...without,
      withFlowSchema: withFs,
      ...(Object.keys(bySetting).length > 0 && { withFlowSchemaBySetting: bySetting }),
    };
  } finally {
    kubectl(h, ['delete', '--ignore-not-found', '-k', path.join(h.root, 'config', 'flowcontrol')]);
  }
}

export async function measureControlPlane(h: BenchHooks): Promise<Record<string, unknown>> {
  const catalogs = await prepareCatalogs(h);

  applyControllerRbac(h);
  applyOtherClient(h);
  const controller = await serviceAccountKubeconfig(h, CONTROLLER_NS, CONTROLLER_SA);
  controller.api.close();
  const other = await serviceAccountKubeconfig(h, OTHER_NS, OTHER_SA);

  const lean = controllerHasLean(h.root);
  const profiles: ContentProfile[] = lean ? ['full', 'lean'] : ['full'];
  const byCatalog: Record<string, Record<string, unknown>> = {};
  const samples: Record<ContentProfile, Array<CostSample & { catalog: string }>> = {
    full: [],
    lean: [],
    none: [],
  };
  for (const cat of catalogs) {
    const entry: Record<string, unknown> = {
      objects: cat.objects,
      contentBytes: cat.contentBytes,
      objectBytes: cat.objectBytes,
      contentValues: cat.contentValues,
    };
    for (const p of profiles) {
      const m = await measureProfile(h, controller.file, cat, p);
      entry[p] = m;
      samples[p].push({
        catalog: cat.id,
        objects: cat.objects,
        objectBytes: cat.objectBytes[p],
        contentValues: cat.contentValues[p],
        etcdBytes: m.etcdBytesAdded,
        apiserverHeapBytes: m.apiserverHeapBytesAdded,
      });
    }
    entry.configMaps = await measureConfigMaps(h, cat);
    byCatalog[cat.id] = entry;
  }

  // Other clients: during the cold sync of the generated catalog, without and with the FlowSchema.
  const gen = catalogs[0]!;
  const otherClients = await otherClientsWithFlowSchema(h, controller.file, other.api, gen);
  other.api.close();

  // The coefficients this run measured, and how well the checked-in ones predict this run.
  const fitted: CostModel = fitCostModel(
    measuredBy(h, catalogs),
    Object.fromEntries(profiles.map((p) => [p, samples[p]])),
  );
  const prediction = renderCostPrediction(catalogs, byCatalog, profiles);
  await writeCostFiles(h.root, fitted, samples);

  const result = {
    ...headline(catalogs, byCatalog),
    otherClientP99Seconds: { catalog: gen.id, ...otherClients },
    renderCostPrediction: prediction,
    fittedCostModel: fitted,
    byCatalog,
  };
  return { ...result, targets: controlPlaneTargets(result) };
}

/**
 * Headline numbers: the real catalog (the lean target is set on real catalogs) when there is
 * one, else the generated one; every catalog is in byCatalog.
 */
function headline(
  catalogs: readonly CatalogUnderTest[],
  byCatalog: Record<string, Record<string, unknown>>,
) {
  const head = byCatalog[(catalogs[1] ?? catalogs[0])!.id]!;
  const perByte = (m: ProfileMeasurement | undefined) =>
    m && {
      apiserverHeapBytesPerContentByte: m.apiserverHeapBytesPerContentByte,
      etcdBytesPerContentByte: m.etcdBytesPerContentByte,
    };
  const full = head.full as ProfileMeasurement;
  const leanM = head.lean as ProfileMeasurement | undefined;
  return {
    headlineCatalog: (catalogs[1] ?? catalogs[0])!.id,
    fullProfile: perByte(full),
    leanProfile: leanM
      ? {
          ...perByte(leanM),
          heapRatioToFull: r3(leanM.apiserverHeapBytesAdded / full.apiserverHeapBytesAdded),
          etcdRatioToFull: r3(leanM.etcdBytesAdded / full.etcdBytesAdded),
        }
      : { skipped: 'the controller under test has no --content-profile (branch h-lean)' },
    configMapBaseline: perByte(head.configMaps as ProfileMeasurement),
  };
}

function measuredBy(h: BenchHooks, catalogs: CatalogUnderTest[]): string {
  const day = new Date().toISOString().slice(0, 10);
  const what = catalogs.map((c) => `${c.id} (${c.objects} objects)`).join(', ');
  return `make bench ${day}, BENCH_ONLY=controlPlane BENCH_SIZES=${h.sizeMB}: ${what}`;
}

/** Used by bench/run.ts's markdown. */
export function controlPlaneMarkdown(cp: Record<string, unknown>): string {
  return `Control plane (bench/control-plane.ts): \`${JSON.stringify({ ...cp, byCatalog: undefined, fittedCostModel: undefined })}\``;
}
