// The pacing scenario (issue 36; BENCH_ONLY=pacing, or BENCH_PACING=1 in a full run): what write
// pacing (src/sync/pacing.ts) costs the controller's write rate and buys other clients, in one
// run against one apiserver, on the largest generated catalog of BENCH_SIZES:
//   alone      the raw client at c=32 with metadata-only responses (`32m`, the fair limit), then
//              the controller's cold sync with pacing on and off, as the admin (exempt from APF,
//              as the raw client is): the write rate ÷ raw-32m;
//   curve      the controller as its ServiceAccount (APF classifies it as on a cluster), pacing off
//              and on, without and with the shipped FlowSchema (config/flowcontrol), while another
//              ServiceAccount GETs and LISTs ConfigMaps at BENCH_OTHER_RATE requests a second: its
//              p99 by verb idle (15 s before the sync) and during the sync, beside our rate and
//              duration, the window at the end and its decreases.
//   freshness  raw writes at fixed rates while the other client reads (freshness.ts): which write
//              rate spares its consistent LISTs;
//   ceiling    the controller with --max-write-rate of each BENCH_MAX_WRITE_RATES (default 2,5)
//              and without, on a small catalog (BENCH_RATE_MB, default 2), the other client
//              reading.
// Every phase starts on a restarted apiserver over a compacted etcd (BenchHooks.resetControlPlane).
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pushCatalog } from '../../src/source/index.js';
import { metricSumIn } from '../../test/support/controller.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import type { BenchHooks } from '../control-plane.js';
import {
  CONTROLLER_NS,
  CONTROLLER_SA,
  OTHER_CONFIGMAPS,
  OTHER_NS,
  OTHER_SA,
  PRIORITY_LEVEL,
  applyControllerRbac,
  applyFlowSchema,
  applyOtherClient,
  kubectl,
  serviceAccountKubeconfig,
  syncCatalog,
} from '../control-plane.js';
import type { Api } from '../lib/api.js';
import { CM, METADATA_ONLY, METADATA_ONLY_PROTOBUF } from '../lib/api.js';
import { ownerCatalog, rawPosts, rawPostsHttp1, render } from '../lib/catalogs.js';
import type { Controller } from '../lib/controller-process.js';
import type { ThreadCpu } from '../lib/controller-process.js';
import {
  procCpuSeconds,
  procThreadCpu,
  startController,
  threadCpuMsPer,
} from '../lib/controller-process.js';
import type { PlaneCpu, PlaneMsPerWrite } from '../lib/cluster.js';
import {
  controlPlaneCpu,
  cpuSpeedPerCpuSecond,
  planeDelta,
  planeMsPerWrite,
  splitCpus,
} from '../lib/cluster.js';
import { latencyProbe } from '../lib/latency.js';
import { captureApiserverProfile } from '../lib/pprof.js';
import { median, medianItem, percentile } from '../lib/stats.js';
import type { FreshnessPoint } from './freshness.js';
import { freshnessMarkdown, measureFreshness } from './freshness.js';

/** The other client's requests a second (GETs and LISTs alternating, two loops). */
const OTHER_RATE = Number(process.env.BENCH_OTHER_RATE ?? '40');
const IDLE_PROBE_SECONDS = 15;
const PACING_OFF = ['--no-write-pacing'];
/** BENCH_MAX_WRITE_RATES: the --max-write-rate values of the ceiling part. */
const MAX_WRITE_RATES = (process.env.BENCH_MAX_WRITE_RATES ?? '2,5').split(',').filter(Boolean);
const RATE_MB = Number(process.env.BENCH_RATE_MB ?? '2');
/**
 * BENCH_PACING_TOLERANCES=1.5,2.5: a pacing-on phase per --write-latency-tolerance (default: the
 * controller's default only), more points on the curve.
 */
const TOLERANCES = (process.env.BENCH_PACING_TOLERANCES ?? '').split(',').filter(Boolean);
const pacingOn: Array<[label: string, args: string[]]> =
  TOLERANCES.length === 0
    ? [['on', ['--write-pacing']]]
    : TOLERANCES.map((t) => [`on-${t}`, ['--write-pacing', `--write-latency-tolerance=${t}`]]);

