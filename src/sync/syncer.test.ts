import { expect } from 'chai';
import { ManualClock } from '../util/clock.js';
import { catalogSyncer, countedWriter } from './syncer.js';
import { WriteRateLimit } from './write-rate.js';
import type { CatalogMetadataWriter, WriteResponse } from './writer-port.js';

describe('sync: counted writes', () => {
  const counter = () => {
    const seen: string[] = [];
    return {
      seen,
      inc: (l: { catalog: string; verb: string }) => seen.push(`${l.catalog}/${l.verb}`),
    };
  };
  const writer: CatalogMetadataWriter = {
    async *listExisting() {},
    create: async () => undefined,
    update: async (obj) => {
      if (obj.name === 'refused') throw new Error('refused');
    },
    delete: async () => undefined,
    dryRun: async () => {
      throw new Error('admission says no');
    },
  };

  it('counts each write that succeeded, by catalog and verb, and each dry-run sent', async () => {
    const writes = counter();
    const dryRunWrites = counter();
    const w = countedWriter(writer, 'operatorhub', { writes, dryRunWrites });
    await w.create({ name: 'a', body: '{}' });
    await w.update({ name: 'b', body: '{}' });
    await w.delete('c', 'uid');
    await w.update({ name: 'refused', body: '{}' }).catch(() => undefined);
    await w.dryRun?.('create', { name: 'd', body: '{}' }).catch(() => undefined);
    expect(writes.seen).to.deep.equal([
      'operatorhub/create',
      'operatorhub/update',
      'operatorhub/delete',
    ]);
    expect(dryRunWrites.seen).to.deep.equal(['operatorhub/create']);
  });
});

describe('sync: paced writes', () => {
  /**
   * A writer whose catalog has `n` objects, each delete answered `status` (one macrotask later),
   * recording the most deletes in flight at once.
   */
  function answering(n: number, status: number, observable = true) {
    let inflight = 0;
    let most = 0;
    const listeners: Array<(r: WriteResponse) => void> = [];
    const writer: CatalogMetadataWriter = {
      async *listExisting() {
        for (let i = 0; i < n; i++) {
          yield { name: `o${i}`, uid: `u${i}`, resourceVersion: '1', fingerprint: 'f' } as never;
        }
      },
      create: async () => undefined,
      update: async () => undefined,
      delete: async () => {
        most = Math.max(most, ++inflight);
        await new Promise((r) => setImmediate(r));
        inflight--;
        for (const l of listeners) l({ status, latencyMs: 0 });
      },
      ...(observable && { observeResponses: (l) => void listeners.push(l) }),
    };
    return { writer, most: () => most };
  }
  let t = 0;
  const clock = { now: () => t++ };
  const syncer = (writer: CatalogMetadataWriter) =>
    catalogSyncer({
      writer,
      spoolDir: '/nonexistent',
      writeConcurrency: 16,
      pacing: { minWriteConcurrency: 2, clock },
      counters: { writes: { inc() {} }, dryRunWrites: { inc() {} } },
    });

  it('grows the writes in flight to --write-concurrency while the apiserver answers fast', async () => {
    const w = answering(200, 200);
    const s = syncer(w.writer);
    await s.deleteAll('c');
    expect(w.most()).to.equal(16);
    expect(s.pacing.window).to.equal(16);
  });

  it('keeps them at --min-write-concurrency while the apiserver answers 429', async () => {
    const w = answering(200, 429);
    const s = syncer(w.writer);
    await s.deleteAll('c');
    expect(w.most()).to.equal(2);
  });

  it('does not pace a writer that cannot observe its answers', async () => {
    const w = answering(200, 429, false);
    await syncer(w.writer).deleteAll('c');
    expect(w.most()).to.equal(16);
  });
});

describe('sync: --max-write-rate', () => {
  it('spaces the writes of a sync at the rate, across its window', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const sent: number[] = [];
    const writer: CatalogMetadataWriter = {
      async *listExisting() {
        for (let i = 0; i < 4; i++) {
          yield { name: `o${i}`, uid: `u${i}`, resourceVersion: '1', fingerprint: 'f' } as never;
        }
      },
      create: async () => undefined,
      update: async () => undefined,
      delete: async () => void sent.push(clock.now() - t0),
    };
    const s = catalogSyncer({
      writer,
      spoolDir: '/nonexistent',
      writeConcurrency: 16,
      writeRate: new WriteRateLimit(2, clock),
      counters: { writes: { inc() {} }, dryRunWrites: { inc() {} } },
    });
    const done = s.deleteAll('c');
    while (await clock.advanceToNextTimer());
    await done;
    expect(sent).to.deep.equal([0, 500, 1000, 1500]);
  });
});
