// The steady-state memo: the skip decision of the reconcile (a full plan unless the last sync's
// key matches and no drift was seen since), with the memo itself and with the inner reconcile
// over in-memory ports.
import { expect } from 'chai';
import { clusterCatalog } from '../../../test/support/cluster-catalog.js';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import type { ReconcileDeps, SyncedRevision, Syncer } from './reconcile.js';
import { catalogMetadataDeleted } from './setup/predicates.js';
import { reconcileCatalog } from './reconcile.js';
import { scanResult } from './reconcile-world.test.js';
import { SyncMemo } from './sync-memo.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const OTHER_DIGEST = `sha256:${'c'.repeat(64)}`;
const HASH = `sha256:${'b'.repeat(64)}`;
const REVISION: SyncedRevision = { contentHash: HASH, objectCount: 7, omitted: 1, storedBytes: 99 };

/** The deps with some of the syncer's methods replaced. */
function withSyncer(deps: ReconcileDeps, syncer: Partial<Syncer>): ReconcileDeps {
  return { ...deps, ports: { ...deps.ports, syncer: { ...deps.ports.syncer, ...syncer } } };
}

describe('SyncMemo', () => {
  it('returns the revision remembered under the same key, nothing under another key', () => {
    const memo = new SyncMemo();
    memo.remember(memo.begin('ops'), 'k1', REVISION);
    expect(memo.lookup('ops', 'k1')).to.deep.equal(REVISION);
    expect(memo.lookup('ops', 'k2')).to.equal(undefined);
    expect(memo.lookup('other', 'k1')).to.equal(undefined);
  });

  it('a drift mark, forget and clearAll void the entry; drift of another catalog does not', () => {
    const memo = new SyncMemo();
    memo.remember(memo.begin('ops'), 'k', REVISION);
    memo.markDirty('other');
    expect(memo.lookup('ops', 'k')).to.deep.equal(REVISION);
    memo.markDirty('ops');
    expect(memo.lookup('ops', 'k')).to.equal(undefined);
    memo.remember(memo.begin('ops'), 'k', REVISION);
    memo.forget('ops');
    expect(memo.lookup('ops', 'k')).to.equal(undefined);
    memo.remember(memo.begin('ops'), 'k', REVISION);
    memo.clearAll();
    expect(memo.lookup('ops', 'k')).to.equal(undefined);
  });

  it('drift seen while a sync runs voids what that sync remembers', () => {
    const memo = new SyncMemo();
    const token = memo.begin('ops');
    memo.markDirty('ops'); // an edit after the sync listed the objects
    memo.remember(token, 'k', REVISION);
    expect(memo.lookup('ops', 'k')).to.equal(undefined);
    // Drift before the sync began is what the sync saw and repaired.
    memo.remember(memo.begin('ops'), 'k', REVISION);
    expect(memo.lookup('ops', 'k')).to.deep.equal(REVISION);
  });

  it('a relist of the drift watch (events may have been missed) voids every entry', () => {
    let relists = 1;
    const memo = new SyncMemo(() => relists);
    memo.remember(memo.begin('ops'), 'k', REVISION);
    relists++;
    expect(memo.lookup('ops', 'k')).to.equal(undefined);
    const token = memo.begin('ops');
    relists++;
    memo.remember(token, 'k', REVISION);
    expect(memo.lookup('ops', 'k')).to.equal(undefined);
  });
});

describe("SyncMemo: a sync's own deletions", () => {
  it('a deletion of a name the sync deletes is its own, once; any other is drift', () => {
    const memo = new SyncMemo();
    memo.deleting('ops', ['a', 'b']);
    const event = { name: 'a' };
    expect(memo.deletedBySync('ops', 'a', event)).to.equal(true);
    // Every subscriber of the same event gets the same answer.
    expect(memo.deletedBySync('ops', 'a', event)).to.equal(true);
    // Another deletion of that name (the object made again, then deleted by hand) is drift.
    expect(memo.deletedBySync('ops', 'a', { name: 'a' })).to.equal(false);
    expect(memo.deletedBySync('ops', 'c', { name: 'c' })).to.equal(false);
    expect(memo.deletedBySync('other', 'b', { name: 'b' })).to.equal(false);
    expect(memo.deletedBySync(undefined, 'b', { name: 'b' })).to.equal(false);
    memo.forget('ops');
    expect(memo.deletedBySync('ops', 'b', { name: 'b' })).to.equal(false);
  });

  it('the next deleting sync replaces the names; clearAll drops them', () => {
    const memo = new SyncMemo();
    memo.deleting('ops', ['a']);
    memo.deleting('ops', ['b']);
    expect(memo.deletedBySync('ops', 'a', {})).to.equal(false);
    expect(memo.deletedBySync('ops', 'b', {})).to.equal(true);
    memo.deleting('ops', ['c']);
    memo.clearAll();
    expect(memo.deletedBySync('ops', 'c', {})).to.equal(false);
  });
});

