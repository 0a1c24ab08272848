// Revision URLs and the grace period (docs/server.md, "Revisions"): a revision URL is answered
// with that revision or a retryable 503, never another revision; a replaced revision is still
// served by its URL for the grace period.
import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { revisionBaseUrl, revisionKey } from '../api/v1/index.js';
import { ManualClock } from '../util/clock.js';
import { pollUntil } from '../../test/support/poll.js';
import type { ContentStore } from './store.js';
import { catalogBaseUrl } from './server.js';
import type { ContentServer } from './server.js';
import {
  closeServedStore,
  expectedLines,
  getText as get,
  openServedStore,
  streamOf,
  taggedRevision,
} from './test-catalogs.test.js';
import type { TestCatalog } from './test-catalogs.test.js';

const T0 = new Date('2026-03-04T05:06:07Z');
const T1 = new Date('2026-03-04T06:00:00Z');
const GRACE_MS = 60_000;

describe('server: revision URLs and the grace period', function () {
  let clock: ManualClock;
  let store: ContentStore;
  let server: ContentServer;
  const a = taggedRevision('a');
  const b = taggedRevision('b');
  const c = taggedRevision('c');
  const path_ = (rev: TestCatalog, rest = 'api/v1/all') =>
    `/catalogs/cat/revisions/${revisionKey(rev.contentHash)}/${rest}`;

  beforeEach(async () => {
    clock = new ManualClock();
    ({ store, server } = await openServedStore('server-grace-', {
      graceMs: GRACE_MS,
      maxGraced: 2,
      clock,
    }));
    await store.ensureServed('cat', a.contentHash, T0, () => streamOf(a.blobs));
  });

  afterEach(() => closeServedStore({ store, server }));

  it('status.urls.base names the revision; <base>/api/v1/all and /metas reach it', async () => {
    const base = revisionBaseUrl(catalogBaseUrl(server.url, 'cat'), a.contentHash);
    expect(base).to.equal(`${server.url}/catalogs/cat/revisions/${a.contentHash.slice(7, 7 + 16)}`);
    const all = await get(server, new URL(`${base}/api/v1/all`).pathname);
    expect(all.status).to.equal(200);
    expect(all.body).to.equal(expectedLines(a.blobs));
    const metas = await get(server, `${new URL(`${base}/api/v1/metas`).pathname}?name=b1`);
    expect(metas.status).to.equal(200);
    expect(metas.body).to.equal(expectedLines(a.blobs, { name: 'b1' }));
  });

  it('a replica that does not hold the revision answers 503 with Retry-After, not another revision', async () => {
    const r = await get(server, path_(b));
    expect(r.status).to.equal(503);
    expect(r.headers['retry-after']).to.equal('1');
    expect(r.headers['cache-control']).to.equal('no-store');
    expect(r.body).to.equal(
      `revision ${revisionKey(b.contentHash)} of catalog "cat" is not served by this replica; retry, or read the ClusterCatalog's status.urls.base again\n`,
    );
    // A catalog the replica serves no revision of (not caught up, or deleted): 404, retryable.
    const none = await get(server, `/catalogs/other/revisions/${'0'.repeat(16)}/api/v1/all`);
    expect(none.status).to.equal(404);
    expect(none.headers['retry-after']).to.equal('1');
    // The unversioned URL is the revision the replica holds now.
    expect((await get(server, '/catalogs/cat/api/v1/all')).body).to.equal(expectedLines(a.blobs));
  });

  it('a replaced revision is served by its URL for the grace period, then 503', async () => {
    await store.ensureServed('cat', b.contentHash, T1, () => streamOf(b.blobs));
    expect((await get(server, '/catalogs/cat/api/v1/all')).body).to.equal(expectedLines(b.blobs));
    const old = await get(server, path_(a));
    expect(old.status).to.equal(200);
    expect(old.body).to.equal(expectedLines(a.blobs));
    // Its own validators: the same on every replica that serves it.
    expect(old.headers.etag).to.equal(`"${a.contentHash.slice(7)}"`);
    expect(old.headers['last-modified']).to.equal('Wed, 04 Mar 2026 05:06:07 GMT');
    expect((await get(server, path_(b))).body).to.equal(expectedLines(b.blobs));
    expect(store.gracedRevisions('cat')).to.deep.equal([a.contentHash]);

    await clock.advance(GRACE_MS - 1);
    expect((await get(server, path_(a))).status).to.equal(200);
    await clock.advance(1);
    expect((await get(server, path_(a))).status).to.equal(503);
    await pollUntil(async () => (await readdir(path.join(store.root, 'cat'))).length === 1, {
      timeoutMs: 5000,
      intervalMs: 10,
      what: 'the replaced revision to be deleted after its grace period',
    });
    expect(store.gracedRevisions('cat')).to.deep.equal([]);
  });

  it('ETag and 304 on a revision URL follow that revision, whatever the replica serves now', async () => {
    const first = await get(server, path_(a));
    await store.ensureServed('cat', b.contentHash, T1, () => streamOf(b.blobs));
    const again = await get(server, path_(a), { 'If-None-Match': first.headers.etag! });
    expect(again.status).to.equal(304);
    expect(again.headers.etag).to.equal(first.headers.etag);
    // The unversioned URL moved on: the old tag no longer matches there.
    const latest = await get(server, '/catalogs/cat/api/v1/all', {
      'If-None-Match': first.headers.etag!,
    });
    expect(latest.status).to.equal(200);
    expect(latest.headers.etag).to.equal(`"${b.contentHash.slice(7)}"`);
  });

  it('keeps at most maxGraced replaced revisions; activating a graced one serves it again', async () => {
    await store.ensureServed('cat', b.contentHash, T1, () => streamOf(b.blobs));
    await store.ensureServed('cat', c.contentHash, T1, () => streamOf(c.blobs));
    expect(store.gracedRevisions('cat')).to.deep.equal([a.contentHash, b.contentHash]);
    // A graced revision comes back without a build (its blobs are not read).
    // eslint-disable-next-line require-yield
    async function* untouchable(): AsyncGenerator<never> {
      throw new Error('a graced revision must not be rebuilt');
    }
    await store.ensureServed('cat', revisionKey(a.contentHash), T1, untouchable);
    expect(store.current('cat')!.contentHash).to.equal(a.contentHash);
    expect(store.gracedRevisions('cat')).to.deep.equal([b.contentHash, c.contentHash]);
    const d = taggedRevision('d');
    await store.ensureServed('cat', d.contentHash, T1, () => streamOf(d.blobs));
    expect(store.gracedRevisions('cat')).to.deep.equal([c.contentHash, a.contentHash]);
    expect((await get(server, path_(b))).status).to.equal(503);
    await pollUntil(async () => (await readdir(path.join(store.root, 'cat'))).length === 3, {
      timeoutMs: 5000,
      intervalMs: 10,
      what: 'the revision past maxGraced to be deleted',
    });
  });

  it('a replica builds a revision from the key in status.urls.base, and refuses other content', async () => {
    const key = revisionKey(b.contentHash);
    await store.ensureServed('cat', key, T1, () => streamOf(b.blobs));
    expect(store.current('cat')!.contentHash).to.equal(b.contentHash);
    await store
      .ensureServed('cat', revisionKey(c.contentHash), T1, () => streamOf(a.blobs))
      .then(
        () => expect.fail('built content that the key does not name'),
        (e: Error) => {
          expect(e.message).to.equal(
            `cannot store revision ${revisionKey(c.contentHash)} of catalog "cat"`,
          );
          expect((e.cause as Error).message).to.equal(
            `content hash mismatch: the blobs hash to ${a.contentHash}, expected ${revisionKey(c.contentHash)}`,
          );
        },
      );
    expect(store.current('cat')!.contentHash).to.equal(b.contentHash);
  });

  it('remove ends every grace period', async () => {
    await store.ensureServed('cat', b.contentHash, T1, () => streamOf(b.blobs));
    await store.remove('cat');
    expect((await get(server, path_(a))).status).to.equal(404);
    expect(store.gracedRevisions('cat')).to.deep.equal([]);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('a revision segment that is not a key is a 400', async () => {
    const r = await get(server, '/catalogs/cat/revisions/..%2f/api/v1/all');
    expect(r.status).to.equal(400);
    expect(r.body).to.equal('invalid revision: must be 16 lowercase hex digits\n');
  });
});
