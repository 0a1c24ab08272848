// The ViewSource over a fake informer and store: catalogs sorted by name with the revision their
// status names (none when Unavailable), the profile from the annotation else the flag, deleted
// ones left out; listeners called (coalesced) on catalog events and content changes, not for
// the informer's replay; acquire and waitFor pass to the store.
import { expect } from 'chai';
import type { ClusterCatalog } from '../../api/v1/index.js';
import type { RevisionLease } from '../../server/index.js';
import type { CatalogIndex, HeldRevisions } from './view-source.js';
import { catalogViewSource } from './view-source.js';

const KEY = '0123456789abcdef';

function catalog(name: string, extra: Partial<ClusterCatalog> = {}): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name, uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { source: { type: 'Image', image: { ref: 'r/x:1' } }, priority: 5 },
    status: { urls: { base: `https://c.test/catalogs/${name}/revisions/${KEY}` } },
    ...extra,
  };
}

class FakeInformer implements CatalogIndex {
  items: ClusterCatalog[] = [];
  hasSynced = () => true;
  private subs: Array<(key: string) => void> = [];
  values() {
    return this.items.values();
  }
  subscribe(map: (c: ClusterCatalog) => string, enqueue: (key: string) => void) {
    this.subs.push(enqueue);
    for (const c of this.items) enqueue(map(c));
    return () => void (this.subs = this.subs.filter((s) => s !== enqueue));
  }
  emit(name: string) {
    for (const s of this.subs) s(name);
  }
}

class FakeContent implements HeldRevisions {
  private listeners = new Set<(c: string) => void>();
  acquired: Array<[string, string | undefined]> = [];
  store = {
    acquire: (catalog: string, revision?: string): RevisionLease | undefined => {
      this.acquired.push([catalog, revision]);
      return undefined;
    },
  };
  waitFor(catalog: string, revision: string) {
    return Promise.resolve(catalog === 'a' && revision === KEY);
  }
  onChange(listener: (c: string) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  change(c: string) {
    for (const l of this.listeners) l(c);
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('apiserver/setup/view-source', () => {
  it('lists the catalogs by name with their revision and profile', () => {
    const informer = new FakeInformer();
    informer.items = [
      catalog('b', {
        metadata: {
          name: 'b',
          uid: 'uid-b',
          creationTimestamp: '2026-01-02T00:00:00Z',
          annotations: { 'olm.operatorframework.io/content-profile': 'lean' },
        },
      }),
      catalog('a'),
      catalog('c', {
        spec: { source: { type: 'Image', image: { ref: 'r' } }, availabilityMode: 'Unavailable' },
      }),
      catalog('d', {
        metadata: { name: 'd', annotations: { 'olm.operatorframework.io/content-profile': 'x' } },
        status: {},
      }),
      catalog('e', {
        metadata: { name: 'e', deletionTimestamp: '2026-01-03T00:00:00Z' },
      }),
    ];
    const view = catalogViewSource(informer, new FakeContent(), 'full');
    expect(view.catalogs()).to.deep.equal([
      {
        name: 'a',
        uid: 'uid-a',
        creationTimestamp: '2026-01-01T00:00:00Z',
        priority: 5,
        revision: KEY,
        profile: 'full',
      },
      {
        name: 'b',
        uid: 'uid-b',
        creationTimestamp: '2026-01-02T00:00:00Z',
        priority: 5,
        revision: KEY,
        profile: 'lean',
      },
      {
        name: 'c',
        uid: 'uid-c',
        creationTimestamp: '2026-01-01T00:00:00Z',
        priority: 0,
        revision: undefined,
        profile: 'full',
      },
      {
        name: 'd',
        uid: '',
        creationTimestamp: '',
        priority: 5,
        revision: undefined,
        profile: 'full',
      },
    ]);
  });

  it('passes acquire and waitFor to the store', async () => {
    const content = new FakeContent();
    const view = catalogViewSource(new FakeInformer(), content, 'full');
    expect(view.acquire('a', KEY)).to.equal(undefined);
    expect(content.acquired).to.deep.equal([['a', KEY]]);
    expect(await view.waitFor('a', KEY)).to.equal(true);
    expect(await view.waitFor('b', KEY)).to.equal(false);
  });

  it('calls listeners on catalog events and content changes, coalesced, until unsubscribed', async () => {
    const informer = new FakeInformer();
    informer.items = [catalog('a'), catalog('b')];
    const content = new FakeContent();
    const view = catalogViewSource(informer, content, 'full');
    let calls = 0;
    const off = view.subscribe(() => calls++);
    await tick();
    expect(calls, 'the replay is no change').to.equal(0);
    informer.emit('a');
    informer.emit('b');
    content.change('a');
    await tick();
    expect(calls).to.equal(1);
    content.change('a');
    await tick();
    expect(calls).to.equal(2);
    off();
    informer.emit('a');
    content.change('a');
    await tick();
    expect(calls).to.equal(2);
  });
});
