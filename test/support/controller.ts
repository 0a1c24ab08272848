// Runs the real `catalogd controller` as a child process against the local control plane, on
// free loopback ports with its own cache directory, and stops it by PID.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './cluster.js';
import { deployedEnv } from './deployment.js';
import { uniqueName } from './names.js';
import { pollUntil } from './poll.js';
import { freePort } from './ports.js';

export interface RunningController {
  pid: number;
  /** http://…/metrics, or https://… when the controller serves secure metrics. */
  metricsUrl: string;
  healthUrl: string;
  serverUrl: string;
  cacheDir: string;
  logFile: string;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Whether the process is still running (not exited, not killed). */
  alive(): boolean;
  /** The process's peak resident set size so far (VmHWM of /proc/<pid>/status), in bytes. */
  peakRssBytes(): Promise<number>;
  /**
   * A Prometheus sample's value (sum over label sets matching `labels`), 0 when absent; plain
   * HTTP metrics only (no --tls-cert-file, or --no-metrics-secure).
   */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

export interface StartControllerOptions {
  args?: string[];
  cacheDir?: string;
  /** Lease name; a unique one by default so tests do not share leadership. */
  leaseId?: string;
  /** Extra options for node itself, e.g. DEPLOYMENT_HEAP_OPTIONS. */
  nodeOptions?: string[];
  /** The source tree whose src/cmd/catalogd.ts runs (default this one): another revision's. */
  sourceRoot?: string;
  /**
   * Run the compiled dist/src/cmd/catalogd.js, as the image does (`make build` first), instead
   * of the sources through tsx, whose loader adds to the resident set (for RSS measurements).
   */
  built?: boolean;
  /** Environment variables added to this process's for the controller (e.g. MALLOC_ARENA_MAX). */
  env?: Record<string, string>;
}

/** The heap options config/manager/deployment.yaml runs the controller with (NODE_OPTIONS). */
export const DEPLOYMENT_HEAP_OPTIONS = (deployedEnv('NODE_OPTIONS') ?? '')
  .split(' ')
  .filter(Boolean);

/** client-go's leader election periods, for tests that fail over. */
const FAST_LEADER_ELECTION = [
  '--leader-elect-lease-duration=15s',
  '--leader-elect-renew-deadline=10s',
  '--leader-elect-retry-period=2s',
];

/**
 * Starts a controller on free ports (test/support/ports.ts). A port found free can still be taken
 * by another listener before the controller binds it: a start that fails with EADDRINUSE
 * ("address already in use") is tried again on new ports.
 */
export async function startController(
  opts: StartControllerOptions = {},
): Promise<RunningController> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(opts);
    } catch (err) {
      if (!(err instanceof PortTakenError) || attempt >= 3) throw err;
    }
  }
}

class PortTakenError extends Error {}

async function startOnFreePorts(opts: StartControllerOptions): Promise<RunningController> {
  const [metricsPort, healthPort, serverPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const cacheDir = opts.cacheDir ?? (await mkdtemp(path.join(os.tmpdir(), 'catalogd-e2e-')));
  const logDir = path.join(repoRoot, '.local', 'logs');
  await mkdir(logDir, { recursive: true });
  const logFile = path.join(logDir, `${uniqueName('controller')}.log`);
  const out = createWriteStream(logFile);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(opts.nodeOptions ?? []),
      ...(opts.built
        ? [path.join(opts.sourceRoot ?? repoRoot, 'dist', 'src', 'cmd', 'catalogd.js')]
        : ['--import', 'tsx', path.join(opts.sourceRoot ?? repoRoot, 'src', 'cmd', 'catalogd.ts')]),
      'controller',
      `--kubeconfig=${process.env.KUBECONFIG ?? ''}`,
      `--metrics-addr=127.0.0.1:${metricsPort}`,
      `--health-addr=127.0.0.1:${healthPort}`,
      `--server-addr=127.0.0.1:${serverPort}`,
      `--cache-dir=${cacheDir}`,
      `--leader-election-namespace=default`,
      `--leader-election-id=${opts.leaseId ?? uniqueName('lease')}`,
      // client-go's periods rather than the default (upstream catalogd's 137/107/26 s): the
      // failover and fault tests take over, and lose leadership, within seconds. Not for another
      // source tree (bench/serving-timing.ts's base), which may predate these flags.
      ...(opts.sourceRoot === undefined ? FAST_LEADER_ELECTION : []),
      ...(opts.args ?? []),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } },
  );
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // With a serving certificate /metrics is HTTPS behind authentication (--metrics-secure, its
  // default then): metric() cannot read it (test/e2e/metrics-auth.test.ts reads it with a token).
  const args = opts.args ?? [];
  const secureMetrics =
    args.some((a) => a.startsWith('--tls-cert-file')) && !args.includes('--no-metrics-secure');
  const metricsUrl = `${secureMetrics ? 'https' : 'http'}://127.0.0.1:${metricsPort}/metrics`;
  const healthUrl = `http://127.0.0.1:${healthPort}`;
  const running: RunningController = {
    pid: child.pid ?? -1,
    metricsUrl,
    healthUrl,
    serverUrl: `http://127.0.0.1:${serverPort}`,
    cacheDir,
    logFile,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      if (!opts.cacheDir) await rm(cacheDir, { recursive: true, force: true });
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    async peakRssBytes() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      if (kb === undefined) throw new Error(`no VmHWM in /proc/${child.pid}/status`);
      return Number(kb) * 1024;
    },
    metric: (name, labels = {}) => metricSum(metricsUrl, name, labels),
  };
  await pollUntil(
    async () => {
      if (child.exitCode !== null)
        throw new Error(`controller exited with ${child.exitCode}; log: ${logFile}`);
      return (await fetch(`${healthUrl}/readyz`)).ok;
    },
    { timeoutMs: 60_000, what: `the controller to be ready (log: ${logFile})` },
  ).catch(async (err: unknown) => {
    await running.stop('SIGKILL');
    const log = await readFile(logFile, 'utf8').catch(() => '');
    // The controller says EADDRINUSE in its own words (src/cmd/listen-failure.ts): "cannot listen
    // on 127.0.0.1:N for --health-addr: address already in use".
    if (/EADDRINUSE|address already in use/.test(log))
      throw new PortTakenError(`a port was taken: ${logFile}`, { cause: err });
    throw err;
  });
  return running;
}

/** The sum of a metric's samples whose labels include `labels`, scraped from `metricsUrl`. */
export async function metricSum(
  metricsUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const res = await fetch(metricsUrl);
  // A refused scrape is an error, not a metric of 0.
  if (!res.ok) throw new Error(`GET ${metricsUrl}: ${res.status} ${await res.text()}`);
  return metricSumIn(await res.text(), name, labels);
}

/** The sum of a metric's samples whose labels include `labels`, in a scraped metrics text. */
export function metricSumIn(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const lbls = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => lbls.includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

/** Current and peak RSS of a process from /proc (VmRSS, VmHWM), in bytes; undefined if gone. */
export function procStatus(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}
