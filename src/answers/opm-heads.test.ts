// Channel heads compared with what operator-registry reports (`opm alpha list channels`), for
// the sample catalog and a generated one with skips and skipRange (valid for opm's model
// checks: every bundle in a channel, no stranded entries). opm is built from its Go
// module by hack/opm/build.sh and cached; skipped, saying why, when it cannot be built.
import { execFile, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { readCatalog } from '../fbc/index.js';
import type { AnyBlob } from './fbc-types.js';
import { isChannelBlob } from './fbc-types.js';
import { channelHead } from './graph.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');

/** A seeded catalog whose channels use replaces, skips and skipRange, entries shuffled. */
async function writeGraphCatalog(dir: string, packages: number, seed: number): Promise<void> {
  let state = seed;
  const rnd = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const shuffle = <T>(a: T[]) =>
    a
      .map((x) => [rnd(), x] as const)
      .sort((x, y) => x[0] - y[0])
      .map((x) => x[1]);
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${p}`;
    const n = 2 + Math.floor(rnd() * 8);
    const names = Array.from({ length: n }, (_, i) => `${pkg}.v1.${i}.0`);
    const blobs: unknown[] = [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }];
    const chain = names.map((name, i) => ({ name, ...(i > 0 && { replaces: names[i - 1] }) }));
    // stable: a replaces chain whose first entry replaces a bundle that is not in the catalog
    blobs.push({
      schema: 'olm.channel',
      package: pkg,
      name: 'stable',
      entries: shuffle(chain.map((e, i) => (i === 0 ? { ...e, replaces: `${pkg}.v0.9.0` } : e))),
    });
    // fast: the head skips everything below the entry it replaces
    blobs.push({
      schema: 'olm.channel',
      package: pkg,
      name: 'fast',
      entries: shuffle(
        chain.map((e, i) => (i === n - 1 && n > 2 ? { ...e, skips: names.slice(0, n - 2) } : e)),
      ),
    });
    // candidate: skipRanges on some entries (they do not change the head)
    blobs.push({
      schema: 'olm.channel',
      package: pkg,
      name: 'candidate',
      entries: shuffle(
        chain.map((e, i) => (rnd() < 0.5 ? { ...e, skipRange: `>=1.0.0 <1.${i}.0` } : e)),
      ),
    });
    // tip: only the newest two, the head skipping the older one as well
    if (n >= 3)
      blobs.push({
        schema: 'olm.channel',
        package: pkg,
        name: 'tip',
        entries: shuffle([
          { name: names[n - 2]! },
          { name: names[n - 1]!, replaces: names[n - 2], skips: [names[n - 3]] },
        ]),
      });
    for (const [i, name] of names.entries())
      blobs.push({
        schema: 'olm.bundle',
        package: pkg,
        name,
        image: `example.com/${pkg}:${i}`,
        properties: [{ type: 'olm.package', value: { packageName: pkg, version: `1.${i}.0` } }],
      });
    await mkdir(path.join(dir, pkg), { recursive: true });
    await writeFile(
      path.join(dir, pkg, 'catalog.json'),
      blobs.map((b) => JSON.stringify(b)).join('\n'),
    );
  }
}

async function ourHeads(dir: string): Promise<string[]> {
  const rows: string[] = [];
  for await (const b of readCatalog(dir, { catalog: 'cmp' })) {
    const blob = b.content as AnyBlob;
    if (!isChannelBlob(blob)) continue;
    const h = channelHead(blob);
    rows.push(`${blob.package} ${blob.name} ${h.head ?? `ERROR ${h.error}`}`);
  }
  return rows.sort();
}

async function opmHeads(opm: string, dir: string): Promise<string[]> {
  const { stdout } = await run(opm, ['alpha', 'list', 'channels', dir], { maxBuffer: 1 << 28 });
  return stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/).join(' '))
    .sort();
}

describe('answers/graph: channel heads equal opm alpha list channels', function () {
  this.timeout(30 * 60 * 1000);
  let opm = '';

  before(function () {
    if (spawnSync('go', ['version']).status !== 0) {
      console.log('    skipped: no Go toolchain to build opm (hack/opm/build.sh)');
      this.skip();
    }
    const built = spawnSync(path.join(root, 'hack', 'opm', 'build.sh'), { encoding: 'utf8' });
    if (built.status !== 0) {
      console.log(`    skipped: opm could not be built: ${built.stderr.trim().split('\n').pop()}`);
      this.skip();
    }
    opm = built.stdout.trim();
  });

  it('examples/catalog', async () => {
    const dir = path.join(root, 'examples', 'catalog');
    const ours = await ourHeads(dir);
    expect(ours).to.include('example-operator stable example-operator.v1.1.0');
    expect(ours).to.include('example-operator candidate example-operator.v1.2.0');
    expect(ours).to.deep.equal(await opmHeads(opm, dir));
  });

  it('a generated catalog with skips and skipRange', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fbcgen-heads-'));
    try {
      await writeGraphCatalog(dir, 40, 11);
      const ours = await ourHeads(dir);
      expect(ours.length).to.be.greaterThan(120);
      expect(ours).to.deep.equal(await opmHeads(opm, dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