const ms = (s: number) => Number((s * 1000).toFixed(1));
const meanSpeed = (s: { before: number; after: number }) => (s.before + s.after) / 2;
const r2 = (x: number) => Number(x.toFixed(2));

interface SyncNumbers {
  objects: number;
  /** Objects ÷ the write phase (first status with `syncingTo` → Succeeded). */
  writesPerSecond: number;
  /** Creation → Succeeded, and the write phase, in seconds. */
  seconds: number;
  writeSeconds: number;
  /** The window at the end and its decreases (pacing on). */
  windowAtEnd: number;
  windowDecreases: { latency: number; throttled: number };
  /** The controller's CPU (user + system) per object over the sync, in ms. */
  cpuMsPerObject?: number;
  /**
   * The controller's CPU per object in the write phase by thread (main, V8's helpers, libuv's
   * pool), user and system apart, in ms: where the CPU a CPU profile does not see goes.
   */
  writeCpuMsPerObject?: Record<string, ThreadCpu>;
  /** Its garbage collections over the sync (prom-client's nodejs_gc_duration_seconds). */
  gc?: Record<'major' | 'minor' | 'incremental', { count: number; seconds: number }>;
  /**
   * The V8 heap in use right after the sync, in MB, in all and in old space (prom-client's
   * nodejs_heap_size_used_bytes and nodejs_heap_space_size_used_bytes): what each of its full
   * collections marks.
   */
  heapUsedMB?: { total: number; oldSpace: number };
  /**
   * etcd's, kube-apiserver's and kube-controller-manager's CPU per object over the write phase,
   * in ms: with the controller's, where a write's CPU goes on the machine the two share.
   */
  planeWriteCpuMsPerObject?: PlaneMsPerWrite;
  /**
   * The controller's lists and watches of CatalogMetadata up to the end of the sync
   * (catalogd_apiserver_requests_total): 1 and 1 unless the apiserver ended its drift watch and
   * it listed again.
   */
  catalogMetadataListsWatches?: { list: number; watch: number };
  /** The machine's speed right before and after the sync (cpuSpeedPerCpuSecond, operations). */
  machineSpeed?: { before: number; after: number };
}

const GC_KINDS = ['major', 'minor', 'incremental'] as const;

/** The controller's GC counts and seconds by kind so far, from one scrape. */
/** The collections so far, from a scrape of the controller's metrics. */
function gcTotals(text: string): NonNullable<SyncNumbers['gc']> {
  const out = {} as NonNullable<SyncNumbers['gc']>;
  for (const kind of GC_KINDS)
    out[kind] = {
      count: metricSumIn(text, 'nodejs_gc_duration_seconds_count', { kind }),
      seconds: metricSumIn(text, 'nodejs_gc_duration_seconds_sum', { kind }),
    };
  return out;
}

interface OtherClient {
  /** p99 by verb in ms: idle (before the sync), during the sync, and during ÷ idle. */
  get: { idleMs: number; duringMs: number; ratio: number };
  list: { idleMs: number; duringMs: number; ratio: number };
  /** Requests made during the sync, and those not answered 200 (429: APF rejected them). */
  requests: number;
  errors: number;
}

