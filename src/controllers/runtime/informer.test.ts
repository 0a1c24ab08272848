import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import type { ListOptions, ListPage, ListWatch, WatchEventType, WatchOptions } from './informer.js';
import { isGone } from '../../kube/errors.js';
import { Informer, ResourceExpiredError } from './informer.js';
import { WatchHold } from './watch-hold.js';

interface Obj {
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
}

interface OpenWatch {
  onEvent: (type: WatchEventType, obj: Obj) => void;
  end: () => void;
  fail: (err: Error) => void;
}

/**
 * An in-memory collection with apiserver list/watch semantics: a global resourceVersion,
 * an event log that watches replay from a resourceVersion, compaction (410 for watches
 * from before it), pagination with continue tokens, and injectable failures.
 */
class MemoryListWatch implements ListWatch<Obj> {
  rv = 100;
  readonly objects = new Map<string, Obj>();
  readonly log: Array<{ rv: number; type: WatchEventType; obj: Obj }> = [];
  compactedThrough = 0;
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];
  readonly open = new Set<OpenWatch>();
  listFailures: unknown[] = [];
  expireContinueTokens = false;

  upsert(name: string, labels: Record<string, string> = {}): void {
    const type = this.objects.has(name) ? 'MODIFIED' : 'ADDED';
    const obj: Obj = { metadata: { name, resourceVersion: String(++this.rv), labels } };
    this.objects.set(name, obj);
    this.#emit(type, obj);
  }

  remove(name: string): void {
    const old = this.objects.get(name);
    if (!old) return;
    this.objects.delete(name);
    this.#emit('DELETED', { metadata: { ...old.metadata, resourceVersion: String(++this.rv) } });
  }

  /** Changes an object without any watch seeing it (as if the events were missed). */
  silentlyUpsert(name: string, labels: Record<string, string> = {}): void {
    this.objects.set(name, { metadata: { name, resourceVersion: String(++this.rv), labels } });
  }

  silentlyRemove(name: string): void {
    this.objects.delete(name);
    this.rv++;
  }

  compact(): void {
    this.compactedThrough = this.rv;
  }

  endWatches(): void {
    for (const w of [...this.open]) w.end();
  }

  failWatches(err: Error): void {
    for (const w of [...this.open]) w.fail(err);
  }

  async list(opts: ListOptions): Promise<ListPage<Obj>> {
    this.listCalls.push(opts);
    if (this.listFailures.length > 0) throw this.listFailures.shift();
    if (opts.continue !== undefined && this.expireContinueTokens) {
      throw new ResourceExpiredError('continue token expired');
    }
    const all = [...this.objects.values()].sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
    const start = opts.continue === undefined ? 0 : Number(opts.continue);
    const end = opts.limit ? start + opts.limit : all.length;
    const page: ListPage<Obj> = { items: all.slice(start, end), resourceVersion: String(this.rv) };
    if (end < all.length) page.continue = String(end);
    return page;
  }

  watch(
    opts: WatchOptions,
    onEvent: (type: WatchEventType, obj: Obj) => void,
    signal: AbortSignal,
  ): Promise<void> {
    this.watchCalls.push(opts);
    const from = Number(opts.resourceVersion);
    if (from < this.compactedThrough) return Promise.reject(new ResourceExpiredError());
    for (const e of this.log) if (e.rv > from) onEvent(e.type, e.obj);
    return new Promise((resolve, reject) => {
      const w: OpenWatch = {
        onEvent,
        end: () => {
          this.open.delete(w);
          resolve();
        },
        fail: (err) => {
          this.open.delete(w);
          reject(err);
        },
      };
      this.open.add(w);
      if (signal.aborted) w.end();
      else signal.addEventListener('abort', w.end, { once: true });
    });
  }

  #emit(type: WatchEventType, obj: Obj): void {
    this.log.push({ rv: this.rv, type, obj });
    for (const w of this.open) w.onEvent(type, obj);
  }
}

/** Maps an object to its owner's key, like CatalogMetadata → its ClusterCatalog. */
const byCatalogLabel = (o: Obj): string | undefined => o.metadata.labels?.['catalog'];

function setup(pageSize = 2) {
  const clock = new ManualClock(0);
  const lw = new MemoryListWatch();
  const errors: Array<[string, unknown]> = [];
  const hold = new WatchHold({ clock, maxPauseMs: 30_000 });
  const informer = new Informer<Obj>({
    name: 'test',
    listWatch: lw,
    pageSize,
    clock,
    random: () => 0,
    labelSelector: 'catalog',
    onError: (err, during) => errors.push([during, err]),
    pause: hold,
  });
  const keys: string[] = [];
  const ac = new AbortController();
  return { clock, lw, informer, keys, errors, ac, hold };
}

