// watch over a real content store through HTTP: live events when the catalog's revision changes,
// a watch resumed from any event's resourceVersion gets exactly the events after it, the
// WatchList protocol, selectors on events, the DELETED events of a deleted catalog, the leases a
// watch holds (its state's revisions, released as it moves on and when it ends), and 410 for a
// gone revision.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { pollUntil } from '../../test/support/poll.js';
import { streamOf } from '../server/test-catalogs.test.js';
import {
  catalogBlobs,
  CREATED,
  parseBlobs,
  servedFixture,
  viewCatalog,
  WatchStream,
} from './test-served.test.js';
import type { ParsedRevision, ServedFixture } from './test-served.test.js';

const BASE = '/apis/content.olm.operatorframework.io/v1/catalogmetadata';

interface WatchEvent {
  type: string;
  object: {
    kind: string;
    code?: number;
    metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string> };
    spec?: { package?: string };
  };
}

const brief = (e: WatchEvent) => `${e.type} ${e.object.metadata.name ?? ''}`;

/** The event's object without its resourceVersion (the state it was sent at). */
function objectAsIs(e: WatchEvent): unknown {
  const { resourceVersion: _, ...metadata } = e.object.metadata;
  return { ...e.object, metadata };
}

const poll = (what: string, check: () => boolean) =>
  pollUntil(async () => check(), { timeoutMs: 10_000, intervalMs: 20, what });