/** One cold sync by a fresh controller; `other`: the other client measured around it. */
async function controllerPhase(
  h: BenchHooks,
  label: string,
  kubeconfig: string,
  ref: string,
  args: string[],
  /** `other`: the other client measured around the sync; `nodeOptions`: the controller's. */
  opts: { other?: Api; nodeOptions?: string } = {},
): Promise<SyncNumbers & { otherClient?: OtherClient }> {
  const { other, nodeOptions } = opts;
  const name = `bench-pacing-${label.replace(/\./g, 'p')}`;
  await h.resetControlPlane();
  const controller: Controller = await startController(
    kubeconfig,
    h.logDir,
    ['--no-leader-elect', ...args],
    nodeOptions,
  );
  try {
    await h.waitForQuiet(h.api);
    let idle;
    if (other) {
      const probe = latencyProbe(other, OTHER_NS, OTHER_CONFIGMAPS, OTHER_RATE);
      await delay(IDLE_PROBE_SECONDS * 1000);
      idle = await probe.stop();
    }
    const speedBefore = cpuSpeedPerCpuSecond();
    const busy = other && latencyProbe(other, OTHER_NS, OTHER_CONFIGMAPS, OTHER_RATE);
    const [gc0, cpu0] = [gcTotals(await controller.scrape()), procCpuSeconds(controller.pid)];
    let threads0: Record<string, ThreadCpu> | undefined;
    let plane0: PlaneCpu | undefined;
    let profile: Promise<void> | undefined;
    const sync = await syncCatalog(h, name, ref, 'full', () => {
      threads0 = procThreadCpu(controller.pid);
      plane0 = controlPlaneCpu();
      profile = captureApiserverProfile(h.api, label, PPROF_AFTER_MS, PPROF_SECONDS);
    });
    const plane1 = controlPlaneCpu();
    const [metrics1, cpu1] = [await controller.scrape(), procCpuSeconds(controller.pid)];
    const threads1 = procThreadCpu(controller.pid);
    await profile;
    const speedAfter = cpuSpeedPerCpuSecond();
    const gc1 = gcTotals(metrics1);
    const during = await busy?.stop();
    const out: SyncNumbers & { otherClient?: OtherClient } = {
      objects: sync.objects,
      writesPerSecond: Math.round(sync.objects / sync.writeSeconds),
      seconds: r2(sync.seconds),
      writeSeconds: r2(sync.writeSeconds),
      windowAtEnd: await controller.metric('catalogd_catalogmetadata_write_window'),
      windowDecreases: {
        latency: await controller.metric('catalogd_catalogmetadata_write_window_decreases_total', {
          reason: 'latency',
        }),
        throttled: await controller.metric(
          'catalogd_catalogmetadata_write_window_decreases_total',
          { reason: 'throttled' },
        ),
      },
      cpuMsPerObject: r2(((cpu1 - cpu0) * 1000) / sync.objects),
      ...(threads0 && {
        writeCpuMsPerObject: threadCpuMsPer(threads0, threads1, sync.objects),
      }),
      ...(plane0 && {
        planeWriteCpuMsPerObject: planeMsPerWrite(planeDelta(plane0, plane1), sync.objects),
      }),
      machineSpeed: { before: speedBefore, after: speedAfter },
      catalogMetadataListsWatches: {
        list: metricSumIn(metrics1, 'catalogd_apiserver_requests_total', {
          verb: 'list',
          resource: 'catalogmetadata',
        }),
        watch: metricSumIn(metrics1, 'catalogd_apiserver_requests_total', {
          verb: 'watch',
          resource: 'catalogmetadata',
        }),
      },
      heapUsedMB: {
        total: r2(metricSumIn(metrics1, 'nodejs_heap_size_used_bytes') / 1048576),
        oldSpace: r2(
          metricSumIn(metrics1, 'nodejs_heap_space_size_used_bytes', { space: 'old' }) / 1048576,
        ),
      },
      gc: Object.fromEntries(
        GC_KINDS.map((k) => [
          k,
          { count: gc1[k].count - gc0[k].count, seconds: r2(gc1[k].seconds - gc0[k].seconds) },
        ]),
      ) as NonNullable<SyncNumbers['gc']>,
    };
    if (idle && during) {
      const verb = (a: number[], b: number[]) => {
        const [i, d] = [percentile(a, 0.99), percentile(b, 0.99)];
        return { idleMs: ms(i), duringMs: ms(d), ratio: r2(d / i) };
      };
      out.otherClient = {
        get: verb(idle.getSeconds, during.getSeconds),
        list: verb(idle.listSeconds, during.listSeconds),
        requests: during.seconds.length,
        errors: during.errors,
      };
    }
    h.log(`pacing, ${label}: ${JSON.stringify(out)}`);
    return out;
  } finally {
    await h.deleteCatalog(h.api, name); // while the controller runs: it removes its finalizer
    await controller.stop();
  }
}

