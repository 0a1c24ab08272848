// The sequence-level reads the served API uses: selectSeqs (a metas query as blob positions),
// blobsIn (the lines at those positions, in batches) and packageNames (the index's keys).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ContentStore } from './store.js';
import { blobOf, catalogOf, inBlobOrder, streamOf } from './test-catalogs.test.js';

describe('server/revision: sequence-level reads', () => {
  const cat = catalogOf([
    blobOf({ schema: 'olm.package', name: 'b' }),
    blobOf({ schema: 'olm.bundle', package: 'b', name: 'b.v1', pad: 'x'.repeat(300_000) }),
    blobOf({ schema: 'olm.bundle', package: 'a', name: 'a.v1' }),
    blobOf({ schema: 'olm.bundle', package: 'a', name: 'a.v2' }),
    blobOf({ schema: 'olm.channel', package: 'a', name: 'stable' }),
  ]);
  const ordered = inBlobOrder(cat.blobs);
  let store: ContentStore;

  before(async () => {
    store = new ContentStore(await mkdtemp(path.join(tmpdir(), 'revision-seqs-')));
    await store.buildRevision('c', cat.contentHash, streamOf(cat.blobs));
    await store.activate('c', cat.contentHash, new Date(0));
  });
  after(async () => {
    await store.close();
    await rm(store.root, { recursive: true, force: true });
  });

  it('selects the blob positions of a query, and reads the lines at given positions', async () => {
    const lease = store.acquire('c')!;
    try {
      const seqs = await lease.selectSeqs({ package: 'a' });
      expect(seqs).to.deep.equal([
        [0, 2],
        [3, 4],
      ]);
      const lines: Array<{ seq: number; line: string }> = [];
      for await (const l of lease.blobsIn([
        [0, 1],
        [2, 5],
      ]))
        lines.push(l);
      expect(lines.map((l) => l.seq)).to.deep.equal([0, 2, 3, 4]);
      expect(lines.map((l) => l.line)).to.deep.equal(
        [0, 2, 3, 4].map((i) => ordered[i]!.canonical),
      );
      expect(await lease.selectSeqs({ name: 'stable' })).to.deep.equal([[3, 4]]);
      expect([...lease.packageNames()].sort()).to.deep.equal(['a', 'b']);
    } finally {
      lease.release();
    }
  });
});
