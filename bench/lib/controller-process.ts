// The controller under test as a process: started as deployed, its metrics read, its RSS and
// CPU sampled while it syncs.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { metricSum, procStatus } from '../../test/support/controller.js';
import { freePort } from '../../test/support/ports.js';
import type { PlaneCpu } from './cluster.js';
import { controlPlaneCpu, planeDelta } from './cluster.js';
import { MALLOC_ENV, NODE_OPTIONS, ROOT } from './config.js';

// ---------- the controller under test (built, as deployed) ----------

export interface Controller {
  pid: number;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** Its whole /metrics text, for reading several metrics of one moment ('' if it has none). */
  scrape(): Promise<string>;
  stop(): Promise<void>;
  logFile: string;
}

/** CPU seconds (user + system) a process has used: /proc/<pid>/stat, in clock ticks of 1/100 s. */
export function procCpuSeconds(pid: number): number {
  try {
    // The fields after the command name, which is in parentheses and may hold spaces.
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of one thread or group of threads, user and system apart. */
export interface ThreadCpu {
  user: number;
  system: number;
}

/**
 * CPU seconds by thread of a process, from /proc/<pid>/task: the main thread as `main`, the
 * others by their name, those of one name summed (V8's GC and compiler helpers, libuv's pool).
 * A CPU profile sees only the main thread; this sees where the rest goes.
 */
export function procThreadCpu(pid: number): Record<string, ThreadCpu> {
  const out: Record<string, ThreadCpu> = {};
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const open = stat.indexOf('(');
      const close = stat.lastIndexOf(')');
      const name = tid === String(pid) ? 'main' : stat.slice(open + 1, close).trim();
      const f = stat.slice(close + 2).split(' ');
      const t = (out[name] ??= { user: 0, system: 0 });
      t.user += Number(f[11]) / 100;
      t.system += Number(f[12]) / 100;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** What each thread group used between two procThreadCpu readings, in ms per `per`. */
export function threadCpuMsPer(
  before: Record<string, ThreadCpu>,
  after: Record<string, ThreadCpu>,
  per: number,
): Record<string, ThreadCpu> {
  const ms = (x: number) => Number(((x * 1000) / per).toFixed(3));
  const out: Record<string, ThreadCpu> = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { user: 0, system: 0 };
    if (a.user - b.user + (a.system - b.system) <= 0) continue;
    out[name] = { user: ms(a.user - b.user), system: ms(a.system - b.system) };
  }
  return out;
}

/** Controllers started and not yet stopped: stopped on the way out, whatever failed. */
export const running = new Set<Controller>();

/** Starts the built controller; `flags` replace the default `--no-leader-elect`. */
export async function startController(
  kubeconfig: string,
  logDir: string,
  flags: string[] = ['--no-leader-elect'],
  /** NODE_OPTIONS of this controller instead of the Deployment's (a heap setting compared). */
  nodeOptions = NODE_OPTIONS,
): Promise<Controller> {
  const [metricsPort, healthPort, serverPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'catalogd-bench-cache-'));
  const logFile = path.join(logDir, `controller-${Date.now()}.log`);
  const out = createWriteStream(logFile);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(ROOT, 'dist', 'src', 'cmd', 'catalogd.js'),
      'controller',
      `--kubeconfig=${kubeconfig}`,
      ...flags,
      `--metrics-addr=127.0.0.1:${metricsPort}`,
      `--health-addr=127.0.0.1:${healthPort}`,
      `--server-addr=127.0.0.1:${serverPort}`,
      `--cache-dir=${cacheDir}`,
      '--log-level=warn',
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NODE_OPTIONS: nodeOptions,
        ...MALLOC_ENV,
      },
    },
  );
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  return supervise(child, {
    what: 'controller',
    logFile,
    cacheDir,
    readyUrl: `http://127.0.0.1:${healthPort}/readyz`,
    metric: (name, labels = {}) => metricSum(metricsUrl, name, labels),
    scrape: async () => (await fetch(metricsUrl)).text(),
  });
}

/**
 * A started controller process (ours or upstream's) as a Controller, in `running` until
 * stopped: stop() sends SIGTERM (SIGKILL after 20 s) and removes its cache directory. Resolves
 * once `readyUrl` answers 2xx (at most 60 s; the process stopped otherwise).
 */
export async function supervise(
  child: ChildProcess,
  o: {
    what: string;
    logFile: string;
    cacheDir: string;
    readyUrl: string;
    metric: Controller['metric'];
    scrape: Controller['scrape'];
  },
): Promise<Controller> {
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const c: Controller = {
    pid: child.pid ?? -1,
    logFile: o.logFile,
    metric: o.metric,
    scrape: o.scrape,
    async stop() {
      running.delete(c);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(t);
      }
      await rm(o.cacheDir, { recursive: true, force: true });
    },
  };
  running.add(c);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${o.what} exited; log: ${o.logFile}`);
    const ok = await fetch(o.readyUrl)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await c.stop();
      throw new Error(`${o.what} not ready in 60 s; log: ${o.logFile}`);
    }
    await delay(200);
  }
  return c;
}

/**
 * Samples the controller's VmRSS every 100 ms (stop() adds VmHWM at the time of the call), and
 * its and the control plane's CPU seconds, so that the CPU of a phase can be read afterwards.
 */
export function processSampler(pid: number) {
  type Sample = [at: number, controller: number, controlPlane: PlaneCpu];
  const sample = (): Sample => [performance.now(), procCpuSeconds(pid), controlPlaneCpu()];
  const cpu: Sample[] = [sample()];
  const rss: Array<[at: number, bytes: number]> = [];
  const timer = setInterval(() => {
    const s = procStatus(pid);
    if (s) rss.push([performance.now(), s.rss]);
    cpu.push(sample());
  }, 100);
  return {
    /** The highest sampled VmRSS from `from` (inclusive) to `to` (exclusive). */
    peakBetween(from: number, to: number): number {
      let p = 0;
      for (const [at, bytes] of rss) if (at >= from && at < to) p = Math.max(p, bytes);
      return p;
    },
    /**
     * CPU seconds used by the controller and by the control plane from the last sample at or
     * before `from` to the first at or after `to`.
     */
    cpuBetween(from: number, to: number): { controller: number; controlPlane: PlaneCpu } {
      const start = cpu.findLast(([at]) => at <= from) ?? cpu[0]!;
      const end = cpu.find(([at]) => at >= to) ?? sample();
      return { controller: end[1] - start[1], controlPlane: planeDelta(start[2], end[2]) };
    },
    stop(): { sampledPeak: number; hwm: number } {
      clearInterval(timer);
      const hwm = procStatus(pid)?.hwm ?? 0;
      return { sampledPeak: this.peakBetween(-Infinity, Infinity), hwm };
    },
  };
}
