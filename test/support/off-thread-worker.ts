// The worker of callOffThread (off-thread.ts): imports the module, makes the calls, posts their
// results or the first error's message.
import { parentPort, workerData } from 'node:worker_threads';
import type { Call } from './off-thread.js';

const { module, calls } = workerData as { module: string; calls: Call[] };
try {
  const m = (await import(module)) as Record<string, (...args: unknown[]) => unknown>;
  const results: unknown[] = [];
  for (const [name, ...args] of calls) results.push(await m[name]!(...args));
  parentPort!.postMessage({ results });
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
