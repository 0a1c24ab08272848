// Write pacing: how many CatalogMetadata writes a sync keeps in flight, adapted to what the
// apiserver answers (AIMD, as TCP does with its congestion window). A fixed number cannot be both
// fast on an idle cluster and gentle to other clients on a busy one (docs/deploy.md, "Write
// pacing"). The apiserver says it is busy in three ways, all seen in the answers to our writes:
//   - latency: its work queues (the CPU, etcd's commits, API Priority and Fairness queueing a
//     request before it runs) show as our requests taking longer than when it was idle;
//   - 429 Too Many Requests (APF rejected the request; Retry-After says when to come back);
//   - 5xx overload answers (503, 504).
// The window grows by one per round (a window's worth of answers) while the round's median
// latency stays within `latencyTolerance` × the baseline, and shrinks by `latencyBackoff` when it
// rises beyond, or by half on a 429 or overload answer. The baseline is the lowest round median
// of the last minutes: what a write costs when the apiserver is not queueing it. Pure: time is
// read from the injected clock, nothing here waits.
import type { WriteResponse } from './writer-port.js';

export interface WritePacingOptions {
  /** The window's floor and ceiling (--min-write-concurrency, --write-concurrency). */
  min: number;
  max: number;
  clock: { now(): number };
  /** Pacing off: the window stays at `max` whatever the answers say. */
  fixed?: boolean;
  /** The round's median latency above baseline × this is queueing (default 2.5). */
  latencyTolerance?: number;
  /** The factor applied to the window when latency rises (default 0.75). */
  latencyBackoff?: number;
  /** How far back the baseline looks (default 5 min: longer than most cold syncs). */
  baselineWindowMs?: number;
  /** Called on every decrease that shrinks the window (a metric counts them). */
  onDecrease?: (reason: DecreaseReason) => void;
}

export type DecreaseReason = 'latency' | 'throttled';

export const DEFAULT_LATENCY_TOLERANCE = 2.5;
export const DEFAULT_LATENCY_BACKOFF = 0.75;
/**
 * A round has at least this many answers: its median is not one lucky answer, even at a window
 * of 1.
 */
const MIN_ROUND = 4;
/**
 * No answer for this long: the next writes start from the floor again (TCP's restart after idle),
 * since the window says nothing about an apiserver not heard from.
 */
export const IDLE_RESTART_MS = 10_000;

/**
 * The lowest round median of the last `windowMs` (a sliding-window minimum: a deque of rising
 * medians, each kept only while no later one is lower, so it stays small). The rounds at a small
 * window, before our own load queues anything (a sync's first rounds, those after a decrease),
 * set it; a median, not one answer, so a lucky answer does not.
 */
export class LatencyBaseline {
  #rounds: Array<{ at: number; ms: number }> = [];
  readonly #windowMs: number;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  add(medianMs: number, now: number): void {
    while (this.#rounds.length > 0 && this.#rounds.at(-1)!.ms >= medianMs) this.#rounds.pop();
    this.#rounds.push({ at: now, ms: medianMs });
    this.#expire(now);
  }

  /** The baseline in milliseconds; undefined before the first round (or after a reset). */
  value(now: number): number | undefined {
    this.#expire(now);
    return this.#rounds[0]?.ms;
  }

  reset(): void {
    this.#rounds = [];
  }

  #expire(now: number): void {
    while (this.#rounds.length > 0 && now - this.#rounds[0]!.at > this.#windowMs)
      this.#rounds.shift();
  }
}

/** An answer that says the apiserver is shedding load: slow down at once. */
export function isThrottled(status: number): boolean {
  return status === 429 || status === 503 || status === 504;
}

/** The adaptive window of writes in flight; the sync reads `window` before starting a write. */
export class WritePacing {
  readonly min: number;
  readonly max: number;
  readonly #clock: { now(): number };
  readonly #fixed: boolean;
  readonly #tolerance: number;
  readonly #backoff: number;
  readonly #baseline: LatencyBaseline;
  /** Fractional while growing; `window` is its floor. */
  #window: number;
  /** Doubling per round until the first decrease (TCP's slow start), then +1 per round. */
  #slowStart = true;
  /** Answers to requests sent after this time count toward the round (not those before a change). */
  #changedAt: number;
  #round: number[] = [];
  #priorityLevel: string | undefined;
  #lastAnswerAt: number | undefined;
  readonly #onDecrease: (reason: DecreaseReason) => void;

  constructor(opts: WritePacingOptions) {
    this.max = Math.max(1, Math.floor(opts.max));
    this.min = Math.max(1, Math.min(this.max, Math.floor(opts.min)));
    this.#clock = opts.clock;
    this.#fixed = opts.fixed ?? false;
    this.#tolerance = opts.latencyTolerance ?? DEFAULT_LATENCY_TOLERANCE;
    this.#backoff = opts.latencyBackoff ?? DEFAULT_LATENCY_BACKOFF;
    this.#baseline = new LatencyBaseline(opts.baselineWindowMs ?? 300_000);
    this.#onDecrease = opts.onDecrease ?? (() => {});
    this.#window = this.#fixed ? this.max : this.min;
    this.#changedAt = this.#clock.now();
  }

  /** Writes that may be in flight now. */
  get window(): number {
    return Math.floor(this.#window);
  }

  /** The baseline latency in milliseconds, when known (for metrics and logs). */
  get baselineMs(): number | undefined {
    return this.#baseline.value(this.#clock.now());
  }

  observe(r: WriteResponse): void {
    if (this.#fixed) return;
    const now = this.#clock.now();
    if (this.#lastAnswerAt !== undefined && now - this.#lastAnswerAt > IDLE_RESTART_MS) {
      this.#slowStart = true;
      this.#round = [];
      this.#set(this.min, now - r.latencyMs);
    }
    this.#lastAnswerAt = now;
    if (r.priorityLevel !== undefined && r.priorityLevel !== this.#priorityLevel) {
      if (this.#priorityLevel !== undefined) this.#baseline.reset();
      this.#priorityLevel = r.priorityLevel;
    }
    const sentAt = now - r.latencyMs;
    if (isThrottled(r.status)) {
      if (sentAt >= this.#changedAt) this.#decrease(0.5, 'throttled', now);
      return;
    }
    if (r.status === 0) return; // no answer: says nothing about the apiserver's queues
    if (sentAt < this.#changedAt) return; // sent under the previous window
    this.#round.push(r.latencyMs);
    if (this.#round.length >= Math.max(MIN_ROUND, this.window)) this.#endRound(now);
  }

  #endRound(now: number): void {
    const sorted = this.#round.sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    this.#round = [];
    this.#baseline.add(median, now);
    const baseline = this.#baseline.value(now)!;
    if (median > baseline * this.#tolerance) {
      this.#decrease(this.#backoff, 'latency', now);
      return;
    }
    const grown = this.#slowStart ? this.#window * 2 : this.#window + 1;
    this.#set(Math.min(this.max, grown), now);
  }

  #decrease(factor: number, reason: DecreaseReason, now: number): void {
    this.#slowStart = false;
    this.#round = [];
    const next = Math.max(this.min, Math.floor(this.#window * factor));
    // Counted when it bites: at the floor, a decrease changes nothing.
    if (next < this.window) this.#onDecrease(reason);
    this.#set(next, now);
  }

  #set(window: number, now: number): void {
    if (Math.floor(window) !== this.window) this.#changedAt = now;
    this.#window = window;
  }
}
