// Source e2e against the shared local registry (REGISTRY from the root hooks): push/pull round
// trip, tag and digest refs, request counting, the digest cache, multi-arch indexes, hostile
// layers and mirrors.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  findSourceError,
  ImagePuller,
  isRetryable,
  parseRegistriesConfig,
  pushCatalog,
} from '../../src/source/index.js';
import { snapshot } from '../../src/source/counters.js';
import {
  gzipBombLayer,
  gzipLayer,
  manyEntriesLayer,
  pushLayers,
  pushDockerManifestList,
  pushMultiArch,
} from '../support/registry-layers.js';
import { uniqueName } from '../support/names.js';
import { repoRoot } from '../support/cluster.js';
import type { BlobSource } from '../../src/source/pusher.js';
import { caught } from '../support/caught.js';
import { writePackage } from '../support/source-e2e.js';

async function listTree(dir: string, rel = ''): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [k, v] of await listTree(dir, r)) out.set(k, v);
    else out.set(r, await readFile(path.join(dir, r)));
  }
  return out;
}

/** The `name` of the arch.json blob that each per-architecture test layer carries. */
async function archOf(configsDir: string): Promise<string> {
  const blob = JSON.parse(await readFile(path.join(configsDir, 'arch.json'), 'utf8')) as {
    name: string;
  };
  return blob.name;
}

async function writeCatalog(dir: string, pkg: string): Promise<void> {
  await writePackage(dir, pkg);
  await writeFile(
    path.join(dir, pkg, 'channels.yaml'),
    `---\nschema: olm.channel\npackage: ${pkg}\nname: stable\nentries:\n  - name: ${pkg}.v1.0.0\n`,
  );
  await writeFile(
    path.join(dir, 'big.json'),
    JSON.stringify({ schema: 'x', data: 'y'.repeat(300_000) }),
  );
  await writeFile(path.join(dir, '.indexignore'), '*.md\n');
}

const settled = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: unknown) => e,
  );

