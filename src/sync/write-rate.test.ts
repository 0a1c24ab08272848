import { expect } from 'chai';
import { ManualClock } from '../util/clock.js';
import { runBounded } from '../util/bounded.js';
import { WriteRateLimit, rateLimitedWriter } from './write-rate.js';
import type { CatalogMetadataWriter } from './writer-port.js';

describe('sync: --max-write-rate', () => {
  /** A writer that records when (on `clock`) each write was sent. */
  function recording(clock: ManualClock) {
    const sent: Array<[verb: string, at: number]> = [];
    const t0 = clock.now();
    const writer: CatalogMetadataWriter = {
      async *listExisting() {},
      create: async () => void sent.push(['create', clock.now() - t0]),
      update: async () => void sent.push(['update', clock.now() - t0]),
      delete: async () => void sent.push(['delete', clock.now() - t0]),
      dryRun: async () => void sent.push(['dryRun', clock.now() - t0]),
    };
    return { writer, sent };
  }

  it('spaces writes evenly at the rate, whatever the writes in flight', async () => {
    const clock = new ManualClock();
    const { writer, sent } = recording(clock);
    const w = rateLimitedWriter(writer, new WriteRateLimit(5, clock));
    async function* tasks() {
      for (let i = 0; i < 6; i++) yield () => w.create({ name: `o${i}`, body: '{}' });
    }
    const done = runBounded(tasks(), 32);
    while (await clock.advanceToNextTimer());
    await done;
    expect(sent.map(([, at]) => at)).to.deep.equal([0, 200, 400, 600, 800, 1000]);
  });

  it('limits creates, updates and deletes alike; dry-runs (nothing stored) are not limited', async () => {
    const clock = new ManualClock();
    const { writer, sent } = recording(clock);
    const w = rateLimitedWriter(writer, new WriteRateLimit(10, clock));
    const all = Promise.all([
      w.create({ name: 'a', body: '{}' }),
      w.update({ name: 'b', body: '{}' }),
      w.delete('c', 'uid'),
      w.dryRun?.('create', { name: 'd', body: '{}' }),
    ]);
    while (await clock.advanceToNextTimer());
    await all;
    expect(Object.fromEntries(sent)).to.deep.equal({
      create: 0,
      dryRun: 0,
      update: 100,
      delete: 200,
    });
  });

  it('does not save unused slots for a burst after a pause', async () => {
    const clock = new ManualClock();
    const { writer, sent } = recording(clock);
    const w = rateLimitedWriter(writer, new WriteRateLimit(4, clock));
    await w.create({ name: 'a', body: '{}' });
    await clock.advance(10_000);
    const two = Promise.all([
      w.create({ name: 'b', body: '{}' }),
      w.create({ name: 'c', body: '{}' }),
    ]);
    while (await clock.advanceToNextTimer());
    await two;
    expect(sent.map(([, at]) => at)).to.deep.equal([0, 10_000, 10_250]);
  });

  it('a write waiting for its slot ends with the abort, unsent', async () => {
    const clock = new ManualClock();
    const { writer, sent } = recording(clock);
    const w = rateLimitedWriter(writer, new WriteRateLimit(1, clock));
    const abort = new AbortController();
    await w.create({ name: 'a', body: '{}' }, abort.signal);
    const waiting = w.create({ name: 'b', body: '{}' }, abort.signal);
    abort.abort(new Error('the catalog changed'));
    let caught: unknown;
    await waiting.catch((err: unknown) => (caught = err));
    expect((caught as Error).message).to.equal('the catalog changed');
    expect(sent).to.have.length(1);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('refuses a rate that is not a positive number', () => {
    const clock = new ManualClock();
    for (const r of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new WriteRateLimit(r, clock)).to.throw(RangeError, /positive number/);
  });
});
