// Hostile catalog images (issue 28), built in the test and pushed to the real registry, fed to
// the real controller running under the Deployment's heap options: one ClusterCatalog first
// synced to a good image, then switched to each hostile image by digest. Each must end with the
// expected condition and a deterministic message (no local path), the previous revision's
// CatalogMetadata intact, nothing written outside the controller's cache directory, the
// controller alive, peak RSS at most 150 MB and the cache's disk use bounded.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { MediaTypes } from '../../src/source/manifest.js';
import { blobFromBuffer, type BlobSource } from '../../src/source/pusher.js';
import { LayerApplier } from '../../src/source/unpack.js';
import {
  applyCatalog,
  condition,
  getCatalog,
  sampleDir,
  waitSynced,
  objectsSynced,
} from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { DEPLOYMENT_HEAP_OPTIONS, startController } from '../support/controller.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import {
  gzipLayer,
  manyEntriesLayer,
  pushLayers,
  tarOf,
  sampleEntries,
} from '../support/registry-layers.js';
import type { Revision } from '../support/revisions.js';
import { revisionInCluster, revisionOf } from '../support/revisions.js';

const MB = 1024 * 1024;
const PEAK_RSS_LIMIT = 150 * MB;

/** Bytes under dir as the disk holds them (a hard-linked file once), via du. */
async function diskBytes(dir: string): Promise<number> {
  const { stdout } = await promisify(execFile)('du', ['-sb', dir]);
  return Number(stdout.split('\t')[0]);
}

/** Samples dir's disk use every 100 ms until stopped; resolves to the largest value seen. */
function watchDisk(dir: string): { stop(): Promise<number> } {
  let max = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      max = Math.max(max, await diskBytes(dir).catch(() => 0));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return max;
    },
  };
}

/** Every file and directory under dir, relative, sorted. */
async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  return out.sort();
}

interface HostileCase {
  title: string;
  layers: () => Promise<BlobSource[]>;
  /** The Progressing message after `pull catalog image <ref>: `, with <ref> for the reference. */
  message: string;
  /** The largest cache growth allowed while the attempt runs. */
  maxDiskGrowth: number;
}

