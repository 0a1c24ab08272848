// The time bound of one pull attempt (resolve, download, unpack, and the caller's parse): one
// AbortSignal that aborts when the attempt's time runs out or its parent signal aborts. The
// parts say what they are doing (doing()), so that the timeout names what was slow, with byte
// counts rather than timings: status messages must not change with the machine's speed.
// A leaf of src/util: the reconcile owns the attempt (it starts it and stops its clock while the
// catalog waits for a write slot); the source and the parse are told what it is doing.
import type { Clock, Timer } from './clock.js';

/** Where a part of the attempt says what it is doing now; `detail` is read only if the time runs out. */
export interface Activity {
  doing(what: string, detail?: () => string): void;
}

export const noActivity: Activity = { doing: () => {} };

/** The reason an attempt's signal aborts with when its time runs out (retryable). */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

export class AttemptDeadline implements Activity {
  readonly #controller = new AbortController();
  readonly #limitMs: number;
  readonly #clock: Pick<Clock, 'setTimer'>;
  readonly #unlink: () => void;
  #remainingMs: number;
  #startedAt: number | undefined;
  #timer: Timer | undefined;
  #what = 'starting';
  #detail: (() => string) | undefined;
  readonly #now: () => number;

  /** Starts running at once; `parent` (shutdown, the catalog changed) aborts it too. */
  constructor(
    limitMs: number,
    clock: Pick<Clock, 'setTimer' | 'now'>,
    parents: (AbortSignal | undefined)[] = [],
  ) {
    this.#limitMs = limitMs;
    this.#remainingMs = limitMs;
    this.#clock = clock;
    this.#now = () => clock.now();
    const live = parents.filter((p): p is AbortSignal => p !== undefined);
    const already = live.find((p) => p.aborted);
    if (already) this.#controller.abort(already.reason);
    const onAbort = (e: Event) => this.#controller.abort((e.target as AbortSignal).reason);
    for (const p of live) p.addEventListener('abort', onAbort, { once: true });
    this.#unlink = () => {
      for (const p of live) p.removeEventListener('abort', onAbort);
    };
    this.resume();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  doing(what: string, detail?: () => string): void {
    this.#what = what;
    this.#detail = detail;
  }

  /** Stops the clock (waiting for a write slot is not the source's time). */
  pause(): void {
    if (this.#startedAt === undefined) return;
    this.#remainingMs -= this.#now() - this.#startedAt;
    this.#startedAt = undefined;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  resume(): void {
    if (this.#startedAt !== undefined || this.signal.aborted) return;
    this.#startedAt = this.#now();
    this.#timer = this.#clock.setTimer(this.#remainingMs, () => this.#expire());
  }

  /** Ends the bound (the attempt finished or failed); the signal no longer aborts. */
  dispose(): void {
    this.pause();
    this.#unlink();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#startedAt = undefined;
    const detail = this.#detail?.();
    this.#controller.abort(
      new DeadlineExceeded(
        `timed out after ${formatDuration(this.#limitMs)} ${this.#what}${detail ? `: ${detail}` : ''}`,
      ),
    );
  }
}

/** A duration as Go prints one (10m0s, 1h0m0s, 15s, 1.5s), the form of the --pull-timeout flag. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
  if (h) return `${h}h${m}m${sec}`;
  if (m) return `${m}m${sec}`;
  return sec;
}

/** Parses a Go-style duration (90s, 10m, 1h30m, 500ms) into milliseconds; undefined if invalid. */
export function parseDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  for (const m of text.matchAll(re)) {
    const n = Number(m[1]);
    total += n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    matched += m[0].length;
  }
  return matched === text.length && matched > 0 ? Math.round(total) : undefined;
}

/** Bytes in decimal units with one decimal (12.3 MB), for progress in messages. */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
