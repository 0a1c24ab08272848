// Each reconcile step alone, over a state built by hand: what it reads, what it adds.
import { expect } from 'chai';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../../api/v1/index.js';
import { FbcError } from '../../../fbc/index.js';
import type { PlannedSync, SyncPlan } from '../../../sync/index.js';
import { isTerminal } from '../../../util/errors.js';
import { ManualClock } from '../../../util/clock.js';
import type { ReconcileDeps, ReconcilePorts, ReconcileSettings } from '../ports.js';
import { removeIfUnavailable } from './availability.js';
import { scanAndPlan } from './plan.js';
import { prepareContent } from './prepare.js';
import { publishContent } from './publish.js';
import { resolveAndPull } from './resolve.js';
import type { ReconcileState } from '../pipeline/state.js';
import { newReconcileState } from '../pipeline/state.js';
import { summarize } from '../pipeline/summarize.js';
import { writeObjects } from './write.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const HASH = `sha256:${'b'.repeat(64)}`;
const PREV_HASH = `sha256:${'e'.repeat(64)}`;
const NOW = new Date('2026-01-02T03:04:05Z');

function catalog(ref: string, over: Partial<ClusterCatalog['spec']> = {}): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'ops', uid: 'uid-1', generation: 2 },
    spec: {
      source: { type: 'Image', image: { ref, pollIntervalMinutes: 5 } },
      priority: 0,
      availabilityMode: 'Available',
      ...over,
    },
  };
}

function planned(plan: Partial<SyncPlan> = {}): PlannedSync {
  return {
    target: {
      catalog: { name: 'ops', uid: 'uid-1' },
      dir: '/d',
      maxObjectBytes: 1,
      contentUrl: () => '',
    },
    scan: { desired: new Map(), contentHash: HASH, blobs: 3, omitted: 0, bytes: 1, storedBytes: 1 },
    plan: { create: [], update: [], delete: [], unchanged: 3, unchangedOmitted: 1, ...plan },
    dispose: async () => {},
  };
}

function fixture(
  ref = 'registry.example/ops/catalog:v1',
  over: Partial<ReconcilePorts> = {},
  settings: Partial<ReconcileSettings> = {},
) {
  const calls: string[] = [];
  const writes: ClusterCatalogStatus[] = [];
  const ports: ReconcilePorts = {
    puller: {
      resolve: async (r) => {
        calls.push(`resolve ${r}`);
        return DIGEST;
      },
      pull: async (r) => {
        calls.push(`pull ${r}`);
        return { ref: r, digest: DIGEST, dir: '/c', configsDir: '/c/configs', cached: true };
      },
    },
    syncer: {
      plan: async () => planned(),
      apply: async () => ({ omitted: 0, storedBytesDelta: 0 }),
      deleteAll: async () => 2,
    },
    content: {
      baseUrl: (c, hash) => `http://content.example/catalogs/${c}/revisions/${hash.slice(7, 23)}`,
      blobUrl: () => '',
      prepare: async (_c, dir, opts) => {
        calls.push(`prepare ${dir} known=${opts?.known ?? '-'}`);
        return HASH;
      },
      publish: async (_c, hash) => void calls.push(`publish ${hash}`),
      remove: async () => void calls.push('remove'),
    },
    status: { write: async (s) => void writes.push(structuredClone(s)) },
    ...over,
  };
  const deps: ReconcileDeps = {
    ports,
    settings: { maxObjectBytes: 1 << 20, ...settings },
    clock: {
      date: () => NOW,
      random: () => 0,
      // The attempt's pull timeout on a manual clock: a real 10-minute timer per state would
      // keep the test process alive for 10 minutes after the last test.
      timers: new ManualClock(),
    },
  };
  const state = newReconcileState(catalog(ref), deps);
  // As the content-profile step leaves it (the steps after it read the decided profile).
  state.profile = deps.settings.contentProfile ?? 'full';
  return { state, deps, calls, writes };
}

/** A state as the resolve step leaves it. */
async function resolved(f: ReturnType<typeof fixture>): Promise<ReconcileState> {
  await resolveAndPull(f.state);
  return f.state;
}

/** A state as the prepare and publish steps leave it. */
async function published(f: ReturnType<typeof fixture>): Promise<ReconcileState> {
  await prepareContent(await resolved(f));
  await publishContent(f.state);
  return f.state;
}