describe('served API watch (HTTP)', () => {
  let r1: ParsedRevision;
  let r2: ParsedRevision;
  let f: ServedFixture;
  const rv1 = () => `1_ops~${r1.key}f`;
  const rv2 = () => `1_ops~${r2.key}f`;
  const watch = (query: string, headers: Record<string, string> = {}) =>
    new WatchStream<WatchEvent>(f, BASE, query, headers);

  before(async () => {
    r1 = await parseBlobs('ops', catalogBlobs(1));
    r2 = await parseBlobs('ops', catalogBlobs(2, { dropBundle: true }));
  });
  beforeEach(async () => {
    f = await servedFixture('ops', [r1, r2]);
    f.source.set([viewCatalog('ops', r1.key)]);
  });
  afterEach(async () => {
    // Every request released what it leased.
    await f.source.leasesReleased();
    await f.close();
  });

  /** The events from r1 to r2, as a live watch sees them. */
  async function liveEvents(): Promise<WatchEvent[]> {
    const w = watch(`resourceVersion=${rv1()}`);
    try {
      // Nothing to catch up on: the change below is the first event.
      await w.started();
      f.source.set([viewCatalog('ops', r2.key)]);
      await pollUntil(async () => w.events.at(-1)?.object.metadata.resourceVersion === rv2(), {
        timeoutMs: 10_000,
        intervalMs: 20,
        what: 'the last event of the change',
      });
      return [...w.events];
    } finally {
      w.close();
    }
  }

  it('sends the change of revision as DELETED, then ADDED/MODIFIED, each with the state after it', async () => {
    const events = await liveEvents();
    expect(events.map((e) => e.type)).to.deep.equal([
      'DELETED',
      'DELETED',
      'ADDED',
      'MODIFIED',
      'MODIFIED',
    ]);
    expect(events.map((e) => e.object.metadata.resourceVersion)).to.deep.equal([
      `${rv1()}_-ops~${r2.key}f~1`,
      `${rv1()}_-ops~${r2.key}f~2`,
      `${rv1()}_-ops~${r2.key}f~3`,
      `${rv1()}_-ops~${r2.key}f~4`,
      rv2(),
    ]);
    expect(events[0]!.object.kind).to.equal('CatalogMetadata');
  });

  it('resumed from any event, sends exactly the events after it', async () => {
    const events = await liveEvents();
    for (let k = 0; k < events.length - 1; k++) {
      const w = watch(`resourceVersion=${events[k]!.object.metadata.resourceVersion}`);
      try {
        const got = await w.until(events.length - k - 1);
        expect(got.map(brief), `resumed after event ${k}`).to.deep.equal(
          events.slice(k + 1).map(brief),
        );
        expect(got.at(-1)!.object.metadata.resourceVersion).to.equal(rv2());
      } finally {
        w.close();
      }
    }
  });

  it('answers the WatchList protocol: ADDED for the current state, then the initial-events-end bookmark', async () => {
    f.source.set([viewCatalog('ops', r2.key)]);
    const w = watch(
      'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    try {
      const events = await w.until(r2.blobs.length + 1);
      expect(events.slice(0, -1).every((e) => e.type === 'ADDED')).to.equal(true);
      const end = events.at(-1)!;
      expect(end.type).to.equal('BOOKMARK');
      expect(end.object.metadata).to.deep.equal({
        resourceVersion: rv2(),
        annotations: { 'k8s.io/initial-events-end': 'true' },
      });
      expect(w.contentType).to.equal('application/json');
    } finally {
      w.close();
    }
  });

  it('with sendInitialEvents=false, starts at the current state: only the changes after it', async () => {
    const w = watch(
      'sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    try {
      await w.started();
      f.source.set([viewCatalog('ops', r2.key)]);
      const events = await w.until(5);
      expect(events.map((e) => e.type)).to.deep.equal([
        'DELETED',
        'DELETED',
        'ADDED',
        'MODIFIED',
        'MODIFIED',
      ]);
    } finally {
      w.close();
    }
  });

  it('sends Table events (kubectl get -w) with the object includeObject asks for', async () => {
    f.source.set([viewCatalog('ops', r2.key)]);
    const w = watch(`resourceVersion=${rv1()}&includeObject=Object`, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    try {
      const [e] = await w.until(1);
      const table = e!.object as unknown as {
        kind: string;
        rows: Array<{ cells: unknown[]; object: { kind: string } }>;
      };
      expect(table.kind).to.equal('Table');
      expect(table.rows[0]!.object.kind).to.equal('CatalogMetadata');
      expect(table.rows[0]!.cells[1]).to.equal('ops');
    } finally {
      w.close();
    }
  });

  it('sends only the events its label selector matches', async () => {
    f.source.set([viewCatalog('ops', r2.key)]);
    const w = watch(`resourceVersion=${rv1()}&labelSelector=package%3Dp2`);
    try {
      await pollUntil(async () => w.events.some((e) => e.type === 'MODIFIED'), {
        timeoutMs: 10_000,
        intervalMs: 20,
        what: 'p2 events',
      });
      expect(w.events.map((e) => e.type)).to.deep.equal(['DELETED', 'MODIFIED']);
      expect(w.events.every((e) => e.object.spec?.package === 'p2')).to.equal(true);
    } finally {
      w.close();
    }
  });

  it('sends a bookmark after the bookmark interval without events', async () => {
    // Far from its timeout, so that only the interval can send the bookmark.
    const w = watch(`resourceVersion=${rv1()}&allowWatchBookmarks=true&timeoutSeconds=3600`);
    try {
      await w.started();
      // Due now whether the watch is idle already (its timer fires) or not yet (it sends at once).
      await f.clock.advance(60_000);
      await w.until(1);
      expect(w.events[0]).to.deep.include({ type: 'BOOKMARK' });
      expect(w.events[0]!.object.metadata.resourceVersion).to.equal(rv1());
    } finally {
      w.close();
    }
  });

  it('ends with a bookmark at its timeout when bookmarks are allowed', async () => {
    const w = watch(`resourceVersion=${rv1()}&allowWatchBookmarks=true&timeoutSeconds=5`);
    try {
      await w.started();
      await f.clock.advance(5_000);
      await w.end();
      expect(w.events.map((e) => [e.type, e.object.metadata.resourceVersion])).to.deep.equal([
        ['BOOKMARK', rv1()],
      ]);
    } finally {
      w.close();
    }
  });

  it('close() resolves once each open watch has ended its response with its last bookmark', async () => {
    const w = watch(`resourceVersion=${rv1()}&allowWatchBookmarks=true`);
    try {
      await w.started();
      await f.api.close();
      // What a shutdown does next: the connections cut. The response was complete before.
      f.server.closeAllConnections();
      await w.end();
      expect(w.complete).to.equal(true);
      expect(w.events.map((e) => [e.type, e.object.metadata.resourceVersion])).to.deep.equal([
        ['BOOKMARK', rv1()],
      ]);
    } finally {
      w.close();
    }
  });

  it('sends an ERROR event with a 504 Status for a revision the status names but not held yet', async () => {
    f.source.set([viewCatalog('ops', 'aaaaaaaaaaaaaaaa')]);
    const w = watch(`resourceVersion=1_ops~aaaaaaaaaaaaaaaaf`);
    try {
      const [e] = await w.until(1);
      expect(e!.type).to.equal('ERROR');
      expect(e!.object).to.include({ kind: 'Status', code: 504 });
      expect(f.source.waits).to.equal(1);
    } finally {
      w.close();
    }
  });

  it('sends the DELETED events of its deleted catalog, then stays open', async () => {
    const w = watch('');
    try {
      // The initial ADDED events: r1's objects in blob order.
      const added = await w.until(r1.blobs.length);
      expect(added.every((e) => e.type === 'ADDED')).to.equal(true);
      expect(added.at(-1)!.object.metadata.resourceVersion).to.equal(rv1());
      await f.store.remove('ops');
      f.source.set([]);
      const n = r1.blobs.length;
      const deleted = (await w.until(2 * n)).slice(n);
      expect(deleted.map((e) => e.type)).to.deep.equal(added.map(() => 'DELETED'));
      // Each object as it was, in blob order, with the resourceVersion of the state after it.
      expect(deleted.map(objectAsIs)).to.deep.equal(added.map(objectAsIs));
      expect(deleted.map((e) => e.object.metadata.resourceVersion)).to.deep.equal(
        deleted.map((_, i) => (i + 1 < n ? `${rv1()}_-ops~0~${i + 1}` : '1')),
      );
      // Sent, the revision is released: the store deletes it.
      await poll(
        'the deleted revision released',
        () => f.store.retainedRevisions('ops').length === 0,
      );
      // Still open: a catalog added later comes as ADDED events.
      const dev = await parseBlobs('dev', catalogBlobs(1));
      await f.store.buildRevision('dev', dev.contentHash, streamOf(dev.blobs));
      await f.store.activate('dev', dev.contentHash, new Date(CREATED));
      f.source.set([viewCatalog('dev', dev.key)]);
      const later = (await w.until(2 * n + dev.blobs.length)).slice(2 * n);
      expect(later.every((e) => e.type === 'ADDED')).to.equal(true);
      expect(later.at(-1)!.object.metadata.resourceVersion).to.equal(`1_dev~${dev.key}f`);
      expect(w.ended).to.equal(false);
    } finally {
      w.close();
    }
  });

  it('releases the revisions it holds when it ends, whichever way', async () => {
    const w1 = watch(`resourceVersion=${rv1()}`);
    const w2 = watch(`resourceVersion=${rv1()}`);
    try {
      // Each open watch holds r1, the revision its state names.
      await poll('both watches holding r1', () => f.source.openLeases === 2);
      await f.store.remove('ops');
      expect(f.store.retainedRevisions('ops')).to.deep.equal([r1.contentHash]);
      // The client gone: its lease released, the other's still there.
      w1.close();
      await poll('the closed watch released r1', () => f.source.openLeases === 1);
      expect(f.store.retainedRevisions('ops')).to.deep.equal([r1.contentHash]);
      // Ended by close() (shutdown): the last lease released, the revision deleted.
      await f.api.close();
      await w2.end();
      expect(f.store.retainedRevisions('ops')).to.deep.equal([]);
      await pollUntil(
        async () =>
          access(path.join(f.store.root, 'ops')).then(
            () => false,
            () => true,
          ),
        { timeoutMs: 10_000, intervalMs: 20, what: "the catalog's directory deleted" },
      );
    } finally {
      w1.close();
      w2.close();
    }
  });

  it('releases the revisions it holds when it ends with an ERROR event', async () => {
    // r1 is held, then the transition's position is past the change's events: 410.
    const w = watch(`resourceVersion=${rv1()}_-ops~${r2.key}f~99`);
    try {
      const [e] = await w.until(1);
      expect(e!.type).to.equal('ERROR');
      expect(e!.object).to.include({ kind: 'Status', code: 410 });
      await w.end();
      await f.source.leasesReleased();
    } finally {
      w.close();
    }
  });

  it('open across updates, holds only the revision its state names, not the ones it left', async () => {
    const r3 = await parseBlobs('ops', catalogBlobs(3));
    await f.store.buildRevision('ops', r3.contentHash, streamOf(r3.blobs));
    await f.store.activate('ops', r3.contentHash, new Date(CREATED));
    const rv3 = `1_ops~${r3.key}f`;
    const w = watch(`resourceVersion=${rv1()}`);
    try {
      await w.started();
      f.source.set([viewCatalog('ops', r2.key)]);
      await poll(
        'the change to r2',
        () => w.events.at(-1)?.object.metadata.resourceVersion === rv2(),
      );
      f.source.set([viewCatalog('ops', r3.key)]);
      await poll(
        'the change to r3',
        () => w.events.at(-1)?.object.metadata.resourceVersion === rv3,
      );
      await poll('only r3 leased', () => f.source.openLeases === 1);
      // Deleted with the catalog: r1 and r2 at once, r3 retained for the watch.
      await f.store.remove('ops');
      expect(f.store.retainedRevisions('ops')).to.deep.equal([r3.contentHash]);
      expect(w.ended).to.equal(false);
    } finally {
      w.close();
    }
  });

  it('sends an ERROR event with a 410 Status when the revision it names is gone', async () => {
    const w = watch(`resourceVersion=1_ops~0123456789abcdeff`);
    try {
      const [e] = await w.until(1);
      expect(e!.type).to.equal('ERROR');
      expect(e!.object).to.include({ kind: 'Status', code: 410 });
    } finally {
      w.close();
    }
  });
});
