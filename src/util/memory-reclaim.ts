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
//
// Driven by activity, not by a clock: work allocates, and allocating runs V8's collector, so
// every garbage collection tells the reclaimer the process is working. Only then does it check,
// every interval, until an interval is quiet; an idle process has no timer of it at all. A short
// interval (2 s) gives a burst's memory back within seconds, before the next sync starts from it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Clock, Timer } from './clock.js';
import { onGarbageCollection } from './gc-activity.js';

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
  /**
   * Subscribes `poke` to the process's activity; returns the unsubscribe function. Default:
   * every V8 garbage collection (onGarbageCollection).
   */
  onActivity?(poke: () => void): () => void;
}

export interface MemoryReclaimOptions {
  /** How often the process is judged busy or quiet while it works. */
  intervalMs: number;
  /** A period whose CPU time is above this fraction of its length is busy (default 0.05). */
  busyCpuFraction?: number;
  /**
   * The first quiet period after activity reclaims when RSS is at least this much above what the
   * last reclaim left (default 4 MiB): a small burst is not worth a full collection.
   */
  minGrowthBytes?: number;
}

export interface MemoryReclaim {
  /**
   * Called before a burst of work that starts from whatever the last one left (a new revision's
   * parse): reclaims now when RSS grew by minGrowthBytes since the last reclaim, so a sync that
   * follows another at once does not stack its peak on the previous one's garbage.
   */
  beforeBurst(): void;
  stop(): void;
}

/**
 * After activity, checks every `intervalMs` until a period is quiet; then, when RSS grew by
 * `minGrowthBytes` since the last reclaim, runs `reclaim` once, and waits for activity again.
 */
export function startMemoryReclaim(
  deps: MemoryReclaimDeps,
  opts: MemoryReclaimOptions,
): MemoryReclaim {
  const busyCpuSeconds = ((opts.busyCpuFraction ?? 0.05) * opts.intervalMs) / 1000;
  const minGrowth = opts.minGrowthBytes ?? 4 * 1024 * 1024;
  let baseline = deps.rss();
  let lastCpu = 0;
  let timer: Timer | undefined;
  let stopped = false;
  const check = (): void => {
    timer = undefined;
    if (stopped) return;
    const cpu = deps.cpuSeconds();
    const busy = cpu - lastCpu > busyCpuSeconds;
    lastCpu = cpu;
    if (busy) {
      timer = deps.clock.setTimer(opts.intervalMs, check);
      return;
    }
    reclaimIfGrown();
  };
  const reclaimIfGrown = (): void => {
    const before = deps.rss();
    if (before - baseline < minGrowth) return;
    // Its own collections are reported as activity afterwards: one more check, quiet, with no
    // growth, ends that round.
    deps.reclaim();
    baseline = deps.rss();
    deps.reclaimed?.(before, baseline);
  };
  const poke = (): void => {
    if (stopped || timer !== undefined) return;
    lastCpu = deps.cpuSeconds();
    timer = deps.clock.setTimer(opts.intervalMs, check);
  };
  const unsubscribe = (deps.onActivity ?? onGarbageCollection)(poke);
  return {
    beforeBurst: () => {
      if (!stopped) reclaimIfGrown();
    },
    stop: () => {
      stopped = true;
      unsubscribe();
      timer?.cancel();
      timer = undefined;
    },
  };
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
