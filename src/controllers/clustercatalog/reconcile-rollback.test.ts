// The inner reconcile's rollback after a failed write (atomic at rest), with no client: the
// world of reconcile-world.test.ts.
import { expect } from 'chai';
import type { ClusterCatalogStatus } from '../../api/v1/index.js';
import { isTerminal } from '../../util/errors.js';
import { reconcileCatalog } from './reconcile.js';
import {
  DIGEST,
  HASH,
  PREV_HASH,
  catalog,
  cond,
  conditionSequence,
  world,
} from './reconcile-world.test.js';
import type { World } from './reconcile-world.test.js';

describe('reconcileCatalog', () => {
  describe('rollback after a failed write', () => {
    const PREV_REF = `registry.example/ops/catalog@sha256:${'f'.repeat(64)}`;
    const prevStatus: ClusterCatalogStatus = {
      contentHash: PREV_HASH,
      resolvedSource: { type: 'Image', image: { ref: PREV_REF } },
    };

    function failingWorld(rollbackFails = false) {
      const w = world({ plan: { create: ['new'] } });
      const applied: string[] = [];
      w.deps.ports.puller.pull = async (ref) => ({
        ref,
        digest: '',
        dir: '/cache',
        configsDir: ref === PREV_REF ? '/cache/prev' : '/cache/new',
        cached: true,
      });
      const planNew = w.deps.ports.syncer.plan.bind(w.deps.ports.syncer);
      w.deps.ports.syncer.plan = async (t, sig) => {
        const planned = await planNew(t, sig);
        if (t.dir !== '/cache/prev') return planned;
        const scan = {
          desired: new Map(),
          contentHash: PREV_HASH,
          blobs: 3,
          omitted: 0,
          bytes: 1,
          storedBytes: 1,
        };
        return { ...planned, scan };
      };
      w.deps.ports.syncer.apply = async ({ target }) => {
        applied.push(target.dir);
        if (target.dir === '/cache/new' || rollbackFails) {
          throw new Error('create CatalogMetadata ops-bundle-x: denied by policy');
        }
        return { omitted: 0, storedBytesDelta: 0 };
      };
      return { w, applied };
    }

    /** A reconcile of an update from prevStatus: its outcome, and the conditions of each status. */
    async function update(w: World) {
      const out = await reconcileCatalog(catalog({}, prevStatus), w.deps);
      return { out, seq: conditionSequence([...w.statusWrites, out.status]) };
    }

    it('re-applies the previous revision, clears the journal and names the failed object', async () => {
      const { w, applied } = failingWorld();
      const out = await reconcileCatalog(catalog({}, prevStatus), w.deps);
      expect(applied).to.deep.equal(['/cache/new', '/cache/prev']);
      expect(
        w.calls.filter((c) => c === 'dispose'),
        'both plans disposed',
      ).to.have.length(2);
      expect(w.statusWrites[1]?.syncingTo).to.equal(HASH);
      expect(out.status.syncingTo).to.equal(undefined);
      expect(out.status.contentHash).to.equal(PREV_HASH);
      expect(isTerminal(out.error?.cause)).to.equal(false);
      expect(cond(out.status, 'Progressing')?.message).to.equal(
        `create CatalogMetadata ops-bundle-x: denied by policy; rolled back to ${PREV_HASH}`,
      );
    });

    it('condition sequence of a refused update: Succeeded while served, then Retrying for the error', async () => {
      const { out, seq } = await update(failingWorld().w);
      expect(seq).to.deep.equal([
        'Progressing=Succeeded ObjectsSynced=Planning',
        'Progressing=Succeeded ObjectsSynced=Writing',
        'Progressing=Retrying ObjectsSynced=RolledBack',
      ]);
      expect(cond(out.status, 'ObjectsSynced')?.message).to.equal(
        `create CatalogMetadata ops-bundle-x: denied by policy; rolled back to ${PREV_HASH}`,
      );
      // The rollback itself refused: the objects are not whole; Failed, retried.
      const refused = failingWorld(true);
      const stuck = await reconcileCatalog(catalog({}, prevStatus), refused.w.deps);
      expect(cond(stuck.status, 'ObjectsSynced')).to.include({ status: 'False', reason: 'Failed' });
    });

    it('condition sequence of a normal update: never Retrying', async () => {
      const w = world({ plan: { create: ['a'], update: [{ name: 'b', resourceVersion: '1' }] } });
      const { seq } = await update(w);
      expect(seq).to.deep.equal([
        'Progressing=Succeeded ObjectsSynced=Planning',
        'Progressing=Succeeded ObjectsSynced=Writing',
        'Progressing=Succeeded ObjectsSynced=Synced',
      ]);
    });

    it('rolls the objects back while HTTP keeps serving the revision that parsed', async () => {
      const { w } = failingWorld();
      const out = await reconcileCatalog(catalog({}, prevStatus), w.deps);
      expect(out.status.resolvedSource?.image.ref).to.equal(
        `registry.example/ops/catalog@${DIGEST}`,
      );
      expect(out.status.objectSourceRef).to.equal(undefined);
      expect(cond(out.status, 'Serving')).to.include({ status: 'True', reason: 'Available' });
      expect(cond(out.status, 'Progressing')).to.include({ status: 'True', reason: 'Retrying' });
      // A first sync whose objects are refused still serves HTTP.
      const first = await reconcileCatalog(catalog(), failingWorld().w.deps);
      expect(first.status.urls?.base).to.equal('http://content.example/catalogs/ops');
      expect(cond(first.status, 'Serving')).to.include({ status: 'True', reason: 'Available' });
    });

    it('rolls back to the image of the objects, not the one HTTP serves', async () => {
      // The status a refused sync leaves: HTTP ahead of the objects.
      const ahead: ClusterCatalogStatus = {
        ...prevStatus,
        resolvedSource: { type: 'Image', image: { ref: `registry.example/ops/catalog@${DIGEST}` } },
        objectSourceRef: PREV_REF,
      };
      const { w, applied } = failingWorld();
      const out = await reconcileCatalog(catalog({}, ahead), w.deps);
      expect(applied).to.deep.equal(['/cache/new', '/cache/prev']);
      expect(out.status.contentHash).to.equal(PREV_HASH);
      expect(cond(out.status, 'Progressing')?.message).to.match(/rolled back to sha256:e+$/);
    });

    it('rolls back to no objects when the previous revision had none (content profile none)', async () => {
      const { w, applied } = failingWorld();
      const out = await reconcileCatalog(catalog({}, { ...prevStatus, objectCount: 0 }), w.deps);
      expect(applied).to.deep.equal(['/cache/new']);
      expect(w.calls).to.include('deleteAll');
      expect(out.status.contentHash).to.equal(PREV_HASH);
    });

    it('deletes what it wrote when there was no previous revision', async () => {
      const { w } = failingWorld();
      const out = await reconcileCatalog(catalog(), w.deps);
      expect(w.calls).to.include('deleteAll');
      expect(out.status.syncingTo).to.equal(undefined);
      expect(cond(out.status, 'Progressing')?.message).to.match(
        /rolled back \(no previous content\)$/,
      );
    });

    it('keeps the journal when the rollback fails too, for the next reconcile to converge', async () => {
      const { w } = failingWorld(true);
      const out = await reconcileCatalog(catalog({}, prevStatus), w.deps);
      expect(out.status.syncingTo).to.equal(HASH);
      expect(cond(out.status, 'Progressing')?.message).to.contain('; rollback failed: ');
    });
  });
});