/** Runs the informer until its first watch is open; then `pause()` pauses it and waits. */
async function watching({ informer, ac, hold }: ReturnType<typeof setup>) {
  const running = informer.run(ac.signal);
  await informer.waitForSync();
  await settle();
  return {
    running,
    pause: async () => {
      const release = hold.hold();
      await settle();
      return release;
    },
  };
}

describe('Informer', () => {
  it('syncs from a paginated list, then watches from the list resourceVersion', async () => {
    const { lw, informer, keys, ac } = setup(2);
    for (const n of ['a', 'b', 'c', 'd', 'e']) lw.upsert(n, { catalog: `cat-${n}` });
    informer.subscribe(byCatalogLabel, (k) => keys.push(k));
    const sync = informer.waitForSync(ac.signal);
    expect(informer.hasSynced()).to.equal(false);
    const running = informer.run(ac.signal);
    expect(await sync).to.equal(true);
    expect(informer.hasSynced()).to.equal(true);
    expect([...informer.keys()].sort()).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(lw.listCalls).to.deep.equal([
      { limit: 2, labelSelector: 'catalog' },
      { limit: 2, continue: '2', labelSelector: 'catalog' },
      { limit: 2, continue: '4', labelSelector: 'catalog' },
    ]);
    expect(keys.sort()).to.deep.equal(['cat-a', 'cat-b', 'cat-c', 'cat-d', 'cat-e']);
    await settle();
    expect(lw.watchCalls).to.have.length(1);
    expect(lw.watchCalls[0]).to.include({
      resourceVersion: '105',
      allowWatchBookmarks: true,
      labelSelector: 'catalog',
    });
    ac.abort();
    await running;
  });

  it('applies watch events to the store and maps them to keys (old and new owner on update)', async () => {
    const { lw, informer, keys, ac } = setup();
    lw.upsert('m1', { catalog: 'one' });
    informer.subscribe(byCatalogLabel, (k) => keys.push(k));
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    keys.length = 0;
    lw.upsert('m2', { catalog: 'two' });
    lw.upsert('m1', { catalog: 'two' }); // moved: both catalogs must look again
    lw.remove('m2');
    expect(keys).to.deep.equal(['two', 'two', 'one', 'two']);
    expect(informer.has('m2')).to.equal(false);
    expect(informer.get('m1')?.metadata.labels).to.deep.equal({ catalog: 'two' });
    expect(informer.lastResourceVersion).to.equal(String(lw.rv));
    ac.abort();
    await running;
  });

  it('drops additions and updates its predicates reject, never deletions', async () => {
    const { lw, informer, keys, ac } = setup();
    informer.subscribe(
      byCatalogLabel,
      (k) => keys.push(k),
      (_old, obj) => obj.metadata.labels?.['mine'] !== 'yes',
      (obj) => obj.metadata.labels?.['mine'] !== 'yes',
    );
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    lw.upsert('ours', { catalog: 'one', mine: 'yes' }); // added by us: dropped
    lw.upsert('theirs', { catalog: 'two' }); // added by others
    lw.upsert('ours', { catalog: 'one', mine: 'yes', v: '2' }); // updated by us: dropped
    lw.remove('ours'); // deleted: always
    expect(keys).to.deep.equal(['two', 'one']);
    ac.abort();
    await running;
  });

  it('drops deletions its delete predicate rejects, with one object per event for every subscriber', async () => {
    const { lw, informer, keys, ac } = setup();
    const seen: unknown[] = [];
    const deleted = (obj: Obj) => {
      seen.push(obj);
      return obj.metadata.name !== 'ours';
    };
    informer.subscribe(byCatalogLabel, (k) => keys.push(k), undefined, undefined, deleted);
    informer.subscribe(byCatalogLabel, (k) => keys.push(`2:${k}`), undefined, undefined, deleted);
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    lw.upsert('ours', { catalog: 'one' });
    lw.upsert('theirs', { catalog: 'two' });
    keys.length = 0;
    lw.remove('ours'); // dropped by the predicate
    lw.remove('theirs');
    expect(keys).to.deep.equal(['two', '2:two']);
    expect(seen[0]).to.equal(seen[1]);
    ac.abort();
    await running;
  });

  it('resumes a watch that ended from the last resourceVersion, without relisting', async () => {
    const { clock, lw, informer, ac } = setup();
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    lw.upsert('x');
    lw.endWatches();
    await settle();
    expect(lw.watchCalls.map((w) => w.resourceVersion)).to.deep.equal(['100', '101']);
    expect(informer.listCount).to.equal(1);
    // A watch that ends at once with nothing delivered backs off before re-watching.
    lw.endWatches();
    await settle();
    expect(lw.watchCalls).to.have.length(2);
    expect(clock.nextTimerIn()).to.equal(800);
    await clock.advance(800);
    expect(lw.watchCalls).to.have.length(3);
    ac.abort();
    await running;
  });

  it('relists on 410 Gone and notifies only for what changed while it was not watching', async () => {
    const { lw, informer, keys, errors, ac } = setup();
    lw.upsert('same', { catalog: 'same' });
    lw.upsert('changed', { catalog: 'changed' });
    lw.upsert('gone', { catalog: 'gone' });
    informer.subscribe(byCatalogLabel, (k) => keys.push(k));
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    keys.length = 0;
    lw.silentlyUpsert('changed', { catalog: 'changed' });
    lw.silentlyUpsert('new', { catalog: 'new' });
    lw.silentlyRemove('gone');
    lw.compact();
    lw.failWatches(new ResourceExpiredError());
    await settle();
    expect(informer.listCount).to.equal(2);
    expect(keys.sort()).to.deep.equal(['changed', 'gone', 'new']);
    expect([...informer.keys()].sort()).to.deep.equal(['changed', 'new', 'same']);
    expect(errors.map((e) => e[0])).to.deep.equal(['watch']);
    expect(lw.watchCalls.at(-1)?.resourceVersion).to.equal(String(lw.rv));
    ac.abort();
    await running;
  });

  it('resumes after a watch error with backoff, and relists if that resourceVersion is gone', async () => {
    const { clock, lw, informer, errors, ac } = setup();
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    lw.failWatches(Object.assign(new Error('stream reset'), { code: 'ECONNRESET' }));
    await settle();
    expect(clock.nextTimerIn()).to.equal(800);
    await clock.advance(800);
    expect(lw.watchCalls.map((w) => w.resourceVersion)).to.deep.equal(['100', '100']);
    expect(informer.listCount).to.equal(1);
    lw.silentlyUpsert('missed');
    lw.compact();
    lw.failWatches(Object.assign(new Error('stream reset'), { code: 'ECONNRESET' }));
    await settle();
    await clock.advance(clock.nextTimerIn() ?? 0);
    // The resumed watch got 410: relisted at once, and the missed object is in the store.
    expect(informer.listCount).to.equal(2);
    expect(informer.has('missed')).to.equal(true);
    expect(errors.map((e) => e[0])).to.deep.equal(['watch', 'watch', 'watch']);
    ac.abort();
    await running;
  });

  it('starts backing off afresh when a watch fails after working for a while', async () => {
    const { clock, lw, informer, ac } = setup();
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    const reset = Object.assign(new Error('stream reset'), { code: 'ECONNRESET' });
    lw.failWatches(reset); // fails at once: 800 ms
    await settle();
    expect(clock.nextTimerIn()).to.equal(800);
    await clock.advance(800);
    lw.failWatches(reset); // fails at once again: 1600 ms
    await settle();
    expect(clock.nextTimerIn()).to.equal(1600);
    await clock.advance(1600);
    await clock.advance(60_000); // this watch works for a minute
    lw.failWatches(reset);
    await settle();
    expect(clock.nextTimerIn()).to.equal(800);
    ac.abort();
    await running;
  });

  it('retries a failed list with growing backoff and is not synced until a list succeeds', async () => {
    const { clock, lw, informer, errors, ac } = setup();
    lw.listFailures = [new Error('connection refused'), new Error('connection refused')];
    const running = informer.run(ac.signal);
    await settle();
    expect(informer.hasSynced()).to.equal(false);
    expect(clock.nextTimerIn()).to.equal(800);
    await clock.advance(800);
    expect(informer.hasSynced()).to.equal(false);
    expect(clock.nextTimerIn()).to.equal(1600);
    await clock.advance(1600);
    expect(informer.hasSynced()).to.equal(true);
    expect(errors.map((e) => e[0])).to.deep.equal(['list', 'list']);
    ac.abort();
    await running;
  });

  it('falls back to one unpaginated list when a continue token expires', async () => {
    const { lw, informer, ac } = setup(1);
    lw.upsert('a');
    lw.upsert('b');
    lw.expireContinueTokens = true;
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    expect(lw.listCalls.map((c) => c.limit)).to.deep.equal([1, 1, undefined]);
    expect(informer.size).to.equal(2);
    ac.abort();
    await running;
  });

  it('replays the store to a subscriber that joins after sync, and unsubscribes', async () => {
    const { lw, informer, ac } = setup();
    lw.upsert('a', { catalog: 'A' });
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    const keys: string[] = [];
    const unsubscribe = informer.subscribe(byCatalogLabel, (k) => keys.push(k));
    expect(keys).to.deep.equal(['A']);
    unsubscribe();
    await settle();
    lw.upsert('b', { catalog: 'B' });
    expect(keys).to.deep.equal(['A']);
    ac.abort();
    await running;
  });

  it('ignores BOOKMARK objects except for their resourceVersion', async () => {
    const { lw, informer, keys, ac } = setup();
    informer.subscribe(byCatalogLabel, (k) => keys.push(k));
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    for (const w of lw.open)
      w.onEvent('BOOKMARK', { metadata: { name: '', resourceVersion: '999' } });
    expect(informer.lastResourceVersion).to.equal('999');
    expect(informer.size).to.equal(0);
    expect(keys).to.deep.equal([]);
    ac.abort();
    await running;
  });

  it('reports a malformed watch object and keeps watching', async () => {
    const { lw, informer, errors, ac } = setup();
    const running = informer.run(ac.signal);
    await informer.waitForSync();
    await settle();
    for (const w of lw.open) w.onEvent('ADDED', { metadata: { name: '', resourceVersion: '200' } });
    lw.upsert('fine');
    expect(informer.has('fine')).to.equal(true);
    expect(errors.map((e) => e[0])).to.deep.equal(['watch']);
    expect(lw.watchCalls).to.have.length(1);
    ac.abort();
    await running;
  });

  it('closes its watch while paused and resumes from its last resourceVersion: every event, no relist', async () => {
    const s = setup();
    const { lw, informer, keys, errors, ac } = s;
    informer.subscribe(byCatalogLabel, (k) => keys.push(k));
    const { running, pause } = await watching(s);
    lw.upsert('before', { catalog: 'one' });
    const release = await pause();
    expect(lw.open.size).to.equal(0);
    // Written while paused: the sync's own objects, and a hand edit of another catalog's.
    lw.upsert('own-1', { catalog: 'one' });
    lw.upsert('own-2', { catalog: 'one' });
    lw.upsert('before', { catalog: 'two' });
    await settle();
    expect(informer.has('own-1')).to.equal(false);
    expect(keys).to.deep.equal(['one']);
    release();
    await settle();
    expect(lw.open.size).to.equal(1);
    expect(lw.watchCalls.map((w) => w.resourceVersion)).to.deep.equal(['100', '101']);
    expect([...informer.keys()].sort()).to.deep.equal(['before', 'own-1', 'own-2']);
    expect(keys).to.deep.equal(['one', 'one', 'one', 'two', 'one']);
    expect(lw.listCalls).to.have.length(1);
    expect(errors).to.deep.equal([]);
    ac.abort();
    await running;
  });

  it('ends a pause after its longest, though still held, and resumes the watch', async () => {
    const s = setup();
    const { lw, informer, clock, ac } = s;
    const { running, pause } = await watching(s);
    const release = await pause();
    expect(lw.open.size).to.equal(0);
    lw.upsert('during', { catalog: 'one' });
    await clock.advance(30_000);
    await settle();
    expect(lw.open.size).to.equal(1);
    expect(informer.has('during')).to.equal(true);
    // Released after the pause ran out: the open watch stays open.
    release();
    await settle();
    expect(lw.watchCalls).to.have.length(2);
    ac.abort();
    await running;
  });

  it('relists after a pause if the apiserver no longer has its resourceVersion', async () => {
    const s = setup();
    const { lw, informer, ac, errors } = s;
    const { running, pause } = await watching(s);
    const release = await pause();
    lw.upsert('during', { catalog: 'one' });
    lw.compact();
    release();
    await settle();
    await settle();
    expect(lw.listCalls.length).to.be.greaterThan(1);
    expect(informer.has('during')).to.equal(true);
    expect(errors.map(([during]) => during)).to.deep.equal(['watch']);
    ac.abort();
    await running;
  });

  it('recognizes 410 errors from adapters by code or statusCode', () => {
    expect(isGone(new ResourceExpiredError())).to.equal(true);
    expect(isGone({ code: 410 })).to.equal(true);
    expect(isGone({ statusCode: 410 })).to.equal(true);
    expect(isGone(new Error('x'))).to.equal(false);
    expect(isGone(undefined)).to.equal(false);
  });
});
