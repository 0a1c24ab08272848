import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import type { Lease, LeaseClient, LeaseSpec } from './leader.js';
import { LeaderElector, LeadershipLostError, LeaseConflictError, toMicroTime } from './leader.js';

/** Leases in memory, with the apiserver's optimistic concurrency on resourceVersion. */
class MemoryLeaseClient implements LeaseClient {
  lease: Lease | null = null;
  #rv = 1;
  /** While set, every call fails as if the apiserver were unreachable. */
  unreachable = false;
  readonly writes: LeaseSpec[] = [];

  async get(_name: string): Promise<Lease | null> {
    this.#check();
    return this.lease ? structuredClone(this.lease) : null;
  }

  async create(_name: string, spec: LeaseSpec): Promise<Lease> {
    this.#check();
    if (this.lease) throw new LeaseConflictError('already exists');
    return this.#store(spec);
  }

  async update(_name: string, lease: Lease): Promise<Lease> {
    this.#check();
    if (!this.lease || this.lease.resourceVersion !== lease.resourceVersion) {
      throw new LeaseConflictError();
    }
    return this.#store(lease.spec);
  }

  #check(): void {
    if (this.unreachable) throw new Error('connect ECONNREFUSED');
  }

  #store(spec: LeaseSpec): Lease {
    this.writes.push(structuredClone(spec));
    this.lease = { resourceVersion: String(++this.#rv), spec: structuredClone(spec) };
    return structuredClone(this.lease);
  }
}

interface Candidate {
  elector: LeaderElector;
  ac: AbortController;
  run: Promise<void>;
  events: string[];
  workSignal: () => AbortSignal | undefined;
  finishWork: () => void;
}

function candidate(clock: ManualClock, client: LeaseClient, identity: string): Candidate {
  const events: string[] = [];
  let workSignal: AbortSignal | undefined;
  let finishWork: () => void = () => undefined;
  const elector = new LeaderElector({
    leaseName: 'catalogd',
    identity,
    client,
    clock,
    random: () => 0,
    onStartedLeading: (signal) => {
      events.push('started');
      workSignal = signal;
      // The work runs until the test lets it finish after its signal aborted.
      return new Promise<void>((resolve) => (finishWork = resolve));
    },
    onStoppedLeading: () => events.push('stopped'),
    onNewLeader: (id) => events.push(`leader=${id}`),
  });
  const ac = new AbortController();
  return {
    elector,
    ac,
    run: elector.run(ac.signal),
    events,
    workSignal: () => workSignal,
    finishWork: () => finishWork(),
  };
}

