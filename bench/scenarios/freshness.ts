// The freshness section of the pacing scenario (bench/scenarios/pacing.ts): why pacing by our own
// write latency cannot spare another client's consistent LISTs, and which write rate does. The
// other client (as in the pacing curve) reads ConfigMaps while the raw client creates
// CatalogMetadata at fixed rates, evenly spaced, as the admin: no controller, no CPU contention to
// speak of at the low rates. A consistent LIST (no resourceVersion) is served from the watch cache
// once that cache has seen etcd's current revision; our writes move that revision, and the
// ConfigMaps cache learns of it only from an etcd progress notification, which the apiserver
// requests at most every 100 ms (k8s.io/apiserver storage/cacher/progress). The apiserver's own
// apiserver_watch_cache_read_wait_seconds for configmaps is reported beside the other client's p99.
import { setTimeout as delay } from 'node:timers/promises';
import type { BenchHooks } from '../control-plane.js';
import { OTHER_CONFIGMAPS, OTHER_NS } from '../control-plane.js';
import type { Api } from '../lib/api.js';
import { CM, METADATA_ONLY } from '../lib/api.js';
import { apiserverMetric } from '../lib/cluster.js';
import { latencyProbe } from '../lib/latency.js';
import { percentile } from '../lib/stats.js';

/** Writes a second of each point ('c32': as fast as 32 in flight go); 0: idle, the baseline. */
const RATES = (process.env.BENCH_FRESHNESS_RATES ?? '0,2,5,8,10,20,100,c32').split(',');
const SECONDS = Number(process.env.BENCH_FRESHNESS_SECONDS ?? '15');

export interface FreshnessPoint {
  rate: string;
  writesPerSecond: number;
  getP99Ms: number;
  listP99Ms: number;
  listP50Ms: number;
  /** The apiserver's mean wait of a consistent read of configmaps for its watch cache, ms. */
  configMapsReadWaitMeanMs: number;
  errors: number;
}

const ms = (s: number) => Number((s * 1000).toFixed(1));

/** Creates from `bodies` (each used once) until stopped: `rate` a second, or 32 in flight. */
function writer(api: Api, bodies: Buffer[], rate: string) {
  let stopped = false;
  let sent = 0;
  let failure: Error | undefined;
  const post = async () => {
    const body = bodies.pop();
    if (body === undefined) return false;
    const r = await api.request('POST', CM, body, 'application/json', METADATA_ONLY);
    if (r.status !== 201) throw new Error(`POST: ${r.status} ${r.body.slice(0, 300)}`);
    sent++;
    return true;
  };
  const loops: Array<Promise<void>> = [];
  if (rate === 'c32') {
    for (let i = 0; i < 32; i++)
      loops.push(
        (async () => {
          while (!stopped && (await post()));
        })(),
      );
  } else if (Number(rate) > 0) {
    const period = 1000 / Number(rate);
    loops.push(
      (async () => {
        let next = performance.now();
        while (!stopped) {
          const wait = next - performance.now();
          if (wait > 0) await delay(wait);
          next += period;
          if (stopped) break;
          // Not awaited: a slow answer does not delay the next slot; a failure ends the point.
          void post().catch((err: unknown) => void (failure ??= err as Error));
        }
      })(),
    );
  }
  return {
    sent: () => sent,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      if (failure) throw failure;
    },
  };
}

/**
 * Each rate of RATES for SECONDS, the other client reading throughout; `bodies` (rendered
 * CatalogMetadata of an existing owner) are used up in order and never rewritten.
 */
export async function measureFreshness(
  h: BenchHooks,
  other: Api,
  otherRate: number,
  bodies: Buffer[],
): Promise<FreshnessPoint[]> {
  const points: FreshnessPoint[] = [];
  const wait = async () => ({
    sum: await apiserverMetric(h.api, 'apiserver_watch_cache_read_wait_seconds_sum', {
      resource: 'configmaps',
    }),
    count: await apiserverMetric(h.api, 'apiserver_watch_cache_read_wait_seconds_count', {
      resource: 'configmaps',
    }),
  });
  const pending = [...bodies].reverse();
  for (const rate of RATES) {
    const w = writer(h.api.withSockets(32), pending, rate);
    await delay(1000);
    const sent0 = w.sent();
    const wait0 = await wait();
    const probe = latencyProbe(other, OTHER_NS, OTHER_CONFIGMAPS, otherRate);
    const t0 = performance.now();
    await delay(SECONDS * 1000);
    const r = await probe.stop();
    const seconds = (performance.now() - t0) / 1000;
    const sent = w.sent() - sent0;
    await w.stop();
    const wait1 = await wait();
    const waits = wait1.count - wait0.count;
    const point: FreshnessPoint = {
      rate,
      writesPerSecond: Math.round(sent / seconds),
      getP99Ms: ms(percentile(r.getSeconds, 0.99)),
      listP99Ms: ms(percentile(r.listSeconds, 0.99)),
      listP50Ms: ms(percentile(r.listSeconds, 0.5)),
      configMapsReadWaitMeanMs: waits > 0 ? ms((wait1.sum - wait0.sum) / waits) : 0,
      errors: r.errors,
    };
    h.log(`pacing, freshness: ${JSON.stringify(point)}`);
    points.push(point);
    if (pending.length === 0) break;
  }
  return points;
}

export function freshnessMarkdown(points: FreshnessPoint[]): string {
  const lines = [
    'Other client vs CatalogMetadata writes at a fixed rate (raw client, evenly spaced):',
    '',
    '| writes/s asked | writes/s | other GET p99 ms | other LIST p50 / p99 ms | configmaps consistent-read wait, mean ms |',
    '|---|---|---|---|---|',
  ];
  for (const p of points)
    lines.push(
      `| ${p.rate} | ${p.writesPerSecond} | ${p.getP99Ms} | ${p.listP50Ms} / ${p.listP99Ms} | ${p.configMapsReadWaitMeanMs} |`,
    );
  return lines.join('\n');
}