/** One raw loop's rate, and the CPU per write of the bench process and the control plane. */
interface RawLoopNumbers {
  rate: number;
  clientCpuMsPerObject: number;
  plane: PlaneMsPerWrite;
  machineSpeed: { before: number; after: number };
}

/**
 * How a raw loop watches meanwhile: not at all, a metadata-only JSON watch of CatalogMetadata
 * (`32mw`) as the controller's drift watch asks, or the same metadata-only watch in protobuf
 * (`32mp`), read as bytes: what each encoding of the events costs the apiserver.
 */
type RawWatch = 'none' | 'json' | 'proto';
const RAW_SUFFIX: Record<RawWatch, string> = { none: '', json: 'w', proto: 'p' };
/**
 * What a raw loop sends its POSTs over: node:https (raw-32m, the limit issue 36 measures against)
 * or the controller's write pool, src/kube/http1.ts (`h`, BENCH_PACING_RAW_HTTP1=1).
 */
type RawTransport = 'https' | 'http1';
interface RawVariant {
  watch: RawWatch;
  transport: RawTransport;
}
/** A raw loop's name after `raw-32m`: its watch, then `h` over the write pool. */
const rawSuffix = (v: RawVariant) => `${RAW_SUFFIX[v.watch]}${v.transport === 'http1' ? 'h' : ''}`;

/**
 * The raw client at c=32 with metadata-only responses (cold-sync's `32m`) into a fresh name,
 * with a watch of CatalogMetadata open meanwhile or not (RawWatch), over node:https or the
 * controller's write pool (RawTransport).
 */
async function raw32m(
  h: BenchHooks,
  dir: string,
  ref: string,
  variant: RawVariant,
): Promise<RawLoopNumbers> {
  const { watch } = variant;
  const cat = `bench-pacing-raw-32m${rawSuffix(variant)}`;
  const owner = await ownerCatalog(h.api, cat, ref);
  const file = path.join(h.work, `render-${cat}.json`);
  const bodies = render(dir, cat, owner, file);
  await h.resetControlPlane();
  await h.waitForQuiet(h.api);
  let events = 0;
  const watcher =
    watch === 'json'
      ? h.api.watch(CM, () => void events++, METADATA_ONLY)
      : watch === 'proto'
        ? h.api.watchBytes(CM, (n) => void (events += n), METADATA_ONLY_PROTOBUF)
        : undefined;
  // Open before the first write (after the restart the answer waits for the watch cache), so
  // that it carries every write's event, as the controller's drift watch does.
  await watcher?.ready;
  const speedBefore = cpuSpeedPerCpuSecond();
  const [plane0, client0] = [controlPlaneCpu(), process.cpuUsage()];
  const profile = captureApiserverProfile(
    h.api,
    `${cat}-${++profiles}`,
    PPROF_AFTER_MS,
    PPROF_SECONDS,
  );
  const { seconds } =
    variant.transport === 'http1'
      ? await rawPostsHttp1(h.api, bodies, 32, METADATA_ONLY)
      : await rawPosts(h.api, bodies, 32, METADATA_ONLY);
  const [plane1, client] = [controlPlaneCpu(), process.cpuUsage(client0)];
  const machineSpeed = { before: speedBefore, after: cpuSpeedPerCpuSecond() };
  watcher?.stop();
  await profile;
  const rate = Math.round(bodies.length / seconds);
  const plane = planeMsPerWrite(planeDelta(plane0, plane1), bodies.length);
  // The bench process's CPU: the raw loop's, and the little else the process does meanwhile.
  const clientCpuMsPerObject = r2((client.user + client.system) / 1000 / bodies.length);
  h.log(
    `pacing, raw-32m${rawSuffix(variant)}${watch === 'none' ? '' : ` (${events} watch ${watch === 'json' ? 'events' : 'bytes'})`}: ${bodies.length} in ${seconds.toFixed(1)} s = ${rate}/s; CPU ms per write: client ${clientCpuMsPerObject}, control plane ${JSON.stringify(plane)}; machine speed ${JSON.stringify(machineSpeed)}`,
  );
  await h.deleteCatalog(h.api, cat);
  await rm(file, { force: true });
  return { rate, clientCpuMsPerObject, plane, machineSpeed };
}