describe('reconcile steps', () => {
  it('availability: removes content and objects of an Unavailable catalog only', async () => {
    const f = fixture();
    expect(await removeIfUnavailable(f.state)).to.equal(undefined);
    const g = fixture();
    const state = newReconcileState(
      {
        ...catalog('r.example/x:1', { availabilityMode: 'Unavailable' }),
        status: { contentHash: HASH },
      },
      g.deps,
    );
    expect(await removeIfUnavailable(state)).to.deep.equal({ kind: 'unavailable' });
    expect(g.calls).to.deep.equal(['remove']);
    expect(state.status).to.deep.equal({ objectCount: 0, storedBytes: 0, observedGeneration: 2 });
    expect(state.events.map((e) => e.message)).to.deep.equal(['deleted 2 CatalogMetadata objects']);
  });

  it('resolve: pulls the resolved digest of the parsed reference', async () => {
    const f = fixture('registry.example/ops/catalog:v1');
    await resolveAndPull(f.state);
    expect(f.calls).to.deep.equal([
      'resolve registry.example/ops/catalog:v1',
      `pull registry.example/ops/catalog@${DIGEST}`,
    ]);
    expect(f.state.image).to.include({ repository: 'ops/catalog', tag: 'v1' });
    // Parsed by src/source/reference.ts, as the puller does: a port is not a tag, and a short
    // Docker Hub name is normalized.
    const g = fixture('localhost:5000/catalog:v1');
    await resolveAndPull(g.state);
    expect(g.calls[1]).to.equal(`pull localhost:5000/catalog@${DIGEST}`);
    const h = fixture(`busybox:1@${DIGEST}`);
    await resolveAndPull(h.state);
    expect(h.calls[1]).to.equal(`pull docker.io/library/busybox@${DIGEST}`);
  });

  /**
   * Whether the step's error is terminal for a content and an io error of the FBC, under a digest
   * and under a tag; `failing` makes the fixture's port fail with the error.
   */
  async function terminalities(
    step: (f: ReturnType<typeof fixture>) => Promise<unknown>,
    failing: (err: Error) => Partial<ReconcilePorts>,
  ): Promise<boolean[]> {
    const content = new FbcError('missing schema', { file: 'a.json' });
    const io = new FbcError('cannot read', { file: 'a.json', retryClass: 'io' });
    const digestRef = `registry.example/ops/catalog@${DIGEST}`;
    const cases: Array<[string, Error]> = [
      [digestRef, content],
      [digestRef, io],
      ['registry.example/ops/catalog:v1', content],
    ];
    const out: boolean[] = [];
    for (const [ref, err] of cases) {
      const caught = await step(fixture(ref, failing(err))).then(
        () => undefined,
        (e: unknown) => e,
      );
      out.push(isTerminal(caught));
    }
    return out;
  }

  it('plan: a content error is terminal under a digest, an io error never is', async () => {
    const failingPlan = (err: Error) => ({
      syncer: { ...fixture().deps.ports.syncer, plan: async () => Promise.reject(err) },
    });
    const plan = async (f: ReturnType<typeof fixture>) => scanAndPlan(await published(f));
    expect(await terminalities(plan, failingPlan)).to.deep.equal([true, false, false]);
    const f = fixture();
    await scanAndPlan(await published(f));
    expect(f.state.planned?.scan.contentHash).to.equal(HASH);
    expect(f.state.omitted).to.equal(1);
  });

  it('prepare: builds the revision first; a content error is terminal under a digest only', async () => {
    const f = fixture();
    await prepareContent(await resolved(f));
    expect(f.calls.at(-1)).to.equal('prepare /c/configs known=-');
    expect(f.state.revision).to.equal(HASH);
    const failingPrepare = (err: Error) => ({
      content: { ...fixture().deps.ports.content, prepare: async () => Promise.reject(err) },
    });
    const prepare = async (g: ReturnType<typeof fixture>) => prepareContent(await resolved(g));
    expect(await terminalities(prepare, failingPrepare)).to.deep.equal([true, false, false]);
  });

  it('prepare: the revision status names for the same image is known (no parse if stored)', async () => {
    const f = fixture();
    const ref = `registry.example/ops/catalog@${DIGEST}`;
    f.state.status = {
      ...f.state.status,
      resolvedSource: { type: 'Image', image: { ref } },
      urls: { base: `http://content.example/catalogs/ops/revisions/${PREV_HASH.slice(7, 23)}` },
    };
    const state = newReconcileState(
      { ...catalog('registry.example/ops/catalog:v1'), status: f.state.status },
      f.deps,
    );
    await resolveAndPull(state);
    await prepareContent(state);
    expect(f.calls.at(-1)).to.equal(`prepare /c/configs known=${PREV_HASH.slice(7, 23)}`);
    // Objects of the same image name their contentHash when urls.base is not ours (pruned).
    const g = fixture();
    const other = newReconcileState(
      {
        ...catalog('registry.example/ops/catalog:v1'),
        status: { contentHash: PREV_HASH, objectSourceRef: ref },
      },
      g.deps,
    );
    await resolveAndPull(other);
    await prepareContent(other);
    expect(g.calls.at(-1)).to.equal(`prepare /c/configs known=${PREV_HASH}`);
  });

  it('plan: a scan that reads another revision than the one served serves the scanned one', async () => {
    const f = fixture('registry.example/ops/catalog:v1', {
      content: {
        ...fixture().deps.ports.content,
        prepare: async () => PREV_HASH,
        publish: async (_c, hash) => void f.calls.push(`publish ${hash}`),
      },
    });
    await published(f);
    expect(f.calls.at(-1)).to.equal(`publish ${PREV_HASH}`);
    await scanAndPlan(f.state);
    expect(f.calls.at(-1)).to.equal(`publish ${HASH}`);
    expect(f.state.status.urls?.base).to.equal(
      `http://content.example/catalogs/ops/revisions/${HASH.slice(7, 23)}`,
    );
  });

  it('write: nothing to write, no journal', async () => {
    const f = fixture();
    await scanAndPlan(await published(f));
    f.writes.length = 0;
    await writeObjects(f.state);
    expect(f.writes).to.deep.equal([]);
    expect(f.state.events).to.deep.equal([]);
  });

  it('write: journals syncingTo first, rolls back a failed write and notes it', async () => {
    const applied: string[] = [];
    const f = fixture('registry.example/ops/catalog:v1', {
      syncer: {
        plan: async (target) => ({ ...planned({ create: ['x'] }), target }),
        apply: async () => {
          applied.push('apply');
          throw new Error('denied by policy');
        },
        deleteAll: async () => {
          applied.push('deleteAll');
          return 1;
        },
      },
    });
    await scanAndPlan(await published(f));
    f.writes.length = 0;
    const err = await writeObjects(f.state).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.equal('denied by policy');
    expect(f.writes[0]?.syncingTo).to.equal(HASH);
    expect(applied).to.deep.equal(['apply', 'deleteAll']);
    expect(f.state.status.syncingTo).to.equal(undefined);
    expect(f.state.failureNote).to.equal('; rolled back (no previous content)');
  });

  it('publish: serves the revision and names it in the HTTP view only', async () => {
    const f = fixture();
    f.state.status = { ...f.state.status, contentHash: PREV_HASH, syncingTo: PREV_HASH };
    await published(f);
    expect(f.calls.at(-1)).to.equal(`publish ${HASH}`);
    expect(f.state.status).to.deep.include({
      resolvedSource: { type: 'Image', image: { ref: `registry.example/ops/catalog@${DIGEST}` } },
      lastUnpacked: '2026-01-02T03:04:05Z',
    });
    // urls.base names the published revision (docs/api.md, "status.urls.base").
    expect(f.state.status.urls?.base).to.equal(
      `http://content.example/catalogs/ops/revisions/${HASH.slice(7, 23)}`,
    );
    // The object view is the write step's: untouched, and no poll before the sync succeeded.
    expect(f.state.status).to.deep.include({ contentHash: PREV_HASH, syncingTo: PREV_HASH });
    expect(f.state.requeueAfterMs).to.equal(undefined);
    // Written at once, Serving=True, before the objects are even planned.
    expect(f.writes).to.have.length(1);
    expect(f.writes[0]?.urls?.base).to.equal(f.state.status.urls?.base);
    expect(f.writes[0]?.conditions?.map((c) => [c.type, c.status, c.message])).to.deep.equal([
      ['Serving', 'True', 'serving the content of the resolved source'],
      ['Progressing', 'True', `serving content ${HASH}`],
      ['ObjectsSynced', 'False', `planning the objects of content ${HASH}`],
    ]);
  });

  it('publish: the HTTP view is written at once when it changed, under any profile; else not', async () => {
    const ref = `registry.example/ops/catalog@${DIGEST}`;
    const served = {
      resolvedSource: { type: 'Image' as const, image: { ref } },
      urls: { base: `http://content.example/catalogs/ops/revisions/${HASH.slice(7, 23)}` },
      contentHash: HASH,
    };
    // The same image, served already (a reconcile after drift): nothing new to say before the
    // objects.
    const f = fixture();
    const same = newReconcileState(
      { ...catalog('registry.example/ops/catalog:v1'), status: served },
      f.deps,
    );
    await resolveAndPull(same);
    await prepareContent(same);
    await publishContent(same);
    expect(f.writes).to.deep.equal([]);
    // A new digest of the same content, and the profile none: the scan still follows.
    const g = fixture();
    const newDigest = newReconcileState(
      { ...catalog('registry.example/ops/catalog:v1'), status: { contentHash: HASH } },
      g.deps,
    );
    await resolveAndPull(newDigest);
    await prepareContent(newDigest);
    await publishContent(newDigest);
    expect(g.writes).to.have.length(1);
    const h = fixture(undefined, {}, { contentProfile: 'none' });
    await published(h);
    expect(h.writes).to.have.length(1);
  });

  it('write: the object view names the new revision after the writes, and a tag is polled', async () => {
    const f = fixture();
    f.state.status = { ...f.state.status, syncingTo: PREV_HASH };
    await scanAndPlan(await published(f));
    await writeObjects(f.state);
    expect(f.state.status).to.deep.include({
      contentHash: HASH,
      objectCount: 3,
      objectSourceRef: `registry.example/ops/catalog@${DIGEST}`,
    });
    expect(f.state.status.syncingTo).to.equal(undefined);
    expect(f.state.requeueAfterMs).to.equal(5 * 60_000);
    const g = fixture(`registry.example/ops/catalog@${DIGEST}`);
    await scanAndPlan(await published(g));
    await writeObjects(g.state);
    expect(g.state.requeueAfterMs).to.equal(undefined);
  });

  it('write: the journal carries the HTTP view and Serving=True while objects are written', async () => {
    const f = fixture('registry.example/ops/catalog:v1', {
      syncer: {
        ...fixture().deps.ports.syncer,
        plan: async (target) => ({ ...planned({ create: ['x'] }), target }),
      },
    });
    f.state.status = { ...f.state.status, contentHash: PREV_HASH };
    await scanAndPlan(await published(f));
    await writeObjects(f.state);
    const journal = f.writes[1]!;
    expect(journal).to.deep.include({ contentHash: PREV_HASH, syncingTo: HASH });
    expect(journal.urls?.base).to.equal(
      `http://content.example/catalogs/ops/revisions/${HASH.slice(7, 23)}`,
    );
    expect(journal.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
      ['Serving', 'True', 'Available', 'serving the content of the resolved source'],
      ['Progressing', 'True', 'Succeeded', `serving content ${HASH}`],
      ['ObjectsSynced', 'False', 'Writing', 'writing 0/1 objects'],
    ]);
  });

  it('summarize: the only step that sets conditions', async () => {
    const f = fixture();
    const failed = summarize(f.state, { kind: 'failed', err: new Error('registry unreachable') });
    expect(failed.error?.message).to.equal('registry unreachable');
    expect(failed.status.conditions?.map((c) => [c.type, c.status, c.reason])).to.deep.equal([
      ['Serving', 'False', 'Unavailable'],
      ['Progressing', 'True', 'Retrying'],
    ]);
    const g = fixture();
    g.state.status = { ...g.state.status, contentHash: HASH, objectCount: 3 };
    const synced = summarize(g.state, { kind: 'synced' });
    expect(synced.status.conditions?.map((c) => [c.type, c.reason, c.message])).to.deep.equal([
      ['Serving', 'Available', 'serving the content of the resolved source'],
      ['Progressing', 'Succeeded', `synced 3 objects of content ${HASH}`],
      ['ObjectsSynced', 'Synced', `3 objects of content ${HASH}`],
    ]);
  });

  it('summarize: a CRD that prunes our status fields is said first in Progressing', async () => {
    const problem = 'the ClusterCatalog CRD the apiserver serves lacks the status fields x';
    const f = fixture(undefined, { crdProblem: () => problem });
    f.state.status = { ...f.state.status, contentHash: HASH, objectCount: 3 };
    const synced = summarize(f.state, { kind: 'synced' });
    expect(
      synced.status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    ).to.deep.equal([
      ['Serving', 'True', 'Available', 'serving the content of the resolved source'],
      ['Progressing', 'True', 'Retrying', `${problem}; synced 3 objects of content ${HASH}`],
      ['ObjectsSynced', 'True', 'Synced', `3 objects of content ${HASH}`],
    ]);
    const g = fixture(undefined, { crdProblem: () => problem });
    const failed = summarize(g.state, { kind: 'failed', err: new Error('registry unreachable') });
    expect(failed.error?.message).to.equal(`${problem}; registry unreachable`);
    expect(failed.status.conditions?.at(-1)?.message).to.equal(`${problem}; registry unreachable`);
  });
});
