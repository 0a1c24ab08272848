// Graceful shutdown: one AbortSignal for the whole process, aborted on the first SIGTERM or
// SIGINT, then shutdown hooks run last-registered-first (like defers: what started last
// stops first) within one overall deadline. A second signal exits at once, as
// controller-runtime's signal handler does.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';

/** Runs during shutdown; signal aborts when the deadline passes. */
export type ShutdownHook = (signal: AbortSignal) => Promise<void> | void;

export interface ShutdownReport {
  reason: string;
  /** Hooks that returned, in the order they ran. */
  completed: string[];
  /** Hooks that threw, with their errors. */
  failed: Array<{ name: string; error: unknown }>;
  /** Hooks that were still running at the deadline or never started because of it. */
  timedOut: string[];
  /** 0 when every hook completed, 1 otherwise. */
  exitCode: number;
}

/** The part of `process` the signal handlers need; injected so tests send fake signals. */
export interface SignalSource {
  on(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  off(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  exit(code: number): void;
}

export interface GracefulShutdownOptions {
  /** Overall deadline for all hooks (default 25 s: under Kubernetes' 30 s grace period). */
  timeoutMs?: number;
  clock?: Clock;
}

/** The abort reason of the process-wide signal. */
export class ShutdownRequested extends Error {
  constructor(readonly reason: string) {
    super(`shutdown requested: ${reason}`);
    this.name = 'ShutdownRequested';
  }
}

export class GracefulShutdown {
  readonly #controller = new AbortController();
  readonly #hooks: Array<{ name: string; hook: ShutdownHook }> = [];
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  #running: Promise<ShutdownReport> | undefined;

  constructor(opts: GracefulShutdownOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 25_000;
    this.#clock = opts.clock ?? realClock;
  }

  /** Aborts when shutdown begins; pass it to every long-running component. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Registers a hook; hooks run in reverse registration order. Returns an unregister function. */
  onShutdown(name: string, hook: ShutdownHook): () => void {
    const entry = { name, hook };
    this.#hooks.push(entry);
    return () => {
      const i = this.#hooks.indexOf(entry);
      if (i >= 0) this.#hooks.splice(i, 1);
    };
  }

  /**
   * Waits for `work` (the process's main loop, which ends when the signal aborts), then for the
   * shutdown it is part of (begun by a signal, or now): the exit code once every hook has run.
   * A process that exits when its main loop ends would exit under the hooks still running.
   */
  async exitCodeAfter(work: Promise<unknown>, reason = 'the work ended'): Promise<number> {
    await work;
    return (await this.shutdown(reason)).exitCode;
  }

  /** Begins shutdown (idempotent: later calls return the first call's report). */
  shutdown(reason = 'requested'): Promise<ShutdownReport> {
    this.#running ??= this.#run(reason);
    return this.#running;
  }

  /**
   * The first SIGTERM/SIGINT starts shutdown and exits with the report's code when it is
   * done; a second one exits with 1 at once. Returns a function that removes the handlers.
   */
  installSignalHandlers(proc: SignalSource = process): () => void {
    let received = false;
    const onSignal = (name: 'SIGTERM' | 'SIGINT') => (): void => {
      if (received) {
        proc.exit(1);
        return;
      }
      received = true;
      void this.shutdown(name).then((report) => proc.exit(report.exitCode));
    };
    const onTerm = onSignal('SIGTERM');
    const onInt = onSignal('SIGINT');
    proc.on('SIGTERM', onTerm);
    proc.on('SIGINT', onInt);
    return () => {
      proc.off('SIGTERM', onTerm);
      proc.off('SIGINT', onInt);
    };
  }

  async #run(reason: string): Promise<ShutdownReport> {
    this.#controller.abort(new ShutdownRequested(reason));
    const report: ShutdownReport = { reason, completed: [], failed: [], timedOut: [], exitCode: 0 };
    const deadline = new AbortController();
    const timer = this.#clock.setTimer(this.#timeoutMs, () =>
      deadline.abort(new Error(`shutdown deadline of ${this.#timeoutMs} ms exceeded`)),
    );
    const expired = new Promise<'expired'>((resolve) => {
      if (deadline.signal.aborted) resolve('expired');
      deadline.signal.addEventListener('abort', () => resolve('expired'), { once: true });
    });
    try {
      const hooks = [...this.#hooks].reverse();
      for (const [i, { name, hook }] of hooks.entries()) {
        if (deadline.signal.aborted) {
          report.timedOut.push(...hooks.slice(i).map((h) => h.name));
          break;
        }
        const outcome = await Promise.race([
          Promise.resolve()
            .then(() => hook(deadline.signal))
            .then(
              () => 'completed' as const,
              (error: unknown) => ({ error }),
            ),
          expired,
        ]);
        if (outcome === 'completed') report.completed.push(name);
        else if (outcome === 'expired') report.timedOut.push(name);
        else report.failed.push({ name, error: outcome.error });
      }
    } finally {
      timer.cancel();
    }
    report.exitCode = report.failed.length === 0 && report.timedOut.length === 0 ? 0 : 1;
    return report;
  }
}