/**
 * BENCH_PACING_RAW_HTTP1=1: adds to the alone part, in the same turns, raw-32m over the
 * controller's write pool (`raw-32mh`): what the transport alone is worth.
 */
const RAW_HTTP1 = process.env.BENCH_PACING_RAW_HTTP1 === '1';

/** BENCH_PACING_PPROF: each alone phase's apiserver CPU profile, this far into its writes. */
const PPROF_AFTER_MS = 1500;
const PPROF_SECONDS = 8;
let profiles = 0;

/** BENCH_PACING_PARTS: which parts run (default all), e.g. freshness,ceiling. */
const PARTS = new Set(
  (process.env.BENCH_PACING_PARTS ?? 'alone,curve,freshness,ceiling').split(',').filter(Boolean),
);
/**
 * BENCH_PACING_ROUNDS: rounds of the alone part, the contenders taking turns within each round in
 * alternating order (raw first, then last): a machine whose speed drifts weighs on each alike.
 * The medians are reported.
 */
const ROUNDS = Number(process.env.BENCH_PACING_ROUNDS ?? '1');
/**
 * BENCH_PACING_ALONE=off: the alone part's controller phases (default on,off): `off` alone is the
 * controller as deployed by default against raw-32m, in half the time.
 */
const ALONE = new Set((process.env.BENCH_PACING_ALONE ?? 'on,off').split(',').filter(Boolean));
/**
 * BENCH_PACING_ALONE_NODE_OPTIONS: adds to the alone part the unpaced controller run with these
 * NODE_OPTIONS instead of the Deployment's (`off, node options`), in the same turns: a heap
 * setting measured against the default in one run.
 */
const ALONE_NODE_OPTIONS = process.env.BENCH_PACING_ALONE_NODE_OPTIONS;
/**
 * BENCH_PACING_RAW_WATCH: adds to the alone part, in the same turns, the raw loop with a
 * metadata-only watch open: `json` (or `1`) as the drift watch asks (`raw-32mw`), `proto` in
 * protobuf (`raw-32mp`), or both (`json,proto`): what the drift watch's events cost the apiserver.
 */
const RAW_WATCHES = [
  ...new Set(
    (process.env.BENCH_PACING_RAW_WATCH ?? '')
      .split(',')
      .filter(Boolean)
      .map((w): RawWatch => {
        if (w === '1' || w === 'json') return 'json';
        if (w === 'proto') return 'proto';
        throw new Error(`BENCH_PACING_RAW_WATCH: ${w}: want json, proto or both, comma-separated`);
      }),
  ),
];
/**
 * BENCH_PACING_CPUS=split: the alone part runs with the control plane on half the machine's CPUs
 * and the clients (the raw loop, the controller) on the other half (splitCpus), as on a cluster,
 * where the controller does not share the apiserver's cores: the ratio then compares what each
 * client gets out of the apiserver, not what its own CPU takes from it. Default: shared.
 */
const ALONE_CPUS = process.env.BENCH_PACING_CPUS === 'split' ? 'split' : 'shared';
/** The CPU lists of a split alone part (splitCpus). */
type AloneCpus = NonNullable<ReturnType<typeof splitCpus>>;