describe('hostile images e2e: the controller under the Deployment heap options', function () {
  this.timeout(300_000);
  const name = uniqueName('hostile');
  // The registry is known once the e2e hooks ran: read it when used.
  const repo = () => `${process.env.REGISTRY}/e2e/hostile`;
  let controller: RunningController;
  let base = '';
  let cacheDir = '';
  let outside = '';
  let v1: Revision;
  let baseline = 0;
  const peaks: string[] = [];

  before(async () => {
    ({ tmp: base } = await setUpE2e({ tmpPrefix: 'hostile-' }));
    cacheDir = path.join(base, 'cache');
    outside = path.join(base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'keep'), 'x');
    controller = await startController({ cacheDir, nodeOptions: DEPLOYMENT_HEAP_OPTIONS });
    const good = await pushLayers(`${repo()}:${uniqueName('good')}`, [
      await gzipLayer(await sampleEntries()),
    ]);
    await applyCatalog(name, `${repo()}@${good.digest}`);
    await waitSynced(name);
    v1 = await revisionOf(sampleDir, name);
    expect(await revisionInCluster(name)).to.deep.equal(v1);
    baseline = await diskBytes(cacheDir);
  });

  after(async () => {
    console.log(`      peak RSS: ${peaks.join(', ')}`);
    await tearDownE2e({ controllers: [controller], catalogs: [name], tmp: base });
  });

  /** Switches the catalog to the image of `layers` (by digest); returns its reference. */
  async function switchTo(layers: BlobSource[]): Promise<string> {
    const d = await pushLayers(`${repo()}:${uniqueName('bad')}`, layers);
    const ref = `${repo()}@${d.digest}`;
    await applyCatalog(name, ref);
    return ref;
  }

  async function expectHealthy(title: string): Promise<void> {
    expect(controller.alive(), 'the controller is alive').to.equal(true);
    const peak = await controller.peakRssBytes();
    peaks.push(`${title} ${(peak / MB).toFixed(0)} MB`);
    expect(peak, 'peak RSS').to.be.at.most(PEAK_RSS_LIMIT);
    expect(await listTree(outside), 'nothing written outside the cache').to.deep.equal(['keep']);
    expect(await listTree(base), 'nothing written beside the cache').to.satisfy((t: string[]) =>
      t.every((p) => p === 'outside' || p === 'outside/keep' || p.startsWith('cache')),
    );
    expect(await revisionInCluster(name), 'the previous revision is intact').to.deep.equal(v1);
  }

  const cases: HostileCase[] = [
    {
      title: 'hardlink bomb (one 20 MB file, 100 hardlinks to it)',
      layers: async () => [
        await gzipLayer([
          { name: 'configs/big.json', body: Buffer.alloc(20 * MB, ' ') },
          ...Array.from({ length: 100 }, (_, i) => ({
            name: `configs/links/l${i}.json`,
            type: 'link' as const,
            linkname: 'configs/big.json',
          })),
        ]),
      ],
      message: 'layer 1 of <ref>: uncompressed content over the limit of 1073741824 bytes',
      maxDiskGrowth: 40 * MB,
    },
    {
      title: 'whiteout of the empty name (.wh.)',
      layers: async () => [
        await gzipLayer(await sampleEntries()),
        await gzipLayer([{ name: 'configs/.wh.' }]),
      ],
      message: 'layer 2 of <ref>: entry "configs/.wh." is a whiteout of "", which names no file',
      maxDiskGrowth: 5 * MB,
    },
    {
      title: 'whiteout of ".." (.wh...)',
      layers: async () => [
        await gzipLayer(await sampleEntries()),
        await gzipLayer([{ name: 'configs/.wh...' }]),
      ],
      message:
        'layer 2 of <ref>: entry "configs/.wh..." is a whiteout of "..", which names no file',
      maxDiskGrowth: 5 * MB,
    },
    {
      // From <cache>/.tmp-*/fs/configs, four levels up is the test's directory beside the cache.
      title: 'traversal (configs/../../../../outside/evil)',
      layers: async () => [
        await gzipLayer([
          ...(await sampleEntries()),
          { name: 'configs/../../../../outside/evil', body: 'x' },
        ]),
      ],
      message: 'layer 1 of <ref>: entry "configs/../../../../outside/evil" has a ".." component',
      maxDiskGrowth: 5 * MB,
    },
    {
      title: 'name too long (ENAMETOOLONG on disk)',
      layers: async () => [
        await gzipLayer([
          ...(await sampleEntries()),
          { name: `configs/${Array.from({ length: 20 }, () => 'd'.repeat(200)).join('/')}/x` },
        ]),
      ],
      message: `layer 1 of <ref>: entry "configs/${'d'.repeat(92)}...": name too long`,
      maxDiskGrowth: 5 * MB,
    },
    {
      title: 'corrupt tar (random bytes, gzipped)',
      layers: async () => {
        const random = Buffer.alloc(64 * 1024);
        for (let i = 0; i < random.length; i++) random[i] = (i * 7919 + 13) % 251;
        return [blobFromBuffer(MediaTypes.ociLayerGzip, gzipSync(random))];
      },
      message: 'layer 1 of <ref>: invalid tar archive at the first entry (invalid tar header)',
      maxDiskGrowth: 5 * MB,
    },
    {
      title: 'truncated tar (cut inside an entry)',
      layers: async () => {
        const whole = await tarOf(await sampleEntries());
        return [blobFromBuffer(MediaTypes.ociLayerGzip, gzipSync(whole.subarray(0, 700)))];
      },
      message:
        'layer 1 of <ref>: invalid tar archive after entry "configs/example-operator/catalog.yaml" (unexpected end of data)',
      maxDiskGrowth: 5 * MB,
    },
  ];

  for (const c of cases) {
    it(`refuses: ${c.title}`, async () => {
      const layers = await c.layers();
      const disk = watchDisk(cacheDir);
      let maxDisk: number;
      let ref: string;
      let failed;
      try {
        ref = await switchTo(layers);
        failed = await pollUntil(
          async () => {
            const cc = await getCatalog(name);
            const p = condition(cc, 'Progressing');
            return p?.reason === 'Blocked' && p.observedGeneration === cc.metadata.generation
              ? p
              : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 100, what: `Progressing=Blocked for ${c.title}` },
        );
      } finally {
        maxDisk = await disk.stop();
      }
      const growth = maxDisk - baseline;
      console.log(`      disk growth during the attempt: ${(growth / MB).toFixed(1)} MB`);
      expect(failed.message).to.equal(
        `pull catalog image ${ref}: ${c.message.replaceAll('<ref>', ref)}`,
      );
      expect(failed.message).not.to.include(cacheDir);
      expect(growth, 'cache growth during the attempt').to.be.at.most(c.maxDiskGrowth);
      expect(await diskBytes(cacheDir), 'nothing left in the cache').to.be.at.most(baseline);
      await expectHealthy(c.title);
    });
  }

  it('keeps links and absolute names inside: symlink, hardlink and absolute escapes sync as plain files', async () => {
    const ref = await switchTo([
      await gzipLayer([
        ...(await sampleEntries()),
        { name: `${outside}/abs-pwned` },
        { name: 'configs/evil', type: 'symlink', linkname: outside },
        { name: 'configs/evil/pwned' },
        { name: 'configs/up', type: 'symlink', linkname: '../..' },
        { name: 'configs/up/pwned2' },
        { name: 'configs/hl-out', type: 'link', linkname: `${outside}/keep` },
      ]),
    ]);
    await pollUntil(
      async () => {
        const cc = await getCatalog(name);
        return objectsSynced(cc) && cc.status?.resolvedSource?.image?.ref === ref;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'the escape image to sync' },
    );
    await expectHealthy('escapes');
  });
});

