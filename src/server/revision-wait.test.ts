// A request for a revision not held yet (revision-wait.ts): the waiter alone on a manual clock,
// and through the real handler on 127.0.0.1: held until the revision is published, then 200;
// 503 past the bound; never another revision.
import { expect } from 'chai';
import { revisionKey } from '../api/v1/index.js';
import { ManualClock } from '../util/clock.js';
import { pollUntil } from '../../test/support/poll.js';
import type { RevisionWaitOutcome } from './revision-wait.js';
import { RevisionWaiters } from './revision-wait.js';
import type { ContentServer } from './server.js';
import type { ContentStore } from './store.js';
import {
  closeServedStore,
  expectedLines,
  getText,
  openServedStore,
  streamOf,
  taggedRevision,
} from './test-catalogs.test.js';
import type { TestCatalog } from './test-catalogs.test.js';

const T0 = new Date('2026-03-04T05:06:07Z');

describe('server/revision-wait: the waiter', () => {
  const waiters = (maxWaitMs: number, maxWaiting = 10) => {
    const clock = new ManualClock();
    const outcomes: RevisionWaitOutcome[] = [];
    const w = new RevisionWaiters({
      maxWaitMs,
      maxWaiting,
      clock,
      onWait: (o) => outcomes.push(o),
    });
    return { clock, w, outcomes };
  };

  it('ends held when a publish of its catalog makes held() true, not for other catalogs', async () => {
    const { w, outcomes } = waiters(5000);
    let held = false;
    const wait = w.wait('cat', () => held);
    held = true;
    w.published('other');
    expect(w.waiting).to.equal(1);
    w.published('cat');
    expect(await wait).to.equal('held');
    expect(w.waiting).to.equal(0);
    expect(outcomes).to.deep.equal(['held']);
  });

  it('ends at the bound, when the client leaves, and refuses to queue past maxWaiting', async () => {
    const { w, clock, outcomes } = waiters(5000, 1);
    const left = new AbortController();
    const first = w.wait('cat', () => false, left.signal);
    expect(await w.wait('cat', () => false)).to.equal('full');
    left.abort();
    expect(await first).to.equal('aborted');
    const timed = w.wait('cat', () => false);
    await clock.advance(5000);
    expect(await timed).to.equal('timeout');
    expect(outcomes).to.deep.equal(['full', 'aborted', 'timeout']);
    // A bound of 0 never waits.
    expect(await waiters(0).w.wait('cat', () => false)).to.equal('timeout');
  });
});

describe('server/revision-wait: through the handler', function () {
  let clock: ManualClock;
  let store: ContentStore;
  let server: ContentServer;
  let waiters: RevisionWaiters;
  const a = taggedRevision('a');
  const b = taggedRevision('b');
  const url = (rev: TestCatalog) =>
    `/catalogs/cat/revisions/${revisionKey(rev.contentHash)}/api/v1/all`;

  beforeEach(async () => {
    clock = new ManualClock();
    waiters = new RevisionWaiters({ maxWaitMs: 5000, maxWaiting: 10, clock });
    ({ store, server } = await openServedStore(
      'server-wait-',
      { graceMs: 0 },
      { revisionWaiters: waiters },
    ));
    await store.ensureServed('cat', a.contentHash, T0, () => streamOf(a.blobs));
  });

  afterEach(() => closeServedStore({ store, server }));

  it('a revision being built: the request is held, then answered 200 with that revision', async () => {
    const answer = getText(server, url(b));
    await pollUntil(async () => waiters.waiting === 1, {
      timeoutMs: 10_000,
      what: 'the request to wait',
    });
    await store.ensureServed('cat', b.contentHash, T0, () => streamOf(b.blobs));
    waiters.published('cat');
    const r = await answer;
    expect(r.status).to.equal(200);
    expect(r.body).to.equal(expectedLines(b.blobs));
  });

  it('a catalog of which no revision is held yet waits too (a new catalog)', async () => {
    const c = taggedRevision('c');
    const answer = getText(
      server,
      `/catalogs/new/revisions/${revisionKey(c.contentHash)}/api/v1/all`,
    );
    await pollUntil(async () => waiters.waiting === 1, {
      timeoutMs: 10_000,
      what: 'the request to wait',
    });
    await store.ensureServed('new', c.contentHash, T0, () => streamOf(c.blobs));
    waiters.published('new');
    expect((await answer).status).to.equal(200);
  });

  it('past the bound: the retryable 503 as before, never the revision it holds', async () => {
    const answer = getText(server, url(b));
    await pollUntil(async () => waiters.waiting === 1, {
      timeoutMs: 10_000,
      what: 'the request to wait',
    });
    await clock.advance(5000);
    const r = await answer;
    expect(r.status).to.equal(503);
    expect(r.body).to.not.equal(expectedLines(a.blobs));
  });
});
