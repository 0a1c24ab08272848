// The served view's sync: the catalog scanned as a cold sync of the CRD mode scans it (the same
// objects, hash, counts and bytes: what status says), with nothing to write, every object
// unchanged (those with their content omitted counted as the CRD mode's writes count them), and
// nothing to delete.
import { expect } from 'chai';
import path from 'node:path';
import { tempDirEach } from '../../test/support/temp-dir.js';
import type { CatalogMetadataWriter, SyncTarget } from './index.js';
import { applyPlan, planCatalogSync, servedViewSyncer } from './index.js';

const sample = path.resolve(import.meta.dirname, '..', '..', 'examples', 'catalog');
const target: SyncTarget = {
  catalog: { name: 'ops', uid: 'uid-ops' },
  dir: sample,
  // Small enough that some objects carry contentOmitted.
  maxObjectBytes: 900,
  contentUrl: (b) => `http://content/catalogs/ops/api/v1/metas?name=${b.name ?? ''}`,
};

describe('sync: the served view syncer', () => {
  const spoolDir = tempDirEach('catalogd-served-sync-test-');
  const noObjects: CatalogMetadataWriter = {
    async *listExisting() {},
    create: () => Promise.resolve(),
    update: () => Promise.resolve(),
    delete: () => Promise.resolve(),
  };

  it('scans as a cold CRD sync does, and plans no write: every object unchanged', async () => {
    const syncer = servedViewSyncer();
    const planned = await syncer.plan(target);
    const cold = await planCatalogSync(target, noObjects, spoolDir());
    try {
      expect(planned.scan).to.deep.equal(cold.scan);
      expect(planned.scan.blobs).to.be.greaterThan(0);
      expect(planned.scan.omitted).to.be.greaterThan(0);
      const applied = await applyPlan(cold, noObjects, { concurrency: 4 });
      expect(planned.plan).to.deep.equal({
        create: [],
        update: [],
        delete: [],
        unchanged: cold.plan.create.length,
        unchangedOmitted: applied.omitted,
      });
      expect(planned.writes).to.equal(undefined);
      expect(await syncer.apply(planned, () => expect.fail('no progress'))).to.deep.equal({
        omitted: 0,
        storedBytesDelta: 0,
      });
      expect(await syncer.deleteAll('ops')).to.equal(0);
    } finally {
      await planned.dispose();
      await cold.dispose();
    }
  });
});
