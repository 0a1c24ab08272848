// Lease-based leader election with client-go's semantics (tools/leaderelection):
// - a candidate takes the Lease when it is absent, released (empty holder) or expired;
//   "expired" is judged on this process's clock: leaseDuration after the moment this
//   process last saw the lease record change, never by comparing another node's renewTime
//   with our clock (tolerates clock skew between nodes);
// - the leader renews every retryPeriod; if it cannot renew for renewDeadline it stops
//   leading (its work is aborted) before anyone else may take over (leaseDuration);
// - writes go through the Lease's resourceVersion, so two candidates never both win;
// - on shutdown the leader stops its work, keeps renewing until that work has returned
//   (an in-flight sync finishes or rolls back while we still hold the lease), then
//   releases the lease (empty holder, 1 s duration, as ReleaseOnCancel does) so that a
//   standby takes over at once instead of waiting for expiry.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { Random } from './backoff.js';
import { jitter } from './backoff.js';
import type { Lease, LeaseSpec } from '../../kube/index.js';

// The Lease shapes are the transport's (src/kube); the LeaseClient port below is ours.
export type { Lease, LeaseSpec } from '../../kube/index.js';

/**
 * Access to Leases of one namespace; src/kube/ satisfies it structurally. create fails with an
 * error whose code is 409 (LeaseConflictError, or the apiserver's error from src/kube) when the
 * Lease exists, update when resourceVersion is not the current one. Both return the stored
 * Lease with its new resourceVersion.
 */
export interface LeaseClient {
  get(name: string, signal?: AbortSignal): Promise<Lease | null>;
  create(name: string, spec: LeaseSpec, signal?: AbortSignal): Promise<Lease>;
  update(name: string, lease: Lease, signal?: AbortSignal): Promise<Lease>;
}

/** Another candidate wrote the Lease first (HTTP 409). */
export class LeaseConflictError extends Error {
  readonly code = 409;

  constructor(message = 'lease was modified concurrently (409 Conflict)') {
    super(message);
    this.name = 'LeaseConflictError';
  }
}

/** The reason a leader's work signal aborts when renewal failed. */
export class LeadershipLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeadershipLostError';
  }
}

export interface LeaderElectionConfig {
  leaseName: string;
  /** Unique per process; see defaultIdentity(). */
  identity: string;
  client: LeaseClient;
  /** How long a standby waits after the last observed change before taking over (15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renewal before it gives up (10 s). */
  renewDeadlineMs?: number;
  /** Interval between attempts to acquire or renew (2 s). */
  retryPeriodMs?: number;
  /** Release the lease when stopping (default true). */
  releaseOnCancel?: boolean;
  /**
   * Runs while this process leads. signal aborts when leadership is lost or on shutdown;
   * the returned promise must settle once the work has stopped. When it settles on its
   * own, leading ends too (the lease is released).
   */
  onStartedLeading: (signal: AbortSignal) => Promise<void> | void;
  /** Called once after leading ended (work stopped, lease released if it could be). */
  onStoppedLeading?: () => void;
  /** Called whenever the observed holder changes ('' when the lease is released). */
  onNewLeader?: (identity: string) => void;
  /** Lease API failures and errors thrown by onStartedLeading, for logs. */
  onError?: (err: unknown, during: 'acquire' | 'renew' | 'release' | 'leading') => void;
  clock?: Clock;
  random?: Random;
}

/** client-go's JitterFactor for the acquire loop. */
const JITTER_FACTOR = 1.2;

/** A Kubernetes MicroTime: RFC 3339 with exactly six fractional digits, UTC. */
export function toMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** hostname_uuid, as controller-runtime builds its default identity. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** The record's fields in a fixed order: "did the record change" must not depend on key order. */
function recordKey(spec: LeaseSpec): string {
  return JSON.stringify([
    spec.holderIdentity ?? '',
    spec.leaseDurationSeconds ?? 0,
    spec.acquireTime ?? '',
    spec.renewTime ?? '',
    spec.leaseTransitions ?? 0,
  ]);
}

export class LeaderElector {
  readonly #cfg: Required<
    Omit<LeaderElectionConfig, 'onStoppedLeading' | 'onNewLeader' | 'onError'>
  > &
    Pick<LeaderElectionConfig, 'onStoppedLeading' | 'onNewLeader' | 'onError'>;