export async function measurePacing(h: BenchHooks): Promise<Record<string, unknown>> {
  const dir = path.join(h.work, `pacing-${h.sizeMB}mb`);
  await generateCatalog(dir, { seed: 1, sizeMB: h.sizeMB });
  const { ref } = await pushCatalog(dir, `${h.registry}/bench/pacing-${h.sizeMB}mb:v1`);
  const aloneLabel = (l: string) => `pacing ${l.replace('-', ', tolerance ')}`;

  // Alone: the same request shape as raw-32m, both exempt from APF.
  let rawRate: number | undefined;
  const rawRounds: number[] = [];
  /** The other raw loops' rates (BENCH_PACING_RAW_WATCH, _RAW_HTTP1), by their suffix. */
  const rawWatchRounds = new Map<string, number[]>();
  /** The raw loops' CPU per write, each round's: the bench process's and the control plane's. */
  const rawCpu: Array<RawVariant & Omit<RawLoopNumbers, 'rate'>> = [];
  /** The machine's speed during each round's raw-32m (the mean of before and after). */
  const rawSpeeds: number[] = [];
  /** Where the alone part ran: every process on every CPU, or split (BENCH_PACING_CPUS). */
  let aloneCpus: 'shared' | AloneCpus | undefined;
  const alone: Record<
    string,
    SyncNumbers & {
      ratioToRaw32m: number;
      rounds?: number[];
      roundRatios?: number[];
      speedNormalizedRoundRatios?: number[];
    }
  > = {};
  if (PARTS.has('alone')) {
    // A raw loop (`watch`: with a watch open) or a controller phase (its flags, its NODE_OPTIONS).
    type Contender =
      { raw: RawVariant } | { label: string; title: string; args: string[]; nodeOptions?: string };
    const controllerPhases: Contender[] = [
      ...(ALONE.has('on') ? pacingOn : []),
      ...(ALONE.has('off') ? [['off', PACING_OFF] as [string, string[]]] : []),
    ].map(([label, args]) => ({ label, title: aloneLabel(label), args }));
    const contenders: Contender[] = [
      { raw: { watch: 'none', transport: 'https' } },
      ...RAW_WATCHES.map((watch) => ({ raw: { watch, transport: 'https' as const } })),
      ...(RAW_HTTP1 ? [{ raw: { watch: 'none' as const, transport: 'http1' as const } }] : []),
      ...controllerPhases,
      ...(ALONE_NODE_OPTIONS !== undefined
        ? [
            {
              label: 'off-node-options',
              title: `pacing off, NODE_OPTIONS=${ALONE_NODE_OPTIONS}`,
              args: PACING_OFF,
              nodeOptions: ALONE_NODE_OPTIONS,
            },
          ]
        : []),
    ];
    const byTitle = new Map<string, Array<SyncNumbers>>();
    const split = splitCpus(ALONE_CPUS === 'split');
    if (split)
      h.log(`pacing, alone: control plane on CPUs ${split.plane}, clients on ${split.clients}`);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? contenders : [...contenders].reverse();
        for (const c of order) {
          if ('raw' in c) {
            const { rate, ...cpu } = await raw32m(h, dir, ref, c.raw);
            rawCpu.push({ ...c.raw, ...cpu });
            const suffix = rawSuffix(c.raw);
            if (suffix === '') {
              rawRounds.push(rate);
              rawSpeeds.push(meanSpeed(cpu.machineSpeed));
            } else rawWatchRounds.set(suffix, [...(rawWatchRounds.get(suffix) ?? []), rate]);
            continue;
          }
          const x = await controllerPhase(
            h,
            `alone-${c.label}-${round}`,
            h.kubeconfig,
            ref,
            c.args,
            {
              ...(c.nodeOptions !== undefined && { nodeOptions: c.nodeOptions }),
            },
          );
          byTitle.set(c.title, [...(byTitle.get(c.title) ?? []), x]);
        }
      }
    } finally {
      if (split) splitCpus(false);
    }
    aloneCpus = split ?? 'shared';
    rawRate = median(rawRounds);
    for (const [title, xs] of byTitle) {
      const rates = xs.map((x) => x.writesPerSecond);
      // The phase reported is a real round's (medianItem: with an even number of rounds, the
      // lower of the middle two); its ratios are of the median rate, as the raw loops' are.
      const mid = medianItem(xs, (x) => x.writesPerSecond);
      const midRate = median(rates);
      // The ratios to each watching raw loop (BENCH_PACING_RAW_WATCH), by median and by round.
      const toWatchingRaw: Record<string, number | number[]> = {};
      for (const [suffix, raw] of rawWatchRounds) {
        toWatchingRaw[`ratioToRaw32m${suffix}`] = r2(midRate / median(raw));
        toWatchingRaw[`roundRatiosToRaw32m${suffix}`] = rates.map((x, i) => r2(x / raw[i]!));
      }
      alone[title] = {
        ...mid,
        ratioToRaw32m: r2(midRate / rawRate),
        ...(ROUNDS > 1 && {
          rounds: rates,
          // Each round's rate ÷ the raw loop's of the same round (run next to it).
          roundRatios: rates.map((x, i) => r2(x / rawRounds[i]!)),
          // The same, each rate first divided by the machine's speed during its phase: the host's
          // other tenants slow the shared cores by up to a third from one phase to the next.
          speedNormalizedRoundRatios: xs.map((x, i) =>
            r2(x.writesPerSecond / meanSpeed(x.machineSpeed!) / (rawRounds[i]! / rawSpeeds[i]!)),
          ),
        }),
        ...toWatchingRaw,
      };
    }
  }

  // With the other client, the controller as its ServiceAccount.
  applyControllerRbac(h);
  applyOtherClient(h);
  const sa = await serviceAccountKubeconfig(h, CONTROLLER_NS, CONTROLLER_SA);
  sa.api.close();
  const other = await serviceAccountKubeconfig(h, OTHER_NS, OTHER_SA);
  const curve: Record<string, unknown> = {};
  const ceiling: Record<string, unknown> = {};
  let freshness: FreshnessPoint[] = [];
  try {
    if (PARTS.has('freshness')) {
      // Raw writes at fixed rates (no controller), the other client reading.
      await h.resetControlPlane();
      await h.waitForQuiet(h.api);
      const fcat = 'bench-pacing-freshness';
      const ffile = path.join(h.work, `render-${fcat}.json`);
      const bodies = render(dir, fcat, await ownerCatalog(h.api, fcat, ref), ffile);
      freshness = await measureFreshness(h, other.api, OTHER_RATE, bodies);
      await h.deleteCatalog(h.api, fcat);
      await rm(ffile, { force: true });
    }

    if (PARTS.has('ceiling')) {
      // A small catalog: a ceiling of 5 writes a second takes 44 s per 1 MB (217 objects).
      const smallDir = path.join(h.work, `pacing-rate-${RATE_MB}mb`);
      await generateCatalog(smallDir, { seed: 2, sizeMB: RATE_MB });
      const small = await pushCatalog(smallDir, `${h.registry}/bench/pacing-rate-${RATE_MB}mb:v1`);
      const ceilings: Array<[string, string[]]> = [
        ['no ceiling', PACING_OFF],
        ...MAX_WRITE_RATES.map((r): [string, string[]] => [
          `--max-write-rate=${r}`,
          [...PACING_OFF, `--max-write-rate=${r}`],
        ]),
      ];
      for (const [label, args] of ceilings)
        ceiling[label] = await controllerPhase(
          h,
          `small-${label.replace(/[^a-z0-9]+/g, '-')}`,
          sa.file,
          small.ref,
          args,
          { other: other.api },
        );
      await rm(smallDir, { recursive: true, force: true });
    }

    if (PARTS.has('curve')) {
      const settings: Array<[string, string[]]> = [['off', PACING_OFF], ...pacingOn];
      for (const [label, args] of settings)
        curve[aloneLabel(label)] = await controllerPhase(h, label, sa.file, ref, args, {
          other: other.api,
        });
      await applyFlowSchema(h);
      try {
        for (const [label, args] of settings) {
          curve[`${aloneLabel(label)}, FlowSchema`] = await controllerPhase(
            h,
            `${label}-fs`,
            sa.file,
            ref,
            args,
            { other: other.api },
          );
        }
      } finally {
        kubectl(h, [
          'delete',
          '--ignore-not-found',
          '-k',
          path.join(h.root, 'config', 'flowcontrol'),
        ]);
      }
    }
  } finally {
    other.api.close();
  }
  // Each watching raw loop's rate (BENCH_PACING_RAW_WATCH): raw32mw..., raw32mp....
  const watchingRaw: Record<string, number | number[]> = {};
  for (const [suffix, raw] of rawWatchRounds) {
    watchingRaw[`raw32m${suffix}WritesPerSecond`] = median(raw);
    watchingRaw[`raw32m${suffix}Rounds`] = raw;
  }
  return {
    sizeMB: h.sizeMB,
    otherClientRatePerSecond: OTHER_RATE,
    priorityLevel: PRIORITY_LEVEL,
    raw32mWritesPerSecond: rawRate,
    ...(aloneCpus !== undefined && { aloneCpus }),
    ...(ROUNDS > 1 && { raw32mRounds: rawRounds }),
    ...(rawCpu.length > 0 && { raw32mCpuMsPerObject: rawCpu }),
    ...watchingRaw,
    alone,
    withOtherClient: curve,
    freshness,
    ceiling: { sizeMB: RATE_MB, ...ceiling },
  };
}

