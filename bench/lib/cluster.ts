// Cluster control: the bench's own control plane (hack/cluster.sh), etcd, the control plane's
// CPU and quiet, the apiserver's heap, metrics and profiles, and a restart between phases.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../../src/api/v1/index.js';
import type { Api } from './api.js';
import { CM } from './api.js';
import { LOCAL, PPROF_DIR, PPROF_SECONDS, ROOT, log, round } from './config.js';
import { readClusterEnv } from '../../test/support/cluster.js';
import { procStatus } from '../../test/support/controller.js';
import { procCpuSeconds } from './controller-process.js';

export function clusterScript(cmd: 'up' | 'down'): void {
  execFileSync(path.join(ROOT, 'hack', 'cluster.sh'), [cmd], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CATALOGD_LOCAL: LOCAL },
  });
}

export function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1).replace(/^"|"$/g, '');
  }
  return env;
}

/**
 * The local cluster's environment (.local/env, or CATALOGD_LOCAL's: `make cluster-up`) put in
 * this process's, so that kubectl and the pusher find the apiserver and registry.
 */
export function useLocalCluster(): { kubeconfig: string; registry: string } {
  const env = readClusterEnv();
  process.env.KUBECONFIG = env.KUBECONFIG;
  process.env.REGISTRY = env.REGISTRY;
  process.env.PATH = `${env.KUBE_BIN_DIR}:${process.env.PATH}`;
  return { kubeconfig: env.KUBECONFIG, registry: env.REGISTRY };
}

// ---------- etcd ----------