// Unpacking costs little per entry: 100,000 empty files unpack in seconds (34 s before the
// unpacker wrote small files with synchronous calls, on the shared 2-core machine). In process,
// since in the controller the same layer also costs two parses (the sync's and the content
// server's) that belong to src/fbc (bench/unpack-entries.ts measures both): the controller run
// below is opt-in (CATALOGD_E2E_100K=1).
describe('hostile images: 100,000 entries unpack in process', function () {
  this.timeout(180_000);
  it('unpacks 100,000 empty entries plus the sample catalog (entries per second reported)', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'entries-'));
    try {
      const applier = new LayerApplier(path.join(work, 'fs'), ['configs']);
      const layers = [
        (await manyEntriesLayer(100_000)).open() as Buffer,
        gzipSync(await tarOf(await sampleEntries())),
      ];
      const t0 = Date.now();
      for (const [i, layer] of layers.entries()) {
        await applier.check(Readable.from([layer]), 'gzip', `layer ${i + 1}`);
        await applier.apply(Readable.from([layer]), 'gzip', `layer ${i + 1}`);
      }
      const unpackSeconds = (Date.now() - t0) / 1000;
      console.log(
        `      unpack ${unpackSeconds.toFixed(1)} s (${Math.round(100_002 / unpackSeconds)} entries/s)`,
      );
      expect(applier.stats.entries).to.equal(100_002);
      expect(applier.stats.files).to.equal(100_002);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

(process.env.CATALOGD_E2E_100K === '1' ? describe : describe.skip)(
  'hostile images e2e: 100,000 entries in the controller (opt-in: CATALOGD_E2E_100K=1)',
  function () {
    this.timeout(300_000);
    const name = uniqueName('entries');
    const repo = () => `${process.env.REGISTRY}/e2e/entries`;
    let controller: RunningController;

    after(async () => {
      await tearDownE2e({ controllers: [controller], catalogs: [name] });
    });

    it('syncs 100,000 empty entries plus the sample catalog within the deadline', async () => {
      ({ controller } = await setUpE2e({ controller: { nodeOptions: DEPLOYMENT_HEAP_OPTIONS } }));
      const d = await pushLayers(`${repo()}:${uniqueName('v')}`, [
        await manyEntriesLayer(100_000),
        await gzipLayer(await sampleEntries()),
      ]);
      const t0 = Date.now();
      await applyCatalog(name, `${repo()}@${d.digest}`);
      await pollUntil(
        async () => {
          const c = await getCatalog(name);
          return objectsSynced(c);
        },
        { timeoutMs: 120_000, intervalMs: 200, what: 'the 100k-entry catalog to sync' },
      );
      const seconds = (Date.now() - t0) / 1000;
      console.log(
        `      100k entries synced in ${seconds.toFixed(1)} s (${Math.round(100_000 / seconds)} entries/s)`,
      );
      expect(await revisionInCluster(name)).to.deep.equal(await revisionOf(sampleDir, name));
      expect(controller.alive()).to.equal(true);
      const peak = await controller.peakRssBytes();
      console.log(`      peak RSS ${(peak / MB).toFixed(0)} MB`);
      expect(peak).to.be.at.most(PEAK_RSS_LIMIT);
    });
  },
);