function catalog(over: { uid?: string; generation?: number } = {}, status?: ClusterCatalogStatus) {
  return clusterCatalog({ ...over, ...(status && { status }) });
}

/** The inner reconcile's ports in memory; `calls` says what each reconcile did. */
function world() {
  const calls: string[] = [];
  const statusWrites: ClusterCatalogStatus[] = [];
  let digest = DIGEST;
  let pullError: Error | undefined;
  const memo = new SyncMemo();
  const scan = scanResult();
  const plan = { create: [], update: [], delete: [], unchanged: 7, unchangedOmitted: 0 };
  const deps: ReconcileDeps = {
    ports: {
      puller: {
        resolve: async () => {
          calls.push('resolve');
          if (pullError) throw pullError;
          return digest;
        },
        pull: async (ref) => {
          calls.push('pull');
          return { ref, digest, dir: '/cache', configsDir: `/cache/${digest}`, cached: true };
        },
      },
      syncer: {
        plan: async (target) => {
          calls.push('plan');
          return { target, scan, plan, dispose: async () => {} };
        },
        apply: async () => {
          calls.push('apply');
          return { omitted: 0, storedBytesDelta: 0 };
        },
        deleteAll: async () => 0,
      },
      content: {
        baseUrl: (c) => `http://content.example/catalogs/${c}`,
        blobUrl: (c, b) => `http://content.example/catalogs/${c}/${b.schema}/${b.name ?? ''}`,
        prepare: async () => {
          calls.push('prepare');
          return HASH;
        },
        publish: async () => void calls.push('publish'),
        remove: async () => void calls.push('remove'),
      },
      status: { write: async (s) => void statusWrites.push(structuredClone(s)) },
      syncMemo: memo,
    },
    settings: { maxObjectBytes: 1 << 20 },
    clock: { date: () => new Date('2026-01-02T03:04:05Z'), random: () => 0.5 },
  };
  /** Reconciles the catalog as it stands after `status` was written (what the outer does). */
  const reconcile = async (c: ClusterCatalog = catalog(), d: ReconcileDeps = deps) => {
    calls.length = 0;
    const out = await reconcileCatalog(c, d);
    return { out, planned: calls.includes('plan') };
  };
  return {
    deps,
    memo,
    calls,
    statusWrites,
    reconcile,
    setDigest: (d: string) => void (digest = d),
    failPulls: (err: Error | undefined) => void (pullError = err),
    plan,
  };
}