/** The scenario's numbers as a markdown table (printed by bench/run.ts). */
export function pacingMarkdown(p: Record<string, unknown>): string {
  type Phase = SyncNumbers & {
    otherClient?: OtherClient;
    ratioToRaw32m?: number;
    rounds?: number[];
    roundRatios?: number[];
    speedNormalizedRoundRatios?: number[];
  };
  const alone = p.alone as Record<string, Phase>;
  const split = typeof p.aloneCpus === 'object' ? (p.aloneCpus as AloneCpus) : undefined;
  const curve = p.withOtherClient as Record<string, Phase>;
  const lines = [
    `Pacing, ${String(p.sizeMB)} MB; raw-32m ${String(p.raw32mWritesPerSecond)} writes/s${Array.isArray(p.raw32mRounds) ? ` (median of rounds ${p.raw32mRounds.join(', ')})` : ''}${split ? ` (alone: control plane on CPUs ${split.plane}, clients on ${split.clients})` : ''}; other client ${String(p.otherClientRatePerSecond)} requests/s.`,
    '',
    '| phase | writes/s | ÷ raw-32m | sync s (write s) | window at end | decreases (latency / throttled) | other GET p99 ms idle → during (×) | other LIST p99 ms idle → during (×) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const row = (name: string, x: Phase) => {
    const o = x.otherClient;
    const v = (q?: { idleMs: number; duringMs: number; ratio: number }) =>
      q ? `${q.idleMs} → ${q.duringMs} (${q.ratio})` : '';
    lines.push(
      `| ${name} | ${x.writesPerSecond}${x.rounds ? ` (rounds ${x.rounds.join(', ')})` : ''} | ${x.ratioToRaw32m ?? r2(x.writesPerSecond / Number(p.raw32mWritesPerSecond))}${x.roundRatios ? ` (rounds ${x.roundRatios.join(', ')}${x.speedNormalizedRoundRatios ? `; speed-normalized ${x.speedNormalizedRoundRatios.join(', ')}` : ''})` : ''} | ${x.seconds} (${x.writeSeconds}) | ${x.windowAtEnd} | ${x.windowDecreases.latency} / ${x.windowDecreases.throttled} | ${v(o?.get)} | ${v(o?.list)} |`,
    );
  };
  for (const [k, x] of Object.entries(alone)) row(`alone, ${k}`, x);
  for (const [k, x] of Object.entries(curve)) row(`other client, ${k}`, x);
  const { sizeMB: ceilingMB, ...ceiling } = (p.ceiling ?? {}) as { sizeMB?: number } & Record<
    string,
    Phase
  >;
  for (const [k, x] of Object.entries(ceiling))
    row(`other client, ${ceilingMB ?? '?'} MB, pacing off, ${k}`, x);
  const freshness = p.freshness as FreshnessPoint[] | undefined;
  if (freshness?.length) lines.push('', freshnessMarkdown(freshness));
  return lines.join('\n');
}
