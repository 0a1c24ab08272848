// What an idle controller costs (issue 39 point 5; docs/runtime.md "Idle"): the built controller
// with the Deployment's NODE_OPTIONS and MALLOC_ARENA_MAX, on the running local cluster
// (`make cluster-up`; $CATALOGD_LOCAL or .local), without and with leader election, each for
// --seconds after --settle seconds: CPU seconds per minute, and the main thread's wakeups
// (voluntary context switches) per minute, from /proc. It serves whatever ClusterCatalogs the
// cluster has (none on a fresh cluster).
//
//   npx tsx bench/idle-cpu.ts [--seconds 120] [--settle 20] [--flags "--memory-reclaim-interval=10s"]
//
// Needs `make build`. Prints JSON.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { readEnvFile } from './lib/cluster.js';
import { ROOT, round } from './lib/config.js';
import { procCpuSeconds, startController } from './lib/controller-process.js';

/** Voluntary context switches of the process's main thread (its wakeups from epoll). */
function mainThreadWakeups(pid: number): number {
  const m = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(
    readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'),
  );
  return Number(m?.[1] ?? 0);
}

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    settle: { type: 'string', default: '20' },
    /** Extra controller flags, space-separated (e.g. `--memory-reclaim-interval=10s`). */
    flags: { type: 'string', default: '' },
  },
});
const extra = values.flags.split(' ').filter(Boolean);
const seconds = Number(values.seconds);
const local = path.resolve(process.env.CATALOGD_LOCAL ?? path.join(ROOT, '.local'));
const kubeconfig = readEnvFile(path.join(local, 'env')).KUBECONFIG!;
const configs: Record<string, string[]> = {
  noLeaderElection: ['--no-leader-elect'],
  leaderElection: [
    '--leader-election-namespace=default',
    `--leader-election-id=idle-cpu-${process.pid}`,
  ],
};
const results: Record<string, unknown> = {};
for (const [name, flags] of Object.entries(configs)) {
  const c = await startController(kubeconfig, path.join(local, 'logs'), [...flags, ...extra]);
  try {
    await delay(Number(values.settle) * 1000);
    const [cpu0, wake0] = [procCpuSeconds(c.pid), mainThreadWakeups(c.pid)];
    await delay(seconds * 1000);
    const [cpu1, wake1] = [procCpuSeconds(c.pid), mainThreadWakeups(c.pid)];
    results[name] = {
      cpuSecondsPerMinute: round(((cpu1 - cpu0) * 60) / seconds, 3),
      mainThreadWakeupsPerMinute: Math.round(((wake1 - wake0) * 60) / seconds),
    };
  } finally {
    await c.stop();
  }
}
process.stdout.write(`${JSON.stringify({ seconds, flags: extra, results }, null, 2)}\n`);
