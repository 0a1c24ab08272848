// The inner reconcile with no client: the world is small in-memory implementations of its own
// narrow interfaces (reconcile-world.test.ts).
import { expect } from 'chai';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import { FbcError } from '../../fbc/index.js';
import { retryable, terminal } from '../../source/errors.js';
import { isTerminal } from '../../util/errors.js';
import { reconcileCatalog } from './reconcile.js';
import { DIGEST, HASH, PREV_HASH, catalog, cond, world } from './reconcile-world.test.js';
import type { World } from './reconcile-world.test.js';

describe('reconcileCatalog', () => {
  it('syncs and reports Serving/Succeeded with the resolved digest, hash, count and poll', async () => {
    const w = world({ plan: { create: ['a', 'b'], unchanged: 5 } });
    const out = await reconcileCatalog(catalog(), w.deps);
    expect(out.error).to.equal(undefined);
    expect(out.status.resolvedSource?.image.ref).to.equal(`registry.example/ops/catalog@${DIGEST}`);
    expect(out.status.contentHash).to.equal(HASH);
    expect(out.status.objectCount).to.equal(7);
    expect(out.status.storedBytes).to.equal(4321);
    expect(out.status.urls?.base).to.equal('http://content.example/catalogs/ops');
    expect(out.status.lastUnpacked).to.equal('2026-01-02T03:04:05Z');
    expect(out.status.syncingTo).to.equal(undefined);
    expect(out.status.observedGeneration).to.equal(3);
    expect(cond(out.status, 'Serving')).to.include({
      status: 'True',
      reason: 'Available',
      observedGeneration: 3,
    });
    expect(cond(out.status, 'Progressing')).to.include({ status: 'True', reason: 'Succeeded' });
    expect(out.requeueAfterMs).to.equal(10 * 60_000 * 1.05);
    expect(out.events.map((e) => e.reason)).to.deep.equal(['Synced']);
    expect(out.status.objectSourceRef).to.equal(`registry.example/ops/catalog@${DIGEST}`);
    // The HTTP content is stored and served before the objects are written.
    expect(w.calls.indexOf('prepare')).to.be.lessThan(w.calls.indexOf('publish'));
    expect(w.calls.indexOf('publish')).to.be.lessThan(w.calls.indexOf('apply'));
  });

  it('closes the drift watch while a sync of at least fromWrites writes sends them, failed or not', async () => {
    const hold = (w: World) => ({
      hold: () => {
        w.calls.push('hold');
        return () => void w.calls.push('release');
      },
    });
    const big = world({
      plan: { create: ['a', 'b'], update: [{ name: 'c', resourceVersion: '1' }] },
    });
    big.deps.ports.driftWatchHold = hold(big);
    big.deps.settings.driftWatchPauseWrites = 3;
    expect((await reconcileCatalog(catalog(), big.deps)).error).to.equal(undefined);
    const order = ['hold', 'apply', 'release'].map((c) => big.calls.indexOf(c));
    expect(order).to.deep.equal([...order].sort((a, b) => a - b));
    expect(order[0]).to.be.greaterThan(-1);

    const small = world({ plan: { create: ['a', 'b'] } });
    small.deps.ports.driftWatchHold = hold(small);
    small.deps.settings.driftWatchPauseWrites = 3;
    await reconcileCatalog(catalog(), small.deps);
    expect(small.calls).to.include('apply');
    expect(small.calls).to.not.include('hold');

    const failed = world({ plan: { create: ['a', 'b', 'c'] } });
    failed.deps.ports.driftWatchHold = hold(failed);
    failed.deps.settings.driftWatchPauseWrites = 3;
    failed.deps.ports.syncer.apply = () => Promise.reject(new Error('admission said no'));
    expect((await reconcileCatalog(catalog(), failed.deps)).error).to.not.equal(undefined);
    expect(failed.calls.filter((c) => c === 'hold' || c === 'release')).to.deep.equal([
      'hold',
      'release',
    ]);
  });

  it('journals the target contentHash in syncingTo before writing', async () => {
    const w = world({ plan: { update: [{ name: 'x', resourceVersion: '1' }] } });
    await reconcileCatalog(catalog(), w.deps);
    // The first write is the HTTP view (publish step), the second the journal.
    expect(w.statusWrites[0]?.syncingTo).to.equal(undefined);
    expect(w.statusWrites[1]?.syncingTo).to.equal(HASH);
    expect(cond(w.statusWrites[1] ?? {}, 'ObjectsSynced')).to.include({
      status: 'False',
      reason: 'Writing',
      message: 'writing 0/1 objects',
    });
    // Upstream's meaning: Progressing is Succeeded once the revision is served, never Retrying
    // in a sync without an error (issue 54).
    for (const written of w.statusWrites)
      expect(cond(written, 'Progressing')).to.include({ status: 'True', reason: 'Succeeded' });
  });

  it('announces the HTTP view (Serving) before the plan, the object view after the writes', async () => {
    const prevRef = `registry.example/ops/catalog@sha256:${'9'.repeat(64)}`;
    const prev: ClusterCatalogStatus = {
      resolvedSource: { type: 'Image', image: { ref: prevRef } },
      urls: { base: 'http://content.example/catalogs/ops' },
      contentHash: PREV_HASH,
      objectSourceRef: prevRef,
      objectCount: 1,
      lastUnpacked: '2026-01-01T00:00:00Z',
    };
    const w = world({ plan: { create: ['a'] } });
    const out = await reconcileCatalog(catalog({}, prev), w.deps);
    expect(out.error).to.equal(undefined);
    // The first write, before the catalog is scanned for its objects: HTTP serves the new
    // revision, the objects are still the old one.
    expect(w.calls.indexOf('publish')).to.be.lessThan(w.calls.indexOf('scan'));
    const served = w.statusWrites[0] ?? {};
    expect(cond(served, 'Serving')).to.include({ status: 'True', reason: 'Available' });
    expect(served.urls?.base).to.equal('http://content.example/catalogs/ops');
    expect(served).to.include({ contentHash: PREV_HASH, objectSourceRef: prevRef });
    expect(served.syncingTo).to.equal(undefined);
    const journal = w.statusWrites[1] ?? {};
    expect(w.calls.slice(0, w.calls.indexOf('apply'))).to.include('publish');
    expect(journal.resolvedSource?.image.ref).to.equal(`registry.example/ops/catalog@${DIGEST}`);
    expect(journal.lastUnpacked).to.equal('2026-01-02T03:04:05Z');
    expect(cond(journal, 'Serving')).to.include({ status: 'True', reason: 'Available' });
    expect(journal).to.include({
      contentHash: PREV_HASH,
      syncingTo: HASH,
      objectSourceRef: prevRef,
      objectCount: 1,
    });
    // After the writes: the object view names the new revision, no journal.
    expect(out.status).to.include({
      contentHash: HASH,
      objectSourceRef: `registry.example/ops/catalog@${DIGEST}`,
    });
    expect(out.status.syncingTo).to.equal(undefined);
  });

  it('writes nothing, records no event and keeps lastUnpacked when nothing changed', async () => {
    const w = world();
    const first = await reconcileCatalog(catalog(), w.deps);
    const later = {
      ...w.deps,
      clock: { ...w.deps.clock, date: () => new Date('2026-01-03T00:00:00Z') },
    };
    w.statusWrites.length = 0;
    const again = await reconcileCatalog(catalog({}, first.status), later);
    expect(w.statusWrites).to.deep.equal([]);
    expect(again.events).to.deep.equal([]);
    expect(again.status).to.deep.equal(first.status);
  });

  it('counts the objects that carry contentOmitted, unchanged and written', async () => {
    const w = world({
      plan: { create: ['a'], unchanged: 6, unchangedOmitted: 2 },
      appliedOmitted: 1,
    });
    const out = await reconcileCatalog(catalog(), w.deps);
    expect(cond(out.status, 'Progressing')?.message).to.equal(
      `synced 7 objects of content ${HASH}; 3 too large for the apiserver carry contentOmitted (content on the HTTP server)`,
    );
    // Later, nothing to write: the same count from the plan alone, so no status change.
    const again = await reconcileCatalog(
      catalog({}, out.status),
      world({ plan: { unchanged: 7, unchangedOmitted: 3 } }).deps,
    );
    expect(again.status).to.deep.equal(out.status);
  });

  describe('content profile', () => {
    const annotated = (value: string, status?: ClusterCatalogStatus): ClusterCatalog => {
      const c = catalog({}, status);
      c.metadata.annotations = { 'olm.operatorframework.io/content-profile': value };
      return c;
    };
    const targets = (w: World) => {
      const profiles: Array<string | undefined> = [];
      const plan = w.deps.ports.syncer.plan.bind(w.deps.ports.syncer);
      w.deps.ports.syncer = {
        ...w.deps.ports.syncer,
        plan: (target, signal) => {
          profiles.push(target.contentProfile);
          return plan(target, signal);
        },
      };
      return profiles;
    };

    it("syncs with the controller's profile, which the catalog's annotation overrides", async () => {
      const w = world();
      const profiles = targets(w);
      await reconcileCatalog(catalog(), w.deps);
      await reconcileCatalog(catalog(), {
        ...w.deps,
        settings: { ...w.deps.settings, contentProfile: 'lean' },
      });
      await reconcileCatalog(annotated('lean'), w.deps);
      await reconcileCatalog(annotated('full'), {
        ...w.deps,
        settings: { ...w.deps.settings, contentProfile: 'lean' },
      });
      expect(profiles).to.deep.equal(['full', 'lean', 'lean', 'full']);
    });

    it('says lean in the Progressing message of a lean catalog, deterministically', async () => {
      const out = await reconcileCatalog(annotated('lean'), world().deps);
      expect(cond(out.status, 'Progressing')?.message).to.equal(
        `synced 7 objects of content ${HASH}; content profile lean: display-only parts are left out of the objects (whole blobs on the HTTP server)`,
      );
      const again = await reconcileCatalog(annotated('lean', out.status), world().deps);
      expect(again.status).to.deep.equal(out.status);
      const full = await reconcileCatalog(catalog(), world().deps);
      expect(cond(full.status, 'Progressing')?.message).to.equal(
        `synced 7 objects of content ${HASH}`,
      );
    });

    it('says none in the Progressing message of a catalog with no objects', async () => {
      const w = world({ plan: { unchanged: 0 } });
      w.deps.ports.syncer.plan = async (target) => ({
        target,
        scan: {
          desired: new Map(),
          contentHash: HASH,
          blobs: 0,
          omitted: 0,
          bytes: 100,
          storedBytes: 0,
        },
        plan: { create: [], update: [], delete: [], unchanged: 0, unchangedOmitted: 0 },
        dispose: async () => {},
      });
      const out = await reconcileCatalog(annotated('none'), w.deps);
      expect(out.status).to.include({ contentHash: HASH, objectCount: 0, storedBytes: 0 });
      expect(cond(out.status, 'Serving')).to.include({ status: 'True', reason: 'Available' });
      expect(cond(out.status, 'Progressing')?.message).to.equal(
        `synced content ${HASH}; content profile none: no CatalogMetadata objects (content on the HTTP server only)`,
      );
    });

    it('is Blocked by an annotation that names no profile, before pulling anything', async () => {
      const w = world();
      const served = await reconcileCatalog(catalog(), world().deps);
      const out = await reconcileCatalog(annotated('Lean', served.status), w.deps);
      expect(isTerminal(out.error?.cause)).to.equal(true);
      expect(cond(out.status, 'Progressing')).to.include({
        status: 'False',
        reason: 'Blocked',
        message:
          'annotation olm.operatorframework.io/content-profile: "Lean" is not a content profile ("full", "lean" or "none")',
      });
      // The revision synced before keeps serving.
      expect(cond(out.status, 'Serving')).to.include({ status: 'True' });
      expect(w.calls).to.deep.equal([]);
    });
  });

  it('does not poll a digest reference', async () => {
    const ref = `registry.example/ops/catalog@${DIGEST}`;
    const out = await reconcileCatalog(
      catalog({ source: { type: 'Image', image: { ref } } }),
      world().deps,
    );
    expect(out.requeueAfterMs).to.equal(undefined);
  });

  it('is Blocked on a terminal source error, and not Serving when nothing was served', async () => {
    const w = world({ pullError: terminal('NotFound', 'manifest unknown') });
    const out = await reconcileCatalog(catalog(), w.deps);
    expect(isTerminal(out.error?.cause)).to.equal(true);
    expect(cond(out.status, 'Progressing')).to.include({ status: 'False', reason: 'Blocked' });
    expect(cond(out.status, 'Serving')).to.include({ status: 'False', reason: 'Unavailable' });
    expect(out.events[0]).to.include({ type: 'Warning', reason: 'SyncFailed' });
  });

  it('keeps serving the previous content while retrying a transient error', async () => {
    const ok = await reconcileCatalog(catalog(), world().deps);
    const w = world({ pullError: retryable('Unavailable', 'registry unreachable (ECONNREFUSED)') });
    const out = await reconcileCatalog(catalog({}, ok.status), w.deps);
    expect(isTerminal(out.error?.cause)).to.equal(false);
    expect(cond(out.status, 'Progressing')).to.include({ status: 'True', reason: 'Retrying' });
    expect(cond(out.status, 'Serving')).to.include({ status: 'True', reason: 'Available' });
    expect(out.status.contentHash).to.equal(HASH);
  });

  it('treats an FBC error as terminal for a digest reference and retryable for a tag', async () => {
    const bad = new FbcError('missing schema', { file: 'a.json' });
    const tag = await reconcileCatalog(catalog(), world({ scanError: bad }).deps);
    expect(isTerminal(tag.error?.cause)).to.equal(false);
    const ref = `registry.example/ops/catalog@${DIGEST}`;
    const digest = await reconcileCatalog(
      catalog({ source: { type: 'Image', image: { ref } } }),
      world({ scanError: bad }).deps,
    );
    expect(isTerminal(digest.error?.cause)).to.equal(true);
    expect(cond(digest.status, 'Progressing')?.message).to.contain('missing schema');
  });

  it('writes catalog text into the Progressing message and the Event as one line, controls made visible', async () => {
    // The image's author names a file to erase the line above and forge one, and puts a C1 CSI
    // and an OSC 52 clipboard write in a value the parser quotes.
    const file = 'evil\n\x1b[1A\x1b[2KProgressing: True.json';
    const position = { file, line: 3, column: 7, offset: 40 };
    const bad = new FbcError('cannot decode !!str `\u009b2J\x1b]52;c;cHduZWQ=\x07` as a !!int', {
      position,
    });
    const out = await reconcileCatalog(catalog(), world({ scanError: bad }).deps);
    const want =
      '"evil\\n\\u001b[1A\\u001b[2KProgressing: True.json":3:7: cannot decode !!str `<U+009B>2J^[]52;c;cHduZWQ=^G` as a !!int';
    expect(cond(out.status, 'Progressing')?.message).to.equal(want);
    expect(out.events.map((e) => e.message)).to.deep.equal([want]);
  });

  it('retries a transient read error (EMFILE, EIO) of a digest-pinned catalog', async () => {
    const ref = `registry.example/ops/catalog@${DIGEST}`;
    const spec = { source: { type: 'Image' as const, image: { ref } } };
    const emfile = Object.assign(new Error('too many open files'), { code: 'EMFILE' });
    const io = new FbcError('cannot read file', {
      file: 'a.json',
      retryClass: 'io',
      cause: emfile,
    });
    const out = await reconcileCatalog(catalog(spec), world({ scanError: io }).deps);
    expect(isTerminal(out.error?.cause)).to.equal(false);
    expect(cond(out.status, 'Progressing')).to.include({
      status: 'True',
      reason: 'Retrying',
      message: 'a.json: cannot read file: too many open files',
    });
    const content = new FbcError('missing schema', { file: 'a.json' });
    const blocked = await reconcileCatalog(catalog(spec), world({ scanError: content }).deps);
    expect(cond(blocked.status, 'Progressing')).to.include({
      status: 'False',
      reason: 'Blocked',
      message: 'a.json: missing schema',
    });
    const tag = await reconcileCatalog(catalog(), world({ scanError: content }).deps);
    expect(cond(tag.status, 'Progressing')).to.include({ status: 'True', reason: 'Retrying' });
  });

  it('removes content and objects when Unavailable', async () => {
    const ok = await reconcileCatalog(catalog(), world().deps);
    const w = world();
    const out = await reconcileCatalog(
      catalog({ availabilityMode: 'Unavailable' }, ok.status),
      w.deps,
    );
    expect(w.calls).to.include.members(['remove', 'deleteAll']);
    expect(w.calls).to.not.include('resolve');
    expect(cond(out.status, 'Serving')).to.include({
      status: 'False',
      reason: 'UserSpecifiedUnavailable',
    });
    expect(out.status.objectCount).to.equal(0);
    expect(out.status.contentHash).to.equal(undefined);
    expect(out.status.urls).to.equal(undefined);
  });

  it('reports nothing when the reconcile was aborted (shutdown, lost leadership)', async () => {
    const ctl = new AbortController();
    const w = world({ pullError: new Error('aborted') });
    ctl.abort(new Error('shutdown requested: SIGTERM'));
    let thrown: unknown;
    await reconcileCatalog(catalog(), w.deps, ctl.signal).catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
    expect(w.statusWrites).to.deep.equal([]);
  });
});