describe('LeaderElector', () => {
  it('creates the lease, leads, renews every retryPeriod, and releases after its work stopped', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const client = new MemoryLeaseClient();
    const a = candidate(clock, client, 'a');
    await settle();
    expect(a.events).to.deep.equal(['leader=a', 'started']);
    expect(a.elector.isLeader()).to.equal(true);
    expect(client.lease?.spec).to.deep.equal({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
    await clock.advance(2000);
    expect(client.lease?.spec.renewTime).to.equal('2026-01-01T00:00:02.000000Z');
    expect(client.lease?.spec.acquireTime).to.equal('2026-01-01T00:00:00.000000Z');

    a.ac.abort();
    await settle();
    expect(a.workSignal()?.aborted).to.equal(true);
    // While the in-flight work winds down, the leader keeps the lease renewed.
    await clock.advance(4000);
    expect(client.lease?.spec.holderIdentity).to.equal('a');
    expect(client.lease?.spec.renewTime).to.equal('2026-01-01T00:00:06.000000Z');
    a.finishWork();
    await a.run;
    expect(client.lease?.spec).to.deep.include({ holderIdentity: '', leaseDurationSeconds: 1 });
    expect(a.events).to.deep.equal(['leader=a', 'started', 'leader=', 'stopped']);
    expect(a.elector.isLeader()).to.equal(false);
  });

  it('a standby waits while the leader renews (through short outages) and takes over at once after a release', async () => {
    const clock = new ManualClock(0);
    const client = new MemoryLeaseClient();
    const a = candidate(clock, client, 'a');
    await settle();
    const b = candidate(clock, client, 'b');
    await clock.advance(30_000);
    expect(b.events).to.deep.equal(['leader=a']);
    expect(client.lease?.spec.holderIdentity).to.equal('a');

    client.unreachable = true;
    await clock.advance(3000);
    client.unreachable = false;
    // a could not renew for 3 s; it still leads (renewDeadline 10 s) and renews again.
    expect(a.events).to.deep.equal(['leader=a', 'started']);
    a.ac.abort();
    a.finishWork();
    await a.run;
    // a released: b acquires at its next retry, without waiting for expiry.
    await clock.advance(2400);
    expect(b.events).to.deep.equal(['leader=a', 'leader=', 'leader=b', 'started']);
    expect(client.lease?.spec).to.deep.include({ holderIdentity: 'b', leaseTransitions: 1 });
    b.ac.abort();
    b.finishWork();
    await b.run;
  });

  it('takes over an expired lease judged on its own clock, counting the transition', async () => {
    const clock = new ManualClock(0);
    const client = new MemoryLeaseClient();
    // A lease left by a crashed leader, renewed "in the future" by a skewed clock.
    client.lease = {
      resourceVersion: '1',
      spec: {
        holderIdentity: 'crashed',
        leaseDurationSeconds: 15,
        acquireTime: '2099-01-01T00:00:00.000000Z',
        renewTime: '2099-01-01T00:00:00.000000Z',
        leaseTransitions: 4,
      },
    };
    const b = candidate(clock, client, 'b');
    await clock.advance(14_000);
    expect(b.events).to.deep.equal(['leader=crashed']);
    await clock.advance(2_400);
    expect(b.events).to.deep.equal(['leader=crashed', 'leader=b', 'started']);
    expect(client.lease?.spec).to.deep.include({ holderIdentity: 'b', leaseTransitions: 5 });
    b.ac.abort();
    b.finishWork();
    await b.run;
  });

  it('stops leading when it cannot renew within renewDeadline, without releasing', async () => {
    const clock = new ManualClock(0);
    const client = new MemoryLeaseClient();
    const a = candidate(clock, client, 'a');
    await settle();
    client.unreachable = true;
    await clock.advance(2000 + 9999);
    expect(a.workSignal()?.aborted).to.equal(false);
    await clock.advance(1);
    expect(a.workSignal()?.aborted).to.equal(true);
    expect(a.workSignal()?.reason).to.be.instanceOf(LeadershipLostError);
    expect(a.elector.isLeader()).to.equal(false);
    a.finishWork();
    await a.run;
    expect(a.events).to.deep.equal(['leader=a', 'started', 'stopped']);
    client.unreachable = false;
    expect(client.lease?.spec.holderIdentity).to.equal('a'); // expires for the others
  });

  it('lets only one of two racing candidates win (resourceVersion conflicts)', async () => {
    const clock = new ManualClock(0);
    const client = new MemoryLeaseClient();
    client.lease = {
      resourceVersion: '1',
      spec: { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 2 },
    };
    const a = candidate(clock, client, 'a');
    const b = candidate(clock, client, 'b');
    await settle();
    await clock.advance(10_000);
    const leaders = [a, b].filter((c) => c.elector.isLeader());
    expect(leaders).to.have.length(1);
    expect(client.lease?.spec.leaseTransitions).to.equal(3);
    for (const c of [a, b]) {
      c.ac.abort();
      c.finishWork();
    }
    await Promise.all([a.run, b.run]);
  });

  it('returns without leading when stopped while campaigning', async () => {
    const clock = new ManualClock(0);
    const client = new MemoryLeaseClient();
    client.unreachable = true;
    const a = candidate(clock, client, 'a');
    await clock.advance(5000);
    a.ac.abort();
    await a.run;
    expect(a.events).to.deep.equal([]);
  });

  it('reports unhealthy when it leads but has not renewed for longer than the lease', async () => {
    const clock = new ManualClock(0);
    const stuck: LeaseClient = new MemoryLeaseClient();
    const elector = new LeaderElector({
      leaseName: 'l',
      identity: 'a',
      client: stuck,
      clock,
      onStartedLeading: () => new Promise(() => undefined),
    });
    const ac = new AbortController();
    void elector.run(ac.signal);
    await settle();
    expect(elector.check()).to.equal(undefined);
    // Freeze renewals without failing them, as a deadlocked process would.
    (stuck as MemoryLeaseClient).update = () => new Promise(() => undefined);
    (stuck as MemoryLeaseClient).get = () => new Promise(() => undefined);
    await clock.advance(15_001);
    expect(elector.check()).to.be.instanceOf(Error);
  });

  it('validates its timing configuration', () => {
    const base = {
      leaseName: 'l',
      identity: 'a',
      client: new MemoryLeaseClient(),
      onStartedLeading: () => undefined,
    };
    expect(
      () => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
    ).to.throw(/leaseDuration/);
    expect(
      () => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }),
    ).to.throw(/renewDeadline/);
    expect(() => new LeaderElector({ ...base, identity: '' })).to.throw(/identity/);
  });

  it('formats MicroTime with six fractional digits', () => {
    expect(toMicroTime(new Date(Date.UTC(2026, 4, 6, 7, 8, 9, 123)))).to.equal(
      '2026-05-06T07:08:09.123000Z',
    );
  });
});

describe('LeaderElector shutdown during acquisition', () => {
  it('hands back a lease acquired by an attempt in flight when shutdown began', async () => {
    const clock = new ManualClock(0);
    const client = new MemoryLeaseClient();
    let release: () => void = () => undefined;
    const slowCreate = client.create.bind(client);
    client.create = async (name, spec) => {
      await new Promise<void>((r) => (release = r));
      return slowCreate(name, spec);
    };
    let started = false;
    const elector = new LeaderElector({
      leaseName: 'l',
      identity: 'a',
      client,
      clock,
      onStartedLeading: () => {
        started = true;
      },
    });
    const ac = new AbortController();
    const run = elector.run(ac.signal);
    await settle();
    ac.abort();
    release();
    await run;
    expect(started).to.equal(false);
    expect(client.lease?.spec.holderIdentity).to.equal('');
  });
});