export class Etcd {
  constructor(readonly url: string) {}
  private async post<T>(p: string, body: unknown): Promise<T> {
    const r = await fetch(`${this.url}${p}`, { method: 'POST', body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`etcd ${p}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  }
  async status(): Promise<{ dbSize: number; dbSizeInUse: number; revision: number }> {
    const s = await this.post<{
      dbSize: string;
      dbSizeInUse: string;
      header: { revision: string };
    }>('/v3/maintenance/status', {});
    return {
      dbSize: Number(s.dbSize),
      dbSizeInUse: Number(s.dbSizeInUse),
      revision: Number(s.header.revision),
    };
  }
  /** Compacts history up to now and defragments: the db then holds exactly the live keys. */
  async compactDefrag(): Promise<void> {
    const { revision } = await this.status();
    await this.post('/v3/kv/compaction', { revision: String(revision), physical: true }).catch(
      (err: unknown) => {
        if (!String(err).includes('compacted')) throw err;
      },
    );
    await this.post('/v3/maintenance/defragment', {});
  }
  async version(): Promise<string> {
    const r = await fetch(`${this.url}/version`);
    return ((await r.json()) as { etcdserver: string }).etcdserver;
  }
}

/** The control plane's processes, by their hack/cluster.sh pid file names. */
export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager'] as const;
export type Component = (typeof COMPONENTS)[number];
/** CPU seconds by control-plane process. */
export type PlaneCpu = Record<Component, number>;

/**
 * PIDs of etcd, kube-apiserver and kube-controller-manager, from hack/cluster.sh's pid files;
 * read on first use and again after restartControlPlane. A component without a pid file
 * (BENCH_REUSE_CLUSTER with another set-up) has none.
 */
let controlPlanePids: Partial<Record<Component, number>> | undefined;

function planePids(): Partial<Record<Component, number>> {
  controlPlanePids ??= Object.fromEntries(
    COMPONENTS.flatMap((c) => {
      const file = path.join(LOCAL, 'cluster', 'pids', `${c}.pid`);
      return existsSync(file) ? [[c, Number(readFileSync(file, 'utf8'))]] : [];
    }),
  );
  return controlPlanePids;
}

/** CPU seconds used so far by each control-plane process (0 for one without a pid file). */
export function controlPlaneCpu(): PlaneCpu {
  const pids = planePids();
  return Object.fromEntries(
    COMPONENTS.map((c) => [c, pids[c] === undefined ? 0 : procCpuSeconds(pids[c])]),
  ) as PlaneCpu;
}

/** The CPUs the control plane and the clients run on while split (splitCpus), else undefined. */
let cpuSplit: { plane: string; clients: string } | undefined;
/** The CPUs this process could run on before the first split: what joining them restores. */
let allCpus: number[] | undefined;

/**
 * Splits the CPUs this process may run on between the control plane (etcd, kube-apiserver,
 * kube-controller-manager: the lower half) and this process with its children (the raw loop, the
 * controllers it starts: the upper half), as on a cluster, where the controller runs on a worker
 * node and the apiserver on its own. `false` joins them again. Needs two CPUs at least; `taskset`
 * from util-linux.
 */
export function splitCpus(on: boolean): { plane: string; clients: string } | undefined {
  allCpus ??= allowedCpus();
  if (on && allCpus.length < 2) {
    throw new Error(`splitting CPUs needs 2 at least; this process may run on ${allCpus.length}`);
  }
  const half = Math.floor(allCpus.length / 2);
  cpuSplit = on
    ? { plane: allCpus.slice(0, half).join(','), clients: allCpus.slice(half).join(',') }
    : undefined;
  const pin = (cpus: string, pid: number) =>
    execFileSync('taskset', ['-a', '-cp', cpus, String(pid)], { stdio: 'ignore' });
  for (const pid of Object.values(planePids())) pin(cpuSplit?.plane ?? allCpus.join(','), pid);
  pin(cpuSplit?.clients ?? allCpus.join(','), process.pid);
  return cpuSplit;
}

/** This process's CPU affinity (Cpus_allowed_list of /proc/self/status, e.g. `0-3,8`). */
function allowedCpus(): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (!list) throw new Error('no Cpus_allowed_list in /proc/self/status');
  return list.split(',').flatMap((range) => {
    const [lo, hi = lo] = range.split('-').map(Number) as [number, number?];
    return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  });
}

/** kube-apiserver's VmRSS now (NaN without its pid file). */
export function apiserverRss(): number {
  const pid = planePids()['kube-apiserver'];
  return pid === undefined ? NaN : (procStatus(pid)?.rss ?? NaN);
}

export const planeTotal = (c: PlaneCpu): number => COMPONENTS.reduce((sum, k) => sum + c[k], 0);

export function planeDelta(from: PlaneCpu, to: PlaneCpu): PlaneCpu {
  return Object.fromEntries(COMPONENTS.map((c) => [c, to[c] - from[c]])) as PlaneCpu;
}

/** Control-plane CPU per object, in ms, in total and by process. */
export function planeMsPerWrite(cpu: PlaneCpu, objects: number): PlaneMsPerWrite {
  const ms = (x: number) => round((x * 1000) / objects, 3);
  return {
    total: ms(planeTotal(cpu)),
    etcd: ms(cpu.etcd),
    apiserver: ms(cpu['kube-apiserver']),
    controllerManager: ms(cpu['kube-controller-manager']),
  };
}

export interface PlaneMsPerWrite {
  total: number;
  etcd: number;
  apiserver: number;
  controllerManager: number;
}

/** A control plane using less than this share of one core counts as quiet. */
export const QUIET_CPU_SHARE = 0.1;

/**
 * Waits until the control plane is quiet (two 1-second windows in a row under QUIET_CPU_SHARE
 * of a core, at most 120 s), so that a measured phase does not pay for the work the previous
 * one left behind: the garbage collector and the apiserver's watchers still digesting a
 * deletecollection of thousands of objects, etcd's compaction. Returns what it saw.
 */
export async function waitForQuietControlPlane(api: Api): Promise<QuietWait> {
  const t0 = performance.now();
  let quietWindows = 0;
  let last = 0;
  while (quietWindows < 2 && performance.now() - t0 < 120_000) {
    const before = planeTotal(controlPlaneCpu());
    await delay(1000);
    last = planeTotal(controlPlaneCpu()) - before;
    quietWindows = last < QUIET_CPU_SHARE ? quietWindows + 1 : 0;
  }
  return {
    waitedSeconds: round((performance.now() - t0) / 1000, 1),
    lastWindowCpuShare: round(last, 3),
    apiserverHeapBytes: await apiserverMetric(api, 'go_memstats_heap_inuse_bytes'),
    cpuProbeOpsPerSecond: cpuSpeedProbe(),
  };
}

export const PROBE_OBJECT = JSON.stringify(
  Array.from({ length: 50 }, (_, i) => ({
    name: `bundle-${i}`,
    properties: [{ i, v: 'x'.repeat(i) }],
  })),
);

/** A fixed CPU- and allocation-bound task (a JSON parse and stringify) repeated for `ms`. */
function probeTask(ms: number): { ops: number; wallSeconds: number; cpuSeconds: number } {
  const [t0, c0] = [performance.now(), process.cpuUsage()];
  let ops = 0;
  while (performance.now() - t0 < ms) {
    JSON.stringify(JSON.parse(PROBE_OBJECT));
    ops++;
  }
  const c = process.cpuUsage(c0);
  return {
    ops,
    wallSeconds: (performance.now() - t0) / 1000,
    cpuSeconds: (c.user + c.system) / 1e6,
  };
}

/**
 * The probe task for 1 s on the quiet machine, in the bench process, per second of wall time:
 * its rate tracks how fast the shared cores are at that moment, which other tenants of the host
 * decide.
 */
export function cpuSpeedProbe(): number {
  const p = probeTask(1000);
  return Math.round(p.ops / p.wallSeconds);
}

/**
 * The probe task for 0.5 s, per second of this process's CPU rather than of wall time: a busy
 * machine (the control plane still digesting a phase) does not lower it, a slower host (another
 * tenant on the cores' siblings) does. Measured before and after a phase, it says how fast the
 * machine was during it.
 */
export function cpuSpeedPerCpuSecond(): number {
  const p = probeTask(500);
  return Math.round(p.ops / p.cpuSeconds);
}

export interface QuietWait {
  waitedSeconds: number;
  /** Control-plane CPU seconds in the last 1-second window (0.1 = 10 % of a core). */
  lastWindowCpuShare: number;
  /**
   * kube-apiserver's Go heap in use when the phase starts: its watch cache keeps recent events
   * (deleted objects too) for a while, so the phases before can leave a larger heap to mark.
   */
  apiserverHeapBytes: number;
  /** cpuSpeedProbe's rate right before the phase (higher: faster cores then). */
  cpuProbeOpsPerSecond: number;
}

/**
 * kube-apiserver's live heap: a heap profile request with gc=1 makes it collect first, so
 * go_memstats_heap_alloc_bytes then counts what is reachable (its watch cache included).
 */
export async function apiserverLiveHeap(api: Api): Promise<number> {
  await api.request('GET', '/debug/pprof/heap?gc=1');
  return apiserverMetric(api, 'go_memstats_heap_alloc_bytes');
}

/**
 * The sum of a kube-apiserver metric's samples that carry all of `labels` (NaN when /metrics
 * cannot be read).
 */
export async function apiserverMetric(
  api: Api,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const r = await api.request('GET', '/metrics');
  if (r.status !== 200) return NaN;
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of r.body.split('\n')) {
    if (!line.startsWith(`${name} `) && !line.startsWith(`${name}{`)) continue;
    if (wanted.every((l) => line.includes(l))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Waits until kube-controller-manager's garbage collector watches CatalogMetadata. It finds new
 * resources by periodic discovery (every 30 s), so right after the CRD is created it does not
 * watch them yet, and a phase run then would be spared the collector's share of the work (stop 16
 * measured 0.006 ms of its CPU per object then, 0.17 to 0.23 ms later). The probe: an object whose
 * owner does not exist, which the collector deletes once it watches the resource.
 */
export async function waitForGarbageCollector(api: Api): Promise<number> {
  const t0 = performance.now();
  const name = `bench-gc-probe-${Date.now()}`;
  const ref = { apiVersion: `${GROUP}/${VERSION}`, kind: 'ClusterCatalog', name: 'bench-gc-probe' };
  await api.json('POST', CM, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'CatalogMetadata',
    metadata: { name, ownerReferences: [{ ...ref, uid: randomUUID() }] },
    spec: { catalog: { name: ref.name }, schema: 'olm.package', content: {} },
  });
  while ((await api.request('GET', `${CM}/${name}`)).status !== 404) {
    if (performance.now() - t0 > 180_000)
      throw new Error('the garbage collector did not collect CatalogMetadata within 180 s');
    await delay(500);
  }
  return round((performance.now() - t0) / 1000, 1);
}

/**
 * Restarts kube-apiserver (same binary, flags, port and etcd; `hack/cluster.sh stop|start`) and
 * waits until the garbage collector watches CatalogMetadata again. Its watch cache keeps the
 * recent events of CatalogMetadata, deleted objects included, in memory: after a few phases of
 * a 30 MB catalog its Go heap held 2.1 GB, and when a collection of that heap falls inside a
 * phase depends on what ran before. A fresh process gives every measured phase the same start.
 * kube-controller-manager is restarted with it: its watches would otherwise come back only
 * after their reconnect backoff (19 to 74 s measured), a fresh one collects within seconds.
 */
export async function restartControlPlane(api: Api): Promise<number> {
  const t0 = performance.now();
  const script = path.join(ROOT, 'hack', 'cluster.sh');
  const opts = {
    stdio: ['ignore', 'ignore', 'inherit'] as ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CATALOGD_LOCAL: LOCAL },
  };
  execFileSync(script, ['stop', 'kube-controller-manager'], opts);
  execFileSync(script, ['stop', 'kube-apiserver'], opts);
  api.dropIdleConnections();
  // Started on the control plane's CPUs when they are split from the clients' (cpuSplit): a Go
  // process sizes GOMAXPROCS by the CPUs it may run on when it starts.
  const start = (c: Component) =>
    cpuSplit
      ? execFileSync('taskset', ['-c', cpuSplit.plane, script, 'start', c], opts)
      : execFileSync(script, ['start', c], opts);
  start('kube-apiserver');
  start('kube-controller-manager');
  controlPlanePids = undefined; // new pids
  await waitForGarbageCollector(api);
  return round((performance.now() - t0) / 1000, 1);
}

/**
 * With BENCH_PPROF: the apiserver's CPU profile over the next PPROF_SECONDS, saved as
 * `<label>.pprof`. Taken inside a write phase, it shows where the apiserver's time per object goes
 * (compare a controller round with a raw level: `go tool pprof -top -diff_base=raw.pprof c.pprof`).
 */
export async function apiserverProfile(api: Api, label: string): Promise<void> {
  if (!PPROF_DIR) return;
  await mkdir(PPROF_DIR, { recursive: true });
  const r = await api.request('GET', `/debug/pprof/profile?seconds=${PPROF_SECONDS}`);
  if (r.status !== 200) {
    log(`apiserver profile ${label}: HTTP ${r.status}`);
    return;
  }
  await writeFile(path.join(PPROF_DIR, `${label}.pprof`), r.bytes);
}

/**
 * Seconds the apiserver has spent serving CatalogMetadata POSTs so far (the sum of its request
 * duration histogram). Its increase over a phase ÷ the phase's length = the mean number of
 * POSTs in flight at the apiserver: the concurrency the client really kept up.
 */
export function apiserverPostSeconds(api: Api): Promise<number> {
  return apiserverMetric(api, 'apiserver_request_duration_seconds_sum', {
    verb: 'POST',
    resource: CATALOG_METADATA_PLURAL,
  });
}