describe('reconcileCatalog: steady state (the sync memo)', () => {
  it('the same digest, options and owner with no drift: no plan, no write, the same status', async () => {
    const w = world();
    const first = await w.reconcile();
    expect(first.planned).to.equal(true);
    const second = await w.reconcile(catalog({}, first.out.status));
    expect(second.planned).to.equal(false);
    // Resolved, found in the cache, published again (a no-op when served): nothing else.
    expect(w.calls).to.deep.equal(['resolve', 'pull', 'publish']);
    expect(second.out.status).to.deep.equal(first.out.status);
    expect(second.out.status.storedBytes).to.equal(4321);
    expect(second.out.requeueAfterMs).to.equal(first.out.requeueAfterMs);
    expect(second.out.error).to.equal(undefined);
  });

  it('drift seen since the last sync: plans in full', async () => {
    const w = world();
    const first = await w.reconcile();
    w.memo.markDirty('ops');
    expect((await w.reconcile(catalog({}, first.out.status))).planned).to.equal(true);
    // That full plan is remembered: the next poll is O(1) again.
    expect((await w.reconcile(catalog({}, first.out.status))).planned).to.equal(false);
  });

  it('a sync that deletes objects: their deletion events are not drift, the next reconcile is O(1)', async () => {
    const w = world();
    const isDrift = catalogMetadataDeleted((...a) => w.memo.deletedBySync(...a));
    const refs = ['gone-1', 'gone-2'].map((name) => ({
      metadata: { name },
      catalog: 'ops',
      fingerprint: '',
      writtenByController: true,
    }));
    const apply = w.deps.ports.syncer.apply.bind(w.deps.ports.syncer);
    const deps = withSyncer(w.deps, {
      plan: async (target) => {
        w.calls.push('plan');
        const del = refs.map((r) => ({ name: r.metadata.name, uid: `uid-${r.metadata.name}` }));
        const scan = { desired: new Map(), contentHash: HASH, blobs: 7, omitted: 0, bytes: 1 };
        const plan = { ...w.plan, delete: del };
        return { target, scan: { ...scan, storedBytes: 1 }, plan, dispose: async () => {} };
      },
      apply: async (planned, onProgress, signal) => {
        const applied = await apply(planned, onProgress, signal);
        // The drift watch sees the deletions (as the subscriptions in src/cmd judge them),
        // one during the sync, one after it.
        if (isDrift(refs[0]!)) w.memo.markDirty('ops');
        return applied;
      },
    });
    const first = await w.reconcile(catalog(), deps);
    expect(w.calls).to.include('apply');
    expect(isDrift(refs[1]!)).to.equal(false);
    expect((await w.reconcile(catalog({}, first.out.status), deps)).planned).to.equal(false);
    // A deletion by hand afterwards is drift.
    expect(isDrift({ ...refs[0]!, metadata: { name: 'kept' } })).to.equal(true);
  });

  it('drift seen while the sync ran: the next reconcile plans in full', async () => {
    const w = world();
    const plan = w.deps.ports.syncer.plan.bind(w.deps.ports.syncer);
    const deps = withSyncer(w.deps, {
      plan: async (target, signal) => {
        const planned = await plan(target, signal);
        w.memo.markDirty('ops'); // an object edited by hand after the list
        return planned;
      },
    });
    const first = await w.reconcile(catalog(), deps);
    expect((await w.reconcile(catalog({}, first.out.status))).planned).to.equal(true);
  });

  it('a new digest: plans in full', async () => {
    const w = world();
    const first = await w.reconcile();
    w.setDigest(OTHER_DIGEST);
    expect((await w.reconcile(catalog({}, first.out.status))).planned).to.equal(true);
  });

  it('changed sync options (max object bytes, the content URL): plans in full', async () => {
    const w = world();
    const first = await w.reconcile();
    const smaller = { ...w.deps, settings: { ...w.deps.settings, maxObjectBytes: 1000 } };
    expect((await w.reconcile(catalog({}, first.out.status), smaller)).planned).to.equal(true);
    const moved = {
      ...smaller,
      ports: {
        ...w.deps.ports,
        content: { ...w.deps.ports.content, blobUrl: () => 'http://elsewhere.example/blob' },
      },
    };
    expect((await w.reconcile(catalog({}, first.out.status), moved)).planned).to.equal(true);
    expect((await w.reconcile(catalog({}, first.out.status), moved)).planned).to.equal(false);
  });

  it('a new owner uid or a new generation: plans in full', async () => {
    const w = world();
    const first = await w.reconcile();
    expect((await w.reconcile(catalog({ uid: 'uid-2' }, first.out.status))).planned).to.equal(true);
    expect(
      (await w.reconcile(catalog({ uid: 'uid-2', generation: 4 }, first.out.status))).planned,
    ).to.equal(true);
  });

  it('a failed sync since the last success: plans in full', async () => {
    const w = world();
    const first = await w.reconcile();
    w.failPulls(new Error('registry down'));
    expect((await w.reconcile(catalog({}, first.out.status))).out.error).to.not.equal(undefined);
    w.failPulls(undefined);
    expect((await w.reconcile(catalog({}, first.out.status))).planned).to.equal(true);
  });

  it('no memo (a restart: nothing in memory): plans every time', async () => {
    const w = world();
    const { syncMemo: _none, ...ports } = w.deps.ports;
    const deps = { ...w.deps, ports };
    const first = await w.reconcile(catalog(), deps);
    expect((await w.reconcile(catalog({}, first.out.status), deps)).planned).to.equal(true);
  });
});
