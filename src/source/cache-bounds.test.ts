// The puller's bounds on the image cache, over an in-memory registry: declared sizes refused
// before a byte is fetched, a size refusal remembered for its digest, the cache's total bound,
// and prune keeping what catalogs serve and what attempts hold.
import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { caught } from '../../test/support/caught.js';
import { oneLayerImage, type OneLayerImage } from '../../test/support/oci-image.js';
import { tarOf } from '../../test/support/registry-layers.js';
import { tempDirEach } from '../../test/support/temp-dir.js';
import { digestOf } from './digest.js';
import { findSourceError } from './errors.js';
import type { HttpClient } from './http.js';
import { MediaTypes } from './manifest.js';
import { ImagePuller } from './puller.js';
import type { ImagePullerOptions } from './puller.js';

/**
 * A one-layer image whose catalog file (configs/c.json) holds `bytes` bytes; its layer gzipped
 * (small, whatever its content) or declaring another size.
 */
async function catalogImage(
  bytes: number,
  opts: { gzip?: boolean; declaredLayerSize?: number } = {},
): Promise<OneLayerImage> {
  const tar = await tarOf([{ name: 'configs/c.json', body: Buffer.alloc(bytes, 0x20) }]);
  const img = oneLayerImage(opts.gzip ? gzipSync(tar) : tar);
  if (!opts.gzip && opts.declaredLayerSize === undefined) return img;
  const m = JSON.parse(img.manifest.toString()) as {
    layers: { size: number; mediaType: string }[];
  };
  if (opts.gzip) m.layers[0]!.mediaType = MediaTypes.ociLayerGzip;
  if (opts.declaredLayerSize !== undefined) m.layers[0]!.size = opts.declaredLayerSize;
  const manifest = Buffer.from(JSON.stringify(m));
  return { ...img, manifest, digest: digestOf(manifest) };
}

/** Serves the images given; counts blob requests. */
function registry(images: OneLayerImage[]) {
  const blobRequests: string[] = [];
  const http: HttpClient = {
    async send(req) {
      const p = req.url.pathname;
      const headers = { 'content-type': MediaTypes.ociManifest };
      for (const img of images) {
        if (p.endsWith(`/manifests/${img.digest}`))
          return { status: 200, headers, body: Readable.from([img.manifest]) };
        if (p.endsWith(digestOf(img.config))) {
          blobRequests.push('config');
          return { status: 200, headers: {}, body: Readable.from([img.config]) };
        }
        if (p.endsWith(digestOf(img.layer))) {
          blobRequests.push('layer');
          return { status: 200, headers: {}, body: Readable.from([img.layer]) };
        }
      }
      return { status: 404, headers: {}, body: Readable.from([]) };
    },
  };
  return { http, blobRequests };
}

describe('source/puller: the image cache is bounded', () => {
  const cacheDir = tempDirEach('catalogd-cache-bounds-');
  /** A puller into the test's cache from a registry that serves `images`. */
  const pullerOf = (images: OneLayerImage[], opts: Partial<ImagePullerOptions> = {}) => {
    const reg = registry(images);
    return { reg, puller: new ImagePuller({ cacheDir: cacheDir(), http: reg.http, ...opts }) };
  };

  it('refuses layers that declare more than the uncompressed bound with no blob fetched, and again at once', async () => {
    const img = await catalogImage(10, { declaredLayerSize: 2 * 1024 * 1024 });
    const { reg, puller } = pullerOf([img], { limits: { maxBytes: 1024 * 1024, maxEntries: 100 } });
    const ref = `reg.example/x@${img.digest}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const err = await caught(puller.pull(ref));
      expect(findSourceError(err)?.code).to.equal('LimitExceeded');
      expect((err as Error).message).to.contain(
        'its layers declare 2097152 bytes, over the limit of 1048576 bytes of uncompressed content',
      );
    }
    expect(reg.blobRequests, 'no blob fetched, first attempt or second').to.deep.equal([]);
  });

  it('remembers a refusal counted while unpacking: the same digest is not downloaded again', async () => {
    const img = await catalogImage(64 * 1024, { gzip: true });
    const { reg, puller } = pullerOf([img], { limits: { maxBytes: 32 * 1024, maxEntries: 100 } });
    const ref = `reg.example/x@${img.digest}`;
    const first = await caught(puller.pull(ref));
    const second = await caught(puller.pull(ref));
    expect((second as Error).message).to.equal((first as Error).message);
    expect(reg.blobRequests).to.deep.equal(['config', 'layer']);
  });

  it('refuses an image that would pass the cache bound, keeping the images there', async () => {
    // a's file and its downloaded layer fit (the layer is on the cache's disk while unpacked);
    // b's do not beside a.
    const [a, b] = [await catalogImage(20_000), await catalogImage(30_000)];
    const { puller } = pullerOf([a, b], { maxCacheBytes: 64_000 });
    await puller.pull(`reg.example/x@${a.digest}`);
    const err = await caught(puller.pull(`reg.example/x@${b.digest}`));
    expect(findSourceError(err)?.code).to.equal('CacheFull');
    expect((err as Error).message).to.contain(
      "unpacking it would pass the image cache's limit of 64000 bytes",
    );
    expect((await puller.cache.entries()).map((e) => e.meta.digest)).to.deep.equal([a.digest]);
    // Once a is no longer served, b fits.
    expect(await puller.prune([])).to.deep.equal([a.digest]);
    await puller.pull(`reg.example/x@${b.digest}`);
  });

  it('prune keeps served digests and held ones until released', async () => {
    const [a, b, c] = [await catalogImage(10), await catalogImage(11), await catalogImage(12)];
    const { puller } = pullerOf([a, b, c]);
    await puller.pull(`reg.example/x@${a.digest}`);
    const held = await puller.pull(`reg.example/x@${b.digest}`, { hold: true });
    await puller.pull(`reg.example/x@${c.digest}`);
    expect(await puller.prune([a.digest])).to.deep.equal([c.digest]);
    held.release?.();
    expect(await puller.prune([a.digest])).to.deep.equal([b.digest]);
    expect((await readdir(cacheDir())).length).to.equal(1);
  });
});
