// Wiring of the memory reclaim (src/util/memory-reclaim.ts): the process's own CPU time and RSS,
// V8's last-resort collection, a debug log line per reclaim.
import type { Logger } from 'pino';
import { realClock } from '../util/clock.js';
import { reclaimingGc, startMemoryReclaim } from '../util/memory-reclaim.js';
import type { MemoryReclaim } from '../util/memory-reclaim.js';

const MiB = 1024 * 1024;

/** Starts reclaiming after activity, checked every `intervalMs` (0: never). */
export function reclaimMemoryWhenQuiet(intervalMs: number, log: Logger): MemoryReclaim {
  if (intervalMs === 0) return { beforeBurst: () => undefined, stop: () => undefined };
  let tookMs = 0;
  return startMemoryReclaim(
    {
      clock: realClock,
      cpuSeconds: () => {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
      },
      rss: () => process.memoryUsage.rss(),
      reclaim: () => {
        const t0 = performance.now();
        reclaimingGc();
        tookMs = Math.round(performance.now() - t0);
      },
      reclaimed: (before, after) =>
        log.debug(
          { rssMiB: Math.round(before / MiB), afterMiB: Math.round(after / MiB), tookMs },
          'memory reclaimed after a busy period',
        ),
    },
    { intervalMs },
  );
}
