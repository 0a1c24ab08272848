// Source fault e2e against registries of the test's own: a blob corrupted on the registry's disk,
// and a stopped registry.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findSourceError, ImagePuller, isRetryable, pushCatalog } from '../../src/source/index.js';
import { snapshot } from '../../src/source/counters.js';
import { startRegistry, type TestRegistry } from '../support/registry.js';
import { caught } from '../support/caught.js';
import { writePackage } from '../support/source-e2e.js';

describe('source e2e: registry faults', function () {
  this.timeout(120_000);
  let reg: TestRegistry;
  let work: string;
  let catalogDir: string;

  before(async () => {
    reg = await startRegistry();
    work = await mkdtemp(path.join(tmpdir(), 'catalogd-source-faults-'));
    catalogDir = path.join(work, 'catalog');
    await writePackage(catalogDir, 'foo');
    await writeFile(
      path.join(catalogDir, 'pad.json'),
      JSON.stringify({ schema: 'pad', v: 'p'.repeat(50_000) }),
    );
  });
  after(async () => {
    await reg?.dispose();
    await rm(work, { recursive: true, force: true });
  });

  it('a blob corrupted in the registry storage fails with a digest mismatch and nothing is cached', async () => {
    const ref = `${reg.host}/corrupt/catalog:v1`;
    const pushed = await pushCatalog(catalogDir, ref);
    const manifest = JSON.parse(await readFile(reg.blobPath(pushed.digest), 'utf8')) as {
      layers: { digest: string }[];
    };
    const layerFile = reg.blobPath(manifest.layers[0]!.digest);
    const bytes = await readFile(layerFile);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff; // same size, different content
    await writeFile(layerFile, bytes);

    const cacheDir = path.join(work, 'cache-corrupt');
    const puller = new ImagePuller({ cacheDir });
    const err = await caught(puller.pull(ref));
    const se = findSourceError(err);
    expect(se?.code).to.equal('DigestMismatch');
    expect((err as Error).message).to.contain('digest mismatch');
    expect(await readdir(cacheDir), 'no entry and no temp dir left').to.deep.equal([]);
  });

  it('a stopped registry gives a retryable error in bounded time; the cache still serves its digest', async function () {
    this.timeout(60_000); // the bound: retries with backoff end within seconds
    const ref = `${reg.host}/stopped/catalog:v1`;
    // Other content than the corrupted image's, whose layer blob the registry would share.
    await writeFile(path.join(catalogDir, 'other.json'), '{"schema":"other"}');
    const pushed = await pushCatalog(catalogDir, ref);
    const puller = new ImagePuller({ cacheDir: path.join(work, 'cache-stopped') });
    await puller.pull(ref);
    await reg.stop();
    try {
      const err = await caught(puller.pull(ref));
      expect(findSourceError(err)?.code).to.equal('Unavailable');
      expect(isRetryable(err)).to.equal(true);
      expect((err as Error).message).to.contain('registry unreachable (ECONNREFUSED)');
      const resolveErr = await caught(puller.resolve(ref));
      expect(isRetryable(resolveErr)).to.equal(true);

      const before = snapshot(puller.counters);
      const cached = await puller.pull(pushed.ref);
      expect(cached.cached).to.equal(true);
      expect(puller.counters.requests, 'zero requests for a cached digest').to.deep.equal(
        before.requests,
      );
    } finally {
      await reg.start();
    }
    expect((await puller.pull(ref)).digest).to.equal(pushed.digest);
  });
});
