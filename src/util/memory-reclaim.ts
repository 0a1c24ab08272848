// Gives the memory a burst of work left behind (a sync, many /all readers) back to the system
// once the process is quiet again.
//
// V8 keeps the pages its collections free in a pool for reuse and releases them only in a
// memory-reducing collection, which its memory reducer starts only when it judges the allocation
// rate low: an idle controller's watches and timers keep that rate "high", and the pool stayed
// resident indefinitely (after both bench catalogs about 27 MB, the largest part of the settled
// RSS above the live heap; docs/deploy.md "Where the memory goes"). One last-resort collection
// (full collections that shrink the heap and release the pool) after a busy period, once a
// period is quiet, returns it. It costs tens of milliseconds of CPU per burst and runs only
// while the process is idle, so it slows no sync and no request.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Clock } from './clock.js';
import { pollEvery } from './clock.js';

/** What the reclaimer reads and does; injected so that tests drive it. */
export interface MemoryReclaimDeps {
  clock: Pick<Clock, 'setTimer'>;
  /** CPU seconds (user + system) the process has used so far. */
  cpuSeconds(): number;
  /** The process's resident set size in bytes. */
  rss(): number;
  /** Releases what the heap does not need (reclaimingGc()). */
  reclaim(): void;
  /** Told after each reclaim: RSS before and after. */
  reclaimed?(before: number, after: number): void;
}

export interface MemoryReclaimOptions {
  /** How often the process is judged busy or quiet. */
  intervalMs: number;
  /** A period whose CPU time is above this fraction of its length is busy (default 0.05). */
  busyCpuFraction?: number;
  /**
   * After a busy period, the first quiet one reclaims when RSS is at least this much above what
   * the last reclaim left (default 4 MiB): a small burst is not worth a full collection.
   */
  minGrowthBytes?: number;
}

/**
 * Checks every `intervalMs`; after one or more busy periods, the first quiet period with RSS
 * grown by `minGrowthBytes` since the last reclaim runs `reclaim` once. Returns the stop function.
 */
export function startMemoryReclaim(
  deps: MemoryReclaimDeps,
  opts: MemoryReclaimOptions,
): () => void {
  const busyCpuSeconds = ((opts.busyCpuFraction ?? 0.05) * opts.intervalMs) / 1000;
  const minGrowth = opts.minGrowthBytes ?? 4 * 1024 * 1024;
  let lastCpu = deps.cpuSeconds();
  let baseline = deps.rss();
  let busySince = false;
  return pollEvery(
    deps.clock,
    opts.intervalMs,
    async () => {
      const cpu = deps.cpuSeconds();
      const busy = cpu - lastCpu > busyCpuSeconds;
      lastCpu = cpu;
      if (busy) {
        busySince = true;
        return;
      }
      if (!busySince) return;
      busySince = false;
      const before = deps.rss();
      if (before - baseline < minGrowth) return;
      deps.reclaim();
      baseline = deps.rss();
      // The collection's own CPU is not the next period's work.
      lastCpu = deps.cpuSeconds();
      deps.reclaimed?.(before, baseline);
    },
    () => undefined,
  );
}

type GcFunction = (opts: { type: 'major' | 'minor'; flavor?: 'regular' | 'last-resort' }) => void;
let gcFunction: GcFunction | undefined;

/**
 * V8's `gc`. V8 exposes it only with --expose-gc; setting that flag at run time installs `gc` in
 * contexts created afterwards, so one new context yields it without the flag on the command line.
 */
export function exposedGc(): GcFunction {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as GcFunction;
  }
  return gcFunction;
}

/**
 * A last-resort collection: V8's full collections with memory reduction, which also release
 * the pooled pages and shrink the young generation.
 */
export function reclaimingGc(): void {
  exposedGc()({ type: 'major', flavor: 'last-resort' });
}