describe('source e2e (shared registry)', function () {
  this.timeout(120_000);
  let registry: string;
  let work: string;
  let catalogDir: string;

  before(async () => {
    registry = process.env.REGISTRY!;
    expect(registry, 'REGISTRY').to.be.a('string');
    work = await mkdtemp(path.join(tmpdir(), 'catalogd-source-e2e-'));
    catalogDir = path.join(work, 'catalog');
    await writeCatalog(catalogDir, 'foo');
  });
  after(() => rm(work, { recursive: true, force: true }));

  const newPuller = (opts: Partial<ConstructorParameters<typeof ImagePuller>[0]> = {}) =>
    new ImagePuller({ cacheDir: path.join(work, uniqueName('cache')), ...opts });

  it('push then pull round-trips the catalog byte for byte, by tag and by digest', async () => {
    const ref = `${registry}/${uniqueName('roundtrip')}/catalog:v1`;
    const pushed = await pushCatalog(catalogDir, ref);
    expect(pushed.digest).to.match(/^sha256:[a-f0-9]{64}$/);

    const puller = newPuller();
    expect(await puller.resolve(ref)).to.equal(pushed.digest);
    expect(puller.counters.requests).to.deep.include({ manifest: 1, blob: 0 });
    expect(await puller.resolve(pushed.ref)).to.equal(pushed.digest);
    expect(puller.counters.requests.manifest, 'a digest ref needs no request').to.equal(1);

    const byTag = await puller.pull(ref);
    expect(byTag).to.include({ digest: pushed.digest, cached: false, ref: pushed.ref });
    const want = await listTree(catalogDir);
    const got = await listTree(byTag.configsDir);
    expect([...got.keys()].sort()).to.deep.equal([...want.keys()].sort());
    for (const [k, v] of want) expect(got.get(k)?.equals(v), k).to.equal(true);

    // A fresh cache pulling by digest gets the same bytes.
    const byDigest = await newPuller().pull(pushed.ref);
    const got2 = await listTree(byDigest.configsDir);
    for (const [k, v] of want) expect(got2.get(k)?.equals(v), k).to.equal(true);

    // Pushing the same directory again yields the same digest (deterministic layer).
    expect((await pushCatalog(catalogDir, `${ref}-again`)).digest).to.equal(pushed.digest);
  });

  it('`catalogd push <dir> <ref>` pushes and prints the digest reference', async () => {
    const ref = `${registry}/${uniqueName('cli')}/catalog:v1`;
    const cli = path.join(repoRoot, 'src', 'cmd', 'catalogd.ts');
    const out = execFileSync(process.execPath, ['--import', 'tsx', cli, 'push', catalogDir, ref], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    const pushed = out.trim();
    expect(pushed).to.match(
      new RegExp(`^${ref.replace(/:v1$/, '').replace(/[.]/g, '\\.')}@sha256:[a-f0-9]{64}$`),
    );
    const r = await newPuller().pull(ref);
    expect(r.ref).to.equal(pushed);
    const bad = spawnSync(
      process.execPath,
      ['--import', 'tsx', cli, 'push', catalogDir, 'Bad//Ref'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
      },
    );
    expect(bad.status).to.equal(1);
    expect(bad.stderr).to.contain('invalid image reference');
  });

  it('a second pull of an unchanged digest is a cache hit with zero blob requests', async () => {
    const ref = `${registry}/${uniqueName('cache')}/catalog:v1`;
    const pushed = await pushCatalog(catalogDir, ref);
    const puller = newPuller();
    await puller.pull(ref);
    const first = snapshot(puller.counters);
    expect(first.requests.blob).to.equal(2); // config + one layer

    const again = await puller.pull(ref);
    expect(again.cached).to.equal(true);
    expect(puller.counters.requests.blob - first.requests.blob, 'blob requests').to.equal(0);
    expect(
      puller.counters.requests.manifest - first.requests.manifest,
      'a tag costs one manifest request',
    ).to.equal(1);

    const before = snapshot(puller.counters);
    const byDigest = await puller.pull(pushed.ref);
    expect(byDigest.cached).to.equal(true);
    expect(puller.counters.requests).to.deep.equal(before.requests);
    expect(puller.counters.cacheHits).to.equal(2);
  });

  it('a multi-arch index picks the requested platform (default linux/amd64)', async () => {
    const ref = `${registry}/${uniqueName('multiarch')}/catalog:v1`;
    const arches = ['arm64', 'amd64', 's390x'] as const;
    const layers = await Promise.all(
      arches.map((a) =>
        gzipLayer([
          { name: `configs/arch.json`, body: JSON.stringify({ schema: 'arch', name: a }) },
        ]),
      ),
    );
    await pushMultiArch(
      ref,
      arches.map((a, i) => ({ platform: { os: 'linux', architecture: a }, layers: [layers[i]!] })),
    );
    const amd = await newPuller().pull(ref);
    expect(await archOf(amd.configsDir)).to.equal('amd64');
    const arm = await newPuller({ platform: { os: 'linux', architecture: 'arm64' } }).pull(ref);
    expect(await archOf(arm.configsDir)).to.equal('arm64');
    const err = await caught(
      newPuller({ platform: { os: 'linux', architecture: 'ppc64le' } }).pull(ref),
    );
    expect(findSourceError(err)?.code).to.equal('NoMatchingPlatform');
  });

  it('Docker v2 manifest lists and manifests work too', async () => {
    const ref = `${registry}/${uniqueName('docker-v2')}/catalog:v1`;
    const arches = ['amd64', 'arm64'] as const;
    const layers = await Promise.all(
      arches.map((a) =>
        gzipLayer([
          { name: 'configs/arch.json', body: JSON.stringify({ schema: 'arch', name: a }) },
        ]),
      ),
    );
    const digest = await pushDockerManifestList(
      ref,
      arches.map((a, i) => ({ platform: { os: 'linux', architecture: a }, layers: [layers[i]!] })),
    );
    const puller = newPuller({ platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } });
    expect(await puller.resolve(ref)).to.equal(digest);
    const r = await puller.pull(ref);
    expect(r.digest).to.equal(digest);
    expect(await archOf(r.configsDir)).to.equal('arm64');
  });

  it('honours the configs label and reports a missing catalog directory (terminal for a digest)', async () => {
    const repo = `${registry}/${uniqueName('label')}/catalog`;
    const layer = await gzipLayer([
      { name: 'var/cat/x.json', body: '{"schema":"x"}' },
      { name: 'configs/no.json', body: '{}' },
    ]);
    await pushLayers(`${repo}:custom`, [layer], { configsDir: '/var/cat' });
    const r = await newPuller().pull(`${repo}:custom`);
    expect(await readdir(r.configsDir)).to.deep.equal(['x.json']);

    const d = await pushLayers(`${repo}:missing`, [layer], { configsDir: '/nothing/here' });
    const byTag = await caught(newPuller().pull(`${repo}:missing`));
    expect(findSourceError(byTag)?.code).to.equal('CatalogDirMissing');
    expect(isRetryable(byTag), 'a tag may be re-pushed').to.equal(true);
    const byDigest = await caught(newPuller().pull(`${repo}@${d.digest}`));
    expect(isRetryable(byDigest)).to.equal(false);
    expect(String((byDigest as Error).message)).to.contain('no catalog directory /nothing/here');
  });

  it('a manifest digest that does not exist is terminal; a missing tag is retryable', async () => {
    const repo = `${registry}/${uniqueName('missing')}/catalog`;
    await pushCatalog(catalogDir, `${repo}:v1`);
    const noDigest = await caught(newPuller().pull(`${repo}@sha256:${'0'.repeat(64)}`));
    expect(findSourceError(noDigest)?.code).to.equal('NotFound');
    expect(isRetryable(noDigest)).to.equal(false);
    const noTag = await caught(newPuller().pull(`${repo}:v2`));
    expect(findSourceError(noTag)?.code).to.equal('NotFound');
    expect(isRetryable(noTag)).to.equal(true);
  });

  describe('hostile layers write nothing outside the target', () => {
    let outside: string;
    beforeEach(async () => {
      outside = path.join(work, uniqueName('outside'));
      await mkdir(outside);
      await writeFile(path.join(outside, 'keep'), 'keep');
    });
    afterEach(async () => {
      expect(await readdir(outside)).to.deep.equal(['keep']);
      expect(await readFile(path.join(outside, 'keep'), 'utf8')).to.equal('keep');
    });

    const pullHostile = async (
      name: string,
      layers: BlobSource[],
      limits?: { maxBytes: number; maxEntries: number },
    ) => {
      const ref = `${registry}/${uniqueName(name)}/catalog:v1`;
      await pushLayers(ref, layers);
      const puller = newPuller(limits ? { limits } : {});
      const result = await settled(puller.pull(ref));
      return { result, puller };
    };

    it('"../" paths fail the pull and nothing is cached', async () => {
      const rel = path.relative(path.join(work, 'x', 'y'), outside);
      const { result, puller } = await pullHostile('dotdot', [
        await gzipLayer([
          { name: `configs/../../../../../../../..${outside}/evil`, body: 'x' },
          { name: `configs/${rel}/evil2`, body: 'x' },
        ]),
      ]);
      expect(findSourceError(result)?.code).to.equal('UnsafeLayer');
      expect(await readdir(puller.cache.root)).to.deep.equal([]);
    });

    it('absolute paths stay under the image root', async () => {
      const { result } = await pullHostile('abs', [
        await gzipLayer([
          { name: `${outside}/evil`, body: 'x' },
          { name: '/configs/ok.json', body: '{}' },
        ]),
      ]);
      const r = result as { configsDir: string; dir: string };
      expect(await readdir(r.configsDir)).to.deep.equal(['ok.json']);
    });

    it('a symlink then a write through it is not followed; hardlinks out are skipped', async () => {
      const { result } = await pullHostile('links', [
        await gzipLayer([
          { name: 'configs/evil', type: 'symlink', linkname: outside },
          { name: 'configs/up', type: 'symlink', linkname: '../../../../../../../../..' },
          { name: 'configs/hl', type: 'link', linkname: `${outside}/keep` },
          { name: 'configs/hl2', type: 'link', linkname: 'etc/passwd' },
        ]),
        await gzipLayer([
          { name: 'configs/evil/pwned', body: 'x' },
          { name: `configs/up/${outside}/pwned`, body: 'x' },
        ]),
      ]);
      const r = result as { configsDir: string };
      expect((await readdir(r.configsDir)).sort()).to.deep.equal(['evil', 'up']);
      expect(await readFile(path.join(r.configsDir, 'evil', 'pwned'), 'utf8')).to.equal('x');
    });

    it('a million tiny entries hit the entry cap', async function () {
      this.timeout(300_000);
      const { result, puller } = await pullHostile('many', [await manyEntriesLayer(1_000_000)]);
      expect(findSourceError(result)?.code).to.equal('LimitExceeded');
      expect((result as Error).message).to.contain('tar entries');
      expect(await readdir(puller.cache.root)).to.deep.equal([]);
    });

    it('a gzip bomb hits the uncompressed byte cap', async () => {
      const bomb = gzipBombLayer(4);
      const { result, puller } = await pullHostile('bomb', [bomb], {
        maxBytes: 256 * 1024 * 1024,
        maxEntries: 1000,
      });
      expect(findSourceError(result)?.code).to.equal('LimitExceeded');
      expect((result as Error).message).to.contain('uncompressed content over the limit');
      expect(await readdir(puller.cache.root)).to.deep.equal([]);
    });
  });

  it('a ref on an unreachable registry name is pulled from its configured mirror', async () => {
    const repoName = uniqueName('mirrored');
    const pushed = await pushCatalog(catalogDir, `${registry}/mirror/${repoName}/catalog:v1`);
    const registries = parseRegistriesConfig(`
[[registry]]
prefix = "unreachable.invalid/${repoName}"
location = "unreachable.invalid/${repoName}"
[[registry.mirror]]
location = "${registry}/mirror/${repoName}"
`);
    const puller = newPuller({ registries });
    const r = await puller.pull(`unreachable.invalid/${repoName}/catalog:v1`);
    expect(r.digest).to.equal(pushed.digest);
    expect(r.ref).to.equal(`unreachable.invalid/${repoName}/catalog@${pushed.digest}`);
    expect(await readFile(path.join(r.configsDir, 'foo', 'catalog.json'), 'utf8')).to.contain(
      'olm.package',
    );

    // Not on the mirror either: the unreachable registry's error is retryable, without ports.
    const err = await caught(puller.pull(`unreachable.invalid/${repoName}/other:v1`));
    expect(isRetryable(err)).to.equal(true);
    expect((err as Error).message).to.not.contain(registry);
  });
});
