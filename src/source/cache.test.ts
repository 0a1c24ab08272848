import { expect } from 'chai';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mostFsRequestsInFlight } from '../../test/support/fs-requests.js';
import { tempDirEach } from '../../test/support/temp-dir.js';
import { DigestCache, type CacheMeta } from './cache.js';

const meta = (digest: string): CacheMeta => ({
  digest,
  manifestDigest: digest,
  catalogDir: '/configs',
  files: 1,
  bytes: 1,
});

describe('source/cache', () => {
  const root = tempDirEach('source-cache-');

  async function build(cache: DigestCache, content: string): Promise<string> {
    const tmp = await cache.tempDir();
    await mkdir(path.join(DigestCache.fsDir(tmp), 'configs'), { recursive: true });
    await writeFile(path.join(DigestCache.fsDir(tmp), 'configs', 'a.json'), content);
    return tmp;
  }

  it('never hands a lookup an entry a prune is removing: it waits, then misses', async () => {
    const cache = new DigestCache(root());
    const key = DigestCache.key('sha256:' + 'b'.repeat(64), 'linux/amd64');
    const tmp = await cache.tempDir();
    const configs = path.join(DigestCache.fsDir(tmp), 'configs');
    await mkdir(configs, { recursive: true });
    // Enough files that the removal takes many turns of the event loop.
    for (let i = 0; i < 300; i++) await writeFile(path.join(configs, `${i}.json`), '{}');
    await cache.commit(tmp, key, meta('sha256:b'));
    const pruned = cache.prune(() => false, { temps: false });
    // Started while the prune removes the entry (its meta.json is read only after).
    const found = await cache.lookup(key);
    expect(found, 'the lookup came after the removal').to.equal(undefined);
    expect(await pruned).to.deep.equal([key]);
  });

  it('commits temp dirs atomically; a second writer of the same key keeps the first entry', async () => {
    const cache = new DigestCache(root());
    const key = DigestCache.key('sha256:' + 'a'.repeat(64), 'linux/amd64');
    expect(key).to.equal(`sha256-${'a'.repeat(64)}_linux-amd64`);
    expect(await cache.lookup(key)).to.equal(undefined);
    const [t1, t2] = [await build(cache, 'one'), await build(cache, 'two')];
    const e1 = await cache.commit(t1, key, meta('sha256:1'));
    const e2 = await cache.commit(t2, key, meta('sha256:1'));
    expect(e2.dir).to.equal(e1.dir);
    expect((await cache.lookup(key))?.meta.digest).to.equal('sha256:1');
    expect(await readdir(root()), 'the loser temp dir is removed').to.deep.equal([key]);
  });

  it('prunes entries not kept, and temp leftovers only when asked', async () => {
    const cache = new DigestCache(root());
    await cache.commit(await build(cache, 'x'), 'keep', { ...meta('sha256:k'), bytes: 5 });
    await cache.commit(await build(cache, 'y'), 'drop', { ...meta('sha256:d'), bytes: 7 });
    await build(cache, 'leftover');
    expect(await cache.usedBytes()).to.equal(12);
    expect(await cache.prune((k) => k === 'keep', { temps: false })).to.deep.equal(['drop']);
    expect((await readdir(root())).length, 'a running pull may build in the temp dir').to.equal(2);
    expect(await cache.usedBytes()).to.equal(5);
    expect(await cache.prune((k) => k === 'keep', { temps: true })).to.deep.equal([]);
    expect(await readdir(root())).to.deep.equal(['keep']);
  });

  it('removes and prunes an entry of thousands of files with a bounded number of requests in flight', async () => {
    // An unpacked catalog of 100,000 files removed by fs.promises.rm left ~170 MB of native
    // memory in the controller (src/util/remove-tree.ts).
    const cache = new DigestCache(root());
    const fill = async (digest: string) => {
      const tmp = await cache.tempDir();
      const dir = path.join(DigestCache.fsDir(tmp), 'configs');
      await mkdir(dir, { recursive: true });
      for (let i = 0; i < 600; i++) await writeFile(path.join(dir, `f${i}.json`), '');
      const key = DigestCache.key(digest, 'linux/amd64');
      await cache.commit(tmp, key, meta(digest));
      return key;
    };
    const removed = await fill('sha256:' + 'b'.repeat(64));
    const pruned = await fill('sha256:' + 'c'.repeat(64));
    expect(await mostFsRequestsInFlight(() => cache.remove(removed))).to.be.at.most(2);
    const prune = () => cache.prune((key) => key !== pruned, { temps: true });
    expect(await mostFsRequestsInFlight(prune)).to.be.at.most(2);
    expect(await readdir(root())).to.deep.equal([]);
  });
});
