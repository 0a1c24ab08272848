import { expect } from 'chai';
import { countedWriter } from './syncer.js';
import type { CatalogMetadataWriter } from './writer-port.js';

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
