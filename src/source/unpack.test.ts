import { expect } from 'chai';
import { errorChain, isTerminal } from '../util/errors.js';
import { mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import tar from 'tar-stream';
import { caught } from '../../test/support/caught.js';
import { findSourceError } from './errors.js';
import { LayerApplier } from './unpack.js';

type E = Partial<tar.Header> & { name: string; body?: string };

async function tarOf(entries: E[]): Promise<Buffer> {
  const pack = tar.pack();
  const collected = (async () => {
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  })();
  for (const { body, ...h } of entries) {
    await new Promise<void>((res, rej) =>
      pack.entry({ mode: 0o644, ...h }, body ?? '', (e) => (e ? rej(e) : res())),
    );
  }
  pack.finalize();
  return collected;
}

async function tree(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const rel = prefix + e.name;
    if (e.isDirectory()) out.push(rel + '/', ...(await tree(path.join(dir, e.name), rel + '/')));
    else if (e.isFile()) out.push(rel);
    else out.push(rel + '@');
  }
  return out.sort();
}

describe('source/unpack', () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'unpack-test-'));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    await mkdir(root);
    await mkdir(outside);
    await writeFile(path.join(outside, 'keep'), 'x');
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  const apply = async (a: LayerApplier, entries: E[], gzip = false) => {
    const t = await tarOf(entries);
    return a.apply(Readable.from([gzip ? gzipSync(t) : t]), gzip ? 'gzip' : 'none', 'layer');
  };

  it('writes only the catalog subtree, regular files with fixed modes', async () => {
    const a = new LayerApplier(root, ['configs']);
    await apply(
      a,
      [
        { name: 'configs/', type: 'directory' },
        { name: 'configs/pkg/catalog.json', body: '{"schema":"olm.package"}', mode: 0o4777 },
        { name: '/configs/abs.json', body: 'abs' },
        { name: './configs/./dot.yaml', body: 'dot' },
        { name: 'etc/passwd', body: 'root' },
        { name: 'configs/dev', type: 'character-device', devmajor: 1, devminor: 3 },
        { name: 'configs/fifo', type: 'fifo' },
      ],
      true,
    );
    expect(await tree(root)).to.deep.equal([
      'configs/',
      'configs/abs.json',
      'configs/dot.yaml',
      'configs/pkg/',
      'configs/pkg/catalog.json',
    ]);
    expect((await stat(path.join(root, 'configs/pkg/catalog.json'))).mode & 0o7777).to.equal(0o644);
    expect(a.stats.skipped).to.deep.equal({ outside: 1, device: 2 });
  });

  it('fails on ".." and writes nothing outside', async () => {
    const a = new LayerApplier(root, ['configs']);
    const e = await caught(apply(a, [{ name: 'configs/../../outside/evil', body: 'x' }]));
    expect(findSourceError(e)?.code).to.equal('UnsafeLayer');
    expect(isTerminal(e)).to.equal(true);
    expect(await tree(outside)).to.deep.equal(['keep']);
  });

  it('never creates or follows links: symlink-then-write lands inside as a real directory', async () => {
    const a = new LayerApplier(root, ['configs']);
    await apply(a, [
      { name: 'configs/evil', type: 'symlink', linkname: outside },
      { name: 'configs/evil/pwned', body: 'x' },
      { name: 'configs/up', type: 'symlink', linkname: '..' },
      { name: 'configs/up/pwned2', body: 'x' },
      { name: 'configs/real.json', body: 'real' },
      { name: 'configs/hl-out', type: 'link', linkname: 'etc/passwd' },
      { name: 'configs/hl-abs', type: 'link', linkname: path.join(outside, 'keep') },
      { name: 'configs/hl-in', type: 'link', linkname: 'configs/real.json' },
    ]);
    expect(await tree(outside)).to.deep.equal(['keep']);
    expect(await tree(root)).to.deep.equal([
      'configs/',
      'configs/evil/',
      'configs/evil/pwned',
      'configs/hl-in',
      'configs/real.json',
      'configs/up/',
      'configs/up/pwned2',
    ]);
    expect(await readFile(path.join(root, 'configs/hl-in'), 'utf8')).to.equal('real');
    expect(a.stats.skipped).to.deep.equal({ symlink: 2, hardlink: 2 });
  });

  it('makes a hardlink inside the catalog a real link, counted against the byte cap', async () => {
    const a = new LayerApplier(root, ['configs']);
    const body = 'x'.repeat(100_000);
    await apply(a, [
      { name: 'configs/big.json', body },
      ...Array.from({ length: 5 }, (_, i) => ({
        name: `configs/links/l${i}`,
        type: 'link' as const,
        linkname: 'configs/big.json',
      })),
    ]);
    const big = await stat(path.join(root, 'configs/big.json'));
    expect(big.nlink, 'one inode for the file and its 5 links').to.equal(6);
    expect((await stat(path.join(root, 'configs/links/l4'))).ino).to.equal(big.ino);
    expect(a.stats.bytes, 'each link counts as a copy').to.be.greaterThan(6 * body.length);
    // A later layer replacing the target leaves the links' content alone.
    await apply(a, [{ name: 'configs/big.json', body: 'new' }]);
    expect(await readFile(path.join(root, 'configs/big.json'), 'utf8')).to.equal('new');
    expect(await readFile(path.join(root, 'configs/links/l0'), 'utf8')).to.equal(body);

    // The bomb: one file and many links to it stops at the cap, having written one copy.
    const bombRoot = path.join(base, 'bomb');
    const b = new LayerApplier(bombRoot, ['configs'], { maxBytes: 1_000_000, maxEntries: 1000 });
    const e = await caught(
      apply(b, [
        { name: 'configs/big.json', body },
        ...Array.from({ length: 100 }, (_, i) => ({
          name: `configs/l${i}`,
          type: 'link' as const,
          linkname: 'configs/big.json',
        })),
      ]),
    );
    expect(findSourceError(e)?.code).to.equal('LimitExceeded');
    expect(String((e as Error).message)).to.equal(
      'layer: uncompressed content over the limit of 1000000 bytes',
    );
  });

  it('applies whiteouts and opaque directories from upper layers', async () => {
    const a = new LayerApplier(root, ['configs']);
    await apply(a, [
      { name: 'configs/a.json', body: 'a' },
      { name: 'configs/b.json', body: 'b' },
      { name: 'configs/dir/c.json', body: 'c' },
      { name: 'configs/dir2/e.json', body: 'e' },
    ]);
    await apply(a, [
      { name: 'configs/.wh.a.json', body: '' },
      { name: 'configs/dir/d.json', body: 'd' },
      { name: 'configs/dir/.wh..wh..opq', body: '' },
      { name: 'configs/b.json', body: 'b2' },
    ]);
    expect(await tree(root)).to.deep.equal([
      'configs/',
      'configs/b.json',
      'configs/dir/',
      'configs/dir/d.json',
      'configs/dir2/',
      'configs/dir2/e.json',
    ]);
    expect(await readFile(path.join(root, 'configs/b.json'), 'utf8')).to.equal('b2');
    await apply(a, [
      { name: '.wh.configs', body: '' },
      { name: 'configs/new.json', body: 'n' },
    ]);
    expect(await tree(root)).to.deep.equal(['configs/', 'configs/new.json']);
  });

  for (const name of ['.wh.', '.wh..', '.wh...']) {
    it(`refuses the invalid whiteout ${name} and keeps the directory that holds it`, async () => {
      const a = new LayerApplier(root, ['configs']);
      await apply(a, [{ name: 'configs/a.json', body: 'a' }]);
      const layer = [{ name: `configs/${name}`, body: '' }];
      for (const e of [
        await caught(a.check(Readable.from([await tarOf(layer)]), 'none', 'layer')),
        await caught(apply(a, layer)),
      ]) {
        expect(findSourceError(e)?.code).to.equal('InvalidLayer');
        expect(isTerminal(e)).to.equal(true);
        expect((e as Error).message).to.equal(
          `layer: entry "configs/${name}" is a whiteout of ${JSON.stringify(name.slice(4))}, which names no file`,
        );
      }
      expect(await tree(root)).to.deep.equal(['configs/', 'configs/a.json']);
    });
  }

  it('says "invalid tar archive" (or stream) for a corrupt layer, naming the entry', async () => {
    const a = new LayerApplier(root, ['configs']);
    const good = await tarOf([
      { name: 'configs/a.json', body: 'a'.repeat(600) },
      { name: 'configs/b.json', body: 'b'.repeat(600) },
    ]);
    const messages: string[] = [];
    const run = async (bytes: Buffer, c: 'none' | 'gzip' = 'none') => {
      for (const e of [
        await caught(a.check(Readable.from([bytes]), c, 'layer 1')),
        await caught(a.apply(Readable.from([bytes]), c, 'layer 1')),
      ]) {
        expect(findSourceError(e)?.code, String(e)).to.equal('InvalidLayer');
        expect(isTerminal(e)).to.equal(true);
        messages.push((e as Error).message);
      }
    };
    const random = Buffer.alloc(4096);
    for (let i = 0; i < random.length; i++) random[i] = (i * 7919 + 13) % 251;
    await run(random);
    await run(good.subarray(0, 1100)); // truncated inside b.json's header
    await run(good.subarray(0, 800)); // truncated inside a.json's body
    // A PAX header giving a size beyond the archive.
    const lie = await tarOf([{ name: 'configs/c.json', body: 'c', pax: { size: '99999999' } }]);
    await run(Buffer.concat([lie.subarray(0, lie.length - 1024), good.subarray(0, 512)]));
    await run(gzipSync(random), 'gzip'); // a valid gzip stream of no tar
    await run(Buffer.from('not gzip at all'), 'gzip');
    expect([...new Set(messages)]).to.deep.equal([
      'layer 1: invalid tar archive at the first entry (invalid tar header)',
      'layer 1: invalid tar archive after entry "configs/a.json" (unexpected end of data)',
      'layer 1: invalid tar archive after entry "configs/c.json" (unexpected end of data)',
      'layer 1: invalid gzip stream (Z_DATA_ERROR)',
    ]);
  });

  it('refuses too long and too deep names with the entry name, never a local path', async () => {
    const a = new LayerApplier(root, ['configs'], { maxBytes: 1e9, maxEntries: 100, maxDepth: 8 });
    const long = `configs/${'n'.repeat(300)}.json`;
    const e1 = await caught(apply(a, [{ name: long, body: 'x' }]));
    expect(findSourceError(e1)?.code).to.equal('InvalidLayer');
    expect((e1 as Error).message).to.equal(
      `layer: entry "configs/${'n'.repeat(92)}...": name too long`,
    );
    const deep = `configs/${Array.from({ length: 9 }, () => 'd').join('/')}/x.json`;
    const e2 = await caught(apply(a, [{ name: deep, body: 'x' }]));
    expect(findSourceError(e2)?.code).to.equal('LimitExceeded');
    expect((e2 as Error).message).to.equal(
      `layer: entry "${deep}" is more than 8 directories deep`,
    );
    for (const e of [e1, e2]) expect(String((e as Error).message)).not.to.include(base);
    expect(await tree(root)).to.deep.equal([]);
  });

  it('reports a write error by entry name and errno code, never the local path', async () => {
    await writeFile(root + '-file', 'x'); // a file where the root directory should be
    const a = new LayerApplier(root + '-file', ['configs']);
    const e = await caught(apply(a, [{ name: 'configs/a.json', body: 'a' }]));
    expect(findSourceError(e)?.code).to.equal('InvalidLayer');
    expect(isTerminal(e)).to.equal(true);
    expect((e as Error).message).to.equal('layer: entry "configs/a.json": cannot write (ENOTDIR)');
    expect(errorChain(e)).not.to.include(base);
  });

  it('reports a read error of the downloaded layer as retryable, by errno code only', async () => {
    const a = new LayerApplier(root, ['configs']);
    const source = new Readable({
      read() {
        const err = Object.assign(new Error(`EIO: i/o error, read ${base}/layer.blob`), {
          code: 'EIO',
          syscall: 'read',
        });
        this.destroy(err);
      },
    });
    const e = await caught(a.check(source, 'gzip', 'layer'));
    expect(findSourceError(e)?.code).to.equal('Unavailable');
    expect(isTerminal(e)).to.equal(false);
    expect(errorChain(e)).to.equal('layer: cannot read the downloaded layer (EIO)');
  });

  it('honours a nested catalog directory label', async () => {
    const a = new LayerApplier(root, ['var', 'cat']);
    await apply(a, [
      { name: 'var/cat/x.json', body: 'x' },
      { name: 'var/other.json', body: 'o' },
    ]);
    expect(await tree(root)).to.deep.equal(['var/', 'var/cat/', 'var/cat/x.json']);
  });

  it('reads zstd and uncompressed layers', async () => {
    const a = new LayerApplier(root, ['configs']);
    const t = await tarOf([{ name: 'configs/z.json', body: 'zstd' }]);
    await a.apply(Readable.from([zstdCompressSync(t)]), 'zstd', 'layer');
    await a.apply(
      Readable.from([await tarOf([{ name: 'configs/u.json', body: 'plain' }])]),
      'none',
      'layer',
    );
    expect(await tree(root)).to.deep.equal(['configs/', 'configs/u.json', 'configs/z.json']);
  });

  it('check() refuses hostile names and caps without writing anything', async () => {
    const a = new LayerApplier(root, ['configs'], { maxBytes: 1e9, maxEntries: 3 });
    const t = await tarOf([
      { name: 'configs/ok.json', body: 'x' },
      { name: 'configs/hl', type: 'link', linkname: '../../x' },
    ]);
    expect(
      findSourceError(await caught(a.check(Readable.from([t]), 'none', 'layer')))?.code,
    ).to.equal('UnsafeLayer');
    const many = await tarOf(
      Array.from({ length: 5 }, (_, i) => ({ name: `configs/f${i}`, body: '' })),
    );
    expect(
      findSourceError(await caught(a.check(Readable.from([many]), 'none', 'layer')))?.code,
    ).to.equal('LimitExceeded');
    expect(await tree(root)).to.deep.equal([]);
  });

  it('caps entries and uncompressed bytes (gzip bomb)', async () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ name: `configs/f${i}`, body: '' }));
    const e1 = await caught(
      apply(new LayerApplier(root, ['configs'], { maxBytes: 1e9, maxEntries: 10 }), many),
    );
    expect(findSourceError(e1)?.code).to.equal('LimitExceeded');
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    const e2 = await caught(
      new LayerApplier(root, ['configs'], { maxBytes: 1024 * 1024, maxEntries: 10 }).apply(
        Readable.from([bomb]),
        'gzip',
        'layer',
      ),
    );
    expect(findSourceError(e2)?.code).to.equal('LimitExceeded');
  });
});