  /** The last Lease read or written, for its resourceVersion. */
  #lease: Lease | undefined;
  #observed: LeaseSpec = {};
  #observedRaw = '';
  /** When #observed last changed, on our clock: the base of expiry decisions. */
  #observedTime = 0;
  #reportedLeader: string | undefined;
  #leading = false;
  #ran = false;

  constructor(config: LeaderElectionConfig) {
    this.#cfg = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnCancel: true,
      clock: realClock,
      random: Math.random,
      ...config,
    };
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs, identity, leaseName } = this.#cfg;
    if (identity === '') throw new Error('leader election identity must not be empty');
    if (leaseName === '') throw new Error('leader election lease name must not be empty');
    if (leaseDurationMs <= renewDeadlineMs) {
      throw new Error('leaseDuration must be greater than renewDeadline');
    }
    if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) {
      throw new Error(`renewDeadline must be greater than retryPeriod × ${JITTER_FACTOR}`);
    }
    if (leaseDurationMs % 1000 !== 0 || retryPeriodMs < 1) {
      throw new Error('leaseDuration must be whole seconds and retryPeriod positive');
    }
  }

  /** True while this process holds the lease and its work runs. */
  isLeader(): boolean {
    return this.#leading;
  }

  /** The last observed holder ('' when none). */
  getLeader(): string {
    return this.#observed.holderIdentity ?? '';
  }

  /**
   * For /healthz: an error when this process believes it leads but has not renewed for
   * longer than leaseDuration + tolerance (a stuck process must be restarted, since a
   * standby may already lead).
   */
  check(maxTolerableExpiredMs = 0): Error | undefined {
    if (!this.#leading) return undefined;
    const since = this.#cfg.clock.now() - this.#observedTime;
    if (since > this.#cfg.leaseDurationMs + maxTolerableExpiredMs) {
      return new Error(`failed to renew leadership of lease ${this.#cfg.leaseName}`);
    }
    return undefined;
  }

  /**
   * Campaigns until it leads, leads until signal aborts or leadership is lost, then
   * returns. One run per elector; to campaign again after losing, create a new elector
   * (client-go callers typically exit the process instead).
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#ran) throw new Error('a LeaderElector runs once; create a new one to campaign again');
    this.#ran = true;
    if (!(await this.#acquire(signal))) return;
    if (signal.aborted) {
      // Acquired by an attempt that was in flight when shutdown began: hand it back.
      if (this.#cfg.releaseOnCancel) await this.#release();
      return;
    }

    const work = new AbortController();
    const stopWork = (): void => work.abort(signal.reason);
    signal.addEventListener('abort', stopWork, { once: true });
    const workEnded = new AbortController();
    this.#leading = true;
    const workDone = (async () => {
      try {
        await this.#cfg.onStartedLeading(work.signal);
      } catch (err) {
        this.#cfg.onError?.(err, 'leading');
      } finally {
        workEnded.abort();
      }
    })();

    const lost = await this.#renewUntil(workEnded.signal);
    signal.removeEventListener('abort', stopWork);
    if (lost) {
      this.#leading = false;
      work.abort(new LeadershipLostError(`lost lease ${this.#cfg.leaseName}`));
      await workDone;
    } else {
      work.abort(signal.reason);
      await workDone;
      this.#leading = false;
      if (this.#cfg.releaseOnCancel) await this.#release();
    }
    this.#cfg.onStoppedLeading?.();
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs, random } = this.#cfg;
    while (!signal.aborted) {
      if (await this.#tryAcquireOrRenew(signal, 'acquire')) return true;
      await clock.sleep(jitter(retryPeriodMs, JITTER_FACTOR, random), signal);
    }
    return false;
  }

  /** Renews every retryPeriod until stop aborts (false) or renewal fails for renewDeadline (true). */
  async #renewUntil(stop: AbortSignal): Promise<boolean> {
    while (!stop.aborted) {
      const outcome = await this.#renewWithinDeadline(stop);
      if (outcome === 'failed') return true;
      if (outcome === 'stopped') return false;
      await this.#cfg.clock.sleep(this.#cfg.retryPeriodMs, stop);
    }
    return false;
  }

  /** One renewal: retried every retryPeriod until it succeeds or renewDeadline passes. */
  async #renewWithinDeadline(stop: AbortSignal): Promise<'renewed' | 'failed' | 'stopped'> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.#cfg;
    const deadline = new AbortController();
    const timer = clock.setTimer(renewDeadlineMs, () =>
      deadline.abort(new Error('renew deadline exceeded')),
    );
    try {
      for (;;) {
        if (await this.#tryAcquireOrRenew(deadline.signal, 'renew')) return 'renewed';
        if (deadline.signal.aborted) return 'failed';
        await clock.sleep(retryPeriodMs, AbortSignal.any([deadline.signal, stop]));
        if (deadline.signal.aborted) return 'failed';
        // The work ended while renewal fails: stop retrying; release tries once more.
        if (stop.aborted) return 'stopped';
      }
    } finally {
      timer.cancel();
    }
  }

  async #tryAcquireOrRenew(signal: AbortSignal, during: 'acquire' | 'renew'): Promise<boolean> {
    const { client, leaseName, identity, clock } = this.#cfg;
    const now = toMicroTime(clock.date());
    const desired: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: this.#cfg.leaseDurationMs / 1000,
      acquireTime: now,
      renewTime: now,
    };

    // Fast path: the leader updates optimistically from the lease it last wrote.
    if (this.#holdsObserved() && this.#leaseValid() && this.#lease !== undefined) {
      desired.acquireTime = this.#observed.acquireTime ?? now;
      desired.leaseTransitions = this.#observed.leaseTransitions ?? 0;
      try {
        this.#setObserved(await client.update(leaseName, this.#leaseWith(desired), signal));
        return true;
      } catch (err) {
        this.#cfg.onError?.(err, during);
      }
    }

    let current: Lease | null;
    try {
      current = await client.get(leaseName, signal);
    } catch (err) {
      this.#cfg.onError?.(err, during);
      return false;
    }
    if (current === null) {
      try {
        this.#setObserved(
          await client.create(leaseName, { ...desired, leaseTransitions: 0 }, signal),
        );
        return true;
      } catch (err) {
        this.#cfg.onError?.(err, during);
        return false;
      }
    }

    this.#lease = current;
    if (recordKey(current.spec) !== this.#observedRaw) this.#setObserved(current);
    if (current.spec.holderIdentity && this.#leaseValid() && !this.#holdsObserved()) {
      return false; // held by another candidate and not expired
    }
    if (this.#holdsObserved()) {
      desired.acquireTime = current.spec.acquireTime ?? now;
      desired.leaseTransitions = current.spec.leaseTransitions ?? 0;
    } else {
      desired.leaseTransitions = (current.spec.leaseTransitions ?? 0) + 1;
    }
    try {
      this.#setObserved(await client.update(leaseName, this.#leaseWith(desired), signal));
      return true;
    } catch (err) {
      this.#cfg.onError?.(err, during);
      return false;
    }
  }

  async #release(): Promise<void> {
    if (!this.#holdsObserved() || this.#lease === undefined) return;
    const { client, leaseName, clock, renewDeadlineMs } = this.#cfg;
    const now = toMicroTime(clock.date());
    const deadline = new AbortController();
    const timer = clock.setTimer(renewDeadlineMs, () => deadline.abort());
    try {
      const released = await client.update(
        leaseName,
        this.#leaseWith({
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: this.#observed.leaseTransitions ?? 0,
        }),
        deadline.signal,
      );
      this.#setObserved(released);
    } catch (err) {
      this.#cfg.onError?.(err, 'release');
    } finally {
      timer.cancel();
    }
  }

  #leaseWith(spec: LeaseSpec): Lease {
    return { resourceVersion: (this.#lease as Lease).resourceVersion, spec };
  }

  #holdsObserved(): boolean {
    return this.#observed.holderIdentity === this.#cfg.identity;
  }

  #leaseValid(): boolean {
    const durationMs = (this.#observed.leaseDurationSeconds ?? 0) * 1000;
    return this.#observedTime + durationMs > this.#cfg.clock.now();
  }

  #setObserved(lease: Lease): void {
    this.#lease = lease;
    this.#observed = { ...lease.spec };
    this.#observedRaw = recordKey(lease.spec);
    this.#observedTime = this.#cfg.clock.now();
    const holder = lease.spec.holderIdentity ?? '';
    if (holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      this.#cfg.onNewLeader?.(holder);
    }
  }
}
