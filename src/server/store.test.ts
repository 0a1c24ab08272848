import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../../test/support/poll.js';
import { FbcError } from '../fbc/index.js';
import type { MetasQuery } from './query.js';
import { FORMAT_VERSION, INDEX_FILE } from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';
import type { Selection } from './revision.js';
import { ContentStore } from './store.js';
import type { RevisionLease } from './store.js';
import {
  CopyingSink,
  blobOf,
  catalogOf,
  expectedLines,
  generatedCatalog,
  readDirCatalog,
  streamOf,
} from './test-catalogs.test.js';
import type { TestCatalog } from './test-catalogs.test.js';

const FIXTURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../test/fixtures/fbc',
);
const T0 = new Date('2026-01-01T00:00:00Z');

async function readSelection(lease: RevisionLease, sel: Selection): Promise<string> {
  const sink = new CopyingSink();
  await lease.send(sel, sink);
  return sink.bytes().toString('utf8');
}

async function answer(store: ContentStore, catalog: string, q?: MetasQuery): Promise<string> {
  const lease = store.acquire(catalog)!;
  try {
    return await readSelection(lease, q === undefined ? lease.selectAll() : await lease.select(q));
  } finally {
    lease.release();
  }
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

describe('server/store', function () {
  let root: string;
  let store: ContentStore;
  let gen: TestCatalog;

  before(async () => {
    gen = await generatedCatalog(11, 1);
  });

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'server-store-'));
    // Without a grace period: these tests are about leases (grace: revision-grace.test.ts).
    store = new ContentStore(root, { graceMs: 0 });
  });

  afterEach(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves all blobs in blob order, the same bytes whatever the input order', async () => {
    expect(gen.blobs.length).to.be.greaterThan(100);
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    await store.activate('gen', gen.contentHash, T0);
    const all = await answer(store, 'gen');
    expect(all).to.equal(expectedLines(gen.blobs));
    expect(store.current('gen')).to.deep.equal({
      contentHash: gen.contentHash,
      lastModified: T0,
      blobs: gen.blobs.length,
      allBytes: Buffer.byteLength(all),
    });

    const other = new ContentStore(path.join(root, 'other'));
    await other.buildRevision('gen', gen.contentHash, streamOf([...gen.blobs].reverse()));
    const hex = gen.contentHash.slice(7);
    expect(await readFile(path.join(root, 'other/gen', hex, 'all.jsonl'), 'utf8')).to.equal(all);
  });

  it('answers metas queries like a full scan would', async () => {
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    await store.activate('gen', gen.contentHash, T0);
    const b = gen.blobs;
    const bundle = b.find((x) => x.schema === 'olm.bundle')!;
    const channel = b.find((x) => x.schema === 'olm.channel')!;
    const queries: MetasQuery[] = [
      {},
      ...[...new Set(b.map((x) => x.schema))].map((schema) => ({ schema })),
      { package: bundle.package! },
      { name: bundle.name! },
      { name: channel.name! },
      { name: bundle.package! },
      { schema: 'olm.bundle', package: bundle.package! },
      { schema: 'olm.channel', name: channel.name! },
      { package: channel.package!, name: channel.name! },
      { schema: 'olm.bundle', package: bundle.package!, name: bundle.name! },
      { schema: 'olm.package', package: bundle.package! },
      { schema: 'olm.bundle', package: channel.package!, name: bundle.name! },
      { schema: 'no.such.schema' },
      { package: 'no-such-package' },
      { name: 'no-such-name' },
      { name: '' + '\u{10FFFF}' },
      { name: '0' },
    ];
    for (const q of queries) {
      const want = expectedLines(b, q);
      expect(await answer(store, 'gen', q), JSON.stringify(q)).to.equal(want);
    }
    // Every name, as a sweep over the fences.
    for (const name of new Set(b.map((x) => x.name).filter((n) => n !== undefined)))
      expect(await answer(store, 'gen', { name })).to.equal(expectedLines(b, { name }));
  });

  it('a metas query reads the index blocks and the matching lines, not the catalog', async () => {
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    await store.activate('gen', gen.contentHash, T0);
    const { allBytes } = store.current('gen')!;
    const bundle = gen.blobs.find((x) => x.schema === 'olm.bundle')!;
    for (const q of [{ name: bundle.name! }, { package: bundle.package! }]) {
      const before = { ...store.io };
      const lease = store.acquire('gen')!;
      const sel = await lease.select(q);
      const body = await readSelection(lease, sel);
      lease.release();
      expect(body).to.equal(expectedLines(gen.blobs, q));
      expect(store.io.contentBytesRead - before.contentBytesRead).to.equal(sel.bytes);
      expect(sel.bytes).to.be.lessThan(allBytes / 4);
      // names.jsonl: at most the one block before the match, the match, one read chunk of slack.
      expect(store.io.indexBytesRead - before.indexBytesRead).to.be.at.most(2 * 16 * 1024);
    }
  });

  it('keeps repeated identities, blobs without package or name, and a 2 MB blob', async () => {
    const custom = await readDirCatalog(path.join(FIXTURES, 'custom-schemas'));
    const big = await readDirCatalog(path.join(FIXTURES, 'big-blob'));
    const both = catalogOf([...custom.blobs, ...big.blobs]);
    await store.buildRevision('fixtures', both.contentHash, streamOf(both.blobs));
    await store.activate('fixtures', both.contentHash, T0);
    expect(await answer(store, 'fixtures')).to.equal(expectedLines(both.blobs));
    for (const q of [{ schema: 'io.example.global' }, { package: 'etcd', name: 'n1' }])
      expect(await answer(store, 'fixtures', q)).to.equal(expectedLines(both.blobs, q));
  });

  it('an empty catalog', async () => {
    const empty = catalogOf([]);
    await store.buildRevision('empty', empty.contentHash, streamOf([]));
    await store.activate('empty', empty.contentHash, T0);
    expect(await answer(store, 'empty')).to.equal('');
    expect(await answer(store, 'empty', { name: 'x' })).to.equal('');
  });

  it('rejects blobs that do not hash to the content hash, leaving nothing behind', async () => {
    const wrong = catalogOf([blobOf({ schema: 'a' })]).contentHash;
    let err: Error | undefined;
    await store
      .buildRevision('gen', wrong, streamOf(gen.blobs.slice(0, 3)))
      .catch((e: Error) => (err = e));
    expect(err?.message).to.equal(`cannot store revision ${wrong} of catalog "gen"`);
    expect((err?.cause as Error).message).to.match(
      /^content hash mismatch: the blobs hash to sha256:/,
    );
    expect(await readdir(path.join(root, 'gen'))).to.deep.equal([]);
    expect(await store.hasRevision('gen', wrong)).to.equal(false);
  });

  it('builds a new revision as whatever its blobs hash to; stored content is kept', async () => {
    const built = await store.buildNewRevision('gen', streamOf(gen.blobs));
    expect(built.contentHash).to.equal(gen.contentHash);
    const files = await readdir(path.join(root, 'gen'));
    expect(files).to.deep.equal([gen.contentHash.slice('sha256:'.length)]);
    // The same content again (a new digest of it): the stored revision stays, no temporary left.
    const again = await store.buildNewRevision('gen', streamOf([...gen.blobs].reverse()));
    expect(again.contentHash).to.equal(gen.contentHash);
    expect(await readdir(path.join(root, 'gen'))).to.deep.equal(files);
    await store.activate('gen', built.contentHash, T0);
    expect(await answer(store, 'gen')).to.equal(expectedLines(gen.blobs));
  });

  it("a new revision's parse error is the catalog's (thrown as is); others are the store's", async () => {
    const parseError = new FbcError('missing schema', { file: 'a.json' });
    async function* failing(err: Error) {
      yield gen.blobs[0]!;
      throw err;
    }
    const err = await store.buildNewRevision('gen', failing(parseError)).catch((e: unknown) => e);
    expect(err).to.equal(parseError);
    const disk = await store
      .buildNewRevision('gen', failing(new Error('ENOSPC')))
      .catch((e: Error) => e);
    expect((disk as Error).message).to.equal('cannot store revision (new) of catalog "gen"');
    expect(await readdir(path.join(root, 'gen'))).to.deep.equal([]);
  });

  it('rejects invalid catalog names and hashes', async () => {
    for (const name of ['..', 'a/b', 'A', ''])
      await store.buildRevision(name, gen.contentHash, streamOf([])).then(
        () => expect.fail(name),
        (e: Error) => expect(e.message).to.match(/^invalid catalog name/),
      );
    await store.activate('gen', gen.contentHash, new Date('nope')).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.equal('lastModified is not a valid date'),
    );
    await store.activate('gen', 'sha256:../../x', T0).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.match(/^invalid content hash/),
    );
  });

  it('swaps revisions; a lease keeps reading its revision, whose files go when released', async () => {
    const a = catalogOf(gen.blobs.slice(0, 200));
    const b = catalogOf(gen.blobs.slice(100));
    await store.buildRevision('c', a.contentHash, streamOf(a.blobs));
    await store.activate('c', a.contentHash, T0);
    expect(await store.hasRevision('c', a.contentHash)).to.equal(true);
    const lease = store.acquire('c')!;
    const sel = lease.selectAll();

    await store.buildRevision('c', b.contentHash, streamOf(b.blobs));
    await store.activate('c', b.contentHash, T0);
    expect(store.current('c')!.contentHash).to.equal(b.contentHash);
    expect(store.retainedRevisions('c')).to.deep.equal([a.contentHash]);
    expect(await answer(store, 'c')).to.equal(expectedLines(b.blobs));
    expect(await readSelection(lease, sel)).to.equal(expectedLines(a.blobs));
    const aDir = path.join(root, 'c', a.contentHash.slice(7));
    expect(await exists(aDir)).to.equal(true);

    lease.release();
    lease.release();
    await pollUntil(async () => !(await exists(aDir)), {
      timeoutMs: 5000,
      intervalMs: 10,
      what: 'the replaced revision to be deleted',
    });
    expect(store.retainedRevisions('c')).to.deep.equal([]);
    expect(await readdir(path.join(root, 'c'))).to.deep.equal([b.contentHash.slice(7)]);
  });

  it('activating the served revision again only updates lastModified', async () => {
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    await store.activate('gen', gen.contentHash, T0);
    const t1 = new Date('2026-02-01T00:00:00Z');
    await store.activate('gen', gen.contentHash, t1);
    expect(store.current('gen')!.lastModified).to.equal(t1);
    expect(await answer(store, 'gen')).to.equal(expectedLines(gen.blobs));
  });

  it('activation fails for a revision that is not stored', async () => {
    await store.activate('gen', gen.contentHash, T0).then(
      () => expect.fail(),
      (e: Error) =>
        expect(e.message).to.equal(`cannot activate revision ${gen.contentHash} of catalog "gen"`),
    );
    expect(store.acquire('gen')).to.equal(undefined);
  });

  it('remove stops serving and deletes the files', async () => {
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    await store.activate('gen', gen.contentHash, T0);
    await store.remove('gen');
    expect(store.current('gen')).to.equal(undefined);
    expect(store.acquire('gen')).to.equal(undefined);
    expect(await exists(path.join(root, 'gen'))).to.equal(false);
  });

  it('after a restart: lists complete revisions, deletes unfinished builds, activates from disk', async () => {
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    const leftover = path.join(root, 'gen', `${gen.contentHash.slice(7)}.abc123.tmp`);
    await mkdir(leftover);
    await store.close();

    store = new ContentStore(root);
    expect(await store.loadExisting()).to.deep.equal([
      { catalog: 'gen', contentHash: gen.contentHash },
    ]);
    expect(await exists(leftover)).to.equal(false);
    await store.activate('gen', gen.contentHash, T0);
    expect(await answer(store, 'gen', { schema: 'olm.package' })).to.equal(
      expectedLines(gen.blobs, { schema: 'olm.package' }),
    );
  });

  it('a stored revision is not rebuilt; concurrent builds of one content both succeed', async () => {
    const [x, y] = await Promise.all([
      store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs)),
      store.buildRevision('gen', gen.contentHash, streamOf([...gen.blobs].reverse())),
    ]);
    expect(x).to.deep.equal(y);
    // eslint-disable-next-line require-yield
    async function* untouchable(): AsyncGenerator<never> {
      throw new Error('the blobs of a stored revision must not be read');
    }
    await store.buildRevision('gen', gen.contentHash, untouchable());
    expect(await readdir(path.join(root, 'gen'))).to.deep.equal([gen.contentHash.slice(7)]);
    await store.activate('gen', gen.contentHash, T0);
    expect(await answer(store, 'gen')).to.equal(expectedLines(gen.blobs));
  });

  it('re-activating a replaced revision that is still read keeps its files', async () => {
    const a = catalogOf(gen.blobs.slice(0, 50));
    const b = catalogOf(gen.blobs.slice(50, 100));
    await store.buildRevision('c', a.contentHash, streamOf(a.blobs));
    await store.activate('c', a.contentHash, T0);
    const lease = store.acquire('c')!;
    await store.buildRevision('c', b.contentHash, streamOf(b.blobs));
    await store.activate('c', b.contentHash, T0);
    await store.activate('c', a.contentHash, T0);
    lease.release();
    expect(store.retainedRevisions('c')).to.deep.equal([]);
    expect(await readdir(path.join(root, 'c'))).to.deep.equal([a.contentHash.slice(7)]);
    expect(await answer(store, 'c')).to.equal(expectedLines(a.blobs));
  });

  it('ensureServed builds only when needed, then activates', async () => {
    let builds = 0;
    const blobs = (): AsyncIterable<(typeof gen.blobs)[number]> => {
      builds++;
      return streamOf(gen.blobs);
    };
    await store.ensureServed('gen', gen.contentHash, T0, blobs);
    await store.ensureServed('gen', gen.contentHash, T0, blobs);
    expect(builds).to.equal(1);
    expect(await answer(store, 'gen')).to.equal(expectedLines(gen.blobs));
    const restarted = new ContentStore(root);
    await restarted.ensureServed('gen', gen.contentHash, T0, blobs);
    expect(builds).to.equal(1);
    expect(restarted.current('gen')!.contentHash).to.equal(gen.contentHash);
    await restarted.close();

    // A damaged stored revision is rebuilt.
    const damaged = new ContentStore(root);
    await writeFile(path.join(root, 'gen', gen.contentHash.slice(7), 'offsets.bin'), 'x');
    await damaged.ensureServed('gen', gen.contentHash, T0, blobs);
    expect(builds).to.equal(2);
    expect(await answer(damaged, 'gen')).to.equal(expectedLines(gen.blobs));
    await damaged.close();
  });

  it('ensureServed rebuilds a stored revision of another format (an upgrade) rather than failing', async () => {
    let builds = 0;
    const blobs = (): AsyncIterable<(typeof gen.blobs)[number]> => {
      builds++;
      return streamOf(gen.blobs);
    };
    await store.ensureBuilt('gen', gen.contentHash, blobs);
    const indexPath = path.join(root, 'gen', gen.contentHash.slice(7), INDEX_FILE);
    const index = JSON.parse(await readFile(indexPath, 'utf8')) as RevisionIndexFile;
    await writeFile(indexPath, JSON.stringify({ ...index, format: FORMAT_VERSION - 1 }));

    const upgraded = new ContentStore(root);
    try {
      expect(await upgraded.loadExisting()).to.deep.equal([
        { catalog: 'gen', contentHash: gen.contentHash },
      ]);
      await upgraded.ensureServed('gen', gen.contentHash, T0, blobs);
      expect(builds).to.equal(2);
      expect(JSON.parse(await readFile(indexPath, 'utf8'))).to.deep.equal(index);
      expect(await answer(upgraded, 'gen')).to.equal(expectedLines(gen.blobs));
    } finally {
      await upgraded.close();
    }
  });
});
