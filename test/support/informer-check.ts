// Runs hack/informer-check (a client-go shared informer, built with operator-controller by
// hack/olmv1/build.sh) as a child process and collects the JSON lines it prints: its events,
// the LISTs and watch (re)starts its reflector makes, and its store when it is stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { olmv1BinDir } from './olmv1-check.js';
import { pollUntil } from './poll.js';

export interface InformerLine {
  event:
    | 'LIST'
    | 'WATCH'
    | 'WATCH_END'
    | 'WATCH_ERROR'
    | 'WATCH_EVENT_ERROR'
    | 'ADD'
    | 'UPDATE'
    | 'DELETE'
    | 'SYNCED'
    | 'STORE';
  name?: string;
  resourceVersion?: string;
  contentHash?: string;
  initial?: boolean;
  error?: string;
  items?: number;
  objects?: Record<string, string>;
}

export interface RunningInformer {
  /** Every line printed so far, in order. */
  readonly lines: readonly InformerLine[];
  /** The ADD/UPDATE/DELETE lines after the initial list. */
  events(): InformerLine[];
  /** The store as the events built it: name → content-hash annotation. */
  view(): Map<string, string>;
  /** SIGTERM; resolves with the store the informer printed as it stopped. */
  stop(): Promise<Record<string, string>>;
}

/** Starts informer-check on the served CatalogMetadata with `selector`; resolves once synced. */
export async function startInformer(selector: string): Promise<RunningInformer> {
  const bin = path.join(await olmv1BinDir(), 'informer-check');
  const child: ChildProcess = spawn(bin, ['-selector', selector], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  const lines: InformerLine[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(JSON.parse(l) as InformerLine);
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const running: RunningInformer = {
    lines,
    events: () => lines.filter((l) => ['ADD', 'UPDATE', 'DELETE'].includes(l.event) && !l.initial),
    view: () => {
      const m = new Map<string, string>();
      for (const l of lines) {
        if (l.event === 'DELETE') m.delete(l.name!);
        else if (l.event === 'ADD' || l.event === 'UPDATE') m.set(l.name!, l.contentHash ?? '');
      }
      return m;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      const store = lines.find((l) => l.event === 'STORE');
      if (!store) throw new Error(`informer-check printed no store; stderr: ${stderr}`);
      return store.objects ?? {};
    },
  };
  await pollUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`informer-check exited: ${stderr}`);
      return lines.some((l) => l.event === 'SYNCED');
    },
    { timeoutMs: 60_000, what: 'the informer to sync' },
  ).catch(async (err: unknown) => {
    child.kill('SIGTERM');
    await exited;
    throw err;
  });
  return running;
}
