// Calls functions of a module in a worker thread, so that a test of work that could go
// quadratic on hostile input fails by mocha's timeout (the main thread stays free to notice it)
// instead of holding the whole run for as long as the work takes. Stop the worker after the test
// (`stop`), whether it answered or not.
import { Worker } from 'node:worker_threads';

/** A call: the name of a function the module exports, then its arguments. */
export type Call = [name: string, ...args: unknown[]];

export interface OffThreadCalls {
  /** The calls' results in order (structured-cloned), or the first error's message. */
  results: Promise<unknown[]>;
  /** Terminates the worker. */
  stop(): Promise<void>;
}

/** Makes the calls, one after the other, on the module at `module` (a file URL) in a worker. */
export function callOffThread(module: URL, calls: Call[]): OffThreadCalls {
  const worker = new Worker(new URL('./off-thread-worker.ts', import.meta.url), {
    workerData: { module: module.href, calls },
  });
  const results = new Promise<unknown[]>((resolve, reject) => {
    worker.once('message', (m: { results?: unknown[]; error?: string }) => {
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve(m.results ?? []);
    });
    worker.once('error', reject);
  });
  return {
    results,
    stop: async () => {
      await worker.terminate();
    },
  };
}
