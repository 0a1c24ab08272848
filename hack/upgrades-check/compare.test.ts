// The client library's skipRange matching and one-step upgrades compared with
// github.com/blang/semver/v4 itself (main.go, built and cached by build.sh): range edge cases
// (pre-releases, wildcards, ||, spacing, invalid syntax) and a generated catalog whose channels
// mix replaces, skips and skipRange over release and pre-release versions. Skipped, saying why,
// when there is no Go toolchain.
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import type { AnyBlob } from '../../src/client/index.js';
import { answersCatalog } from '../../test/support/answers-catalog.js';
import {
  blangSatisfies,
  checkerBinary,
  compareBlobs,
  compareInstallModes,
  ourSatisfies,
} from './compare.js';

const RANGES = [
  '>=1.0.0 <1.2.0',
  '<1.2.0',
  '>1.0.0',
  '<=1.1.0',
  '1.x',
  '1.1.x',
  '>=1.x',
  '<1.x',
  '>1.1.x',
  '<=1.1.x',
  '!=1.1.0',
  '=1.1.0',
  '==1.1.0',
  '1.1.0',
  '>= 1.0.0 < 1.2.0',
  '<1.0.0 || >=1.1.0 <1.2.0',
  '>=1.0.0-0 <1.2.0-0',
  '<1.0.0-rc.10',
  '>1.0.0-alpha',
  '>=1.0',
  '^1.0.0',
  '~1.0.0',
  '>=1.0.0,<2.0.0',
  '',
  '||',
  '>=v1.0.0',
  '>=01.0.0',
  '1.x.x',
  '*',
  '>=1.0.0 x',
  '>=1.0.0 || 2',
  '1.0.0-x',
  '>=1.0.0-x',
  '<=1.0.0-x',
  '~1.x',
  '1.2.x.x',
  '>=1.2.x.x',
  '>1.2.x',
  '!1.x',
  '<1.0.0 ||',
  '|| <1.0.0',
  '>=1.0.0 <=1.1.0 || >1.2.0-rc.1 <2.0.0',
  '  >=1.0.0   <1.1.0  ',
  '>=constructor1.0.0',
];
const VERSIONS = [
  '0.9.0',
  '1.0.0-0',
  '1.0.0-alpha',
  '1.0.0-rc.9',
  '1.0.0-rc.10',
  '1.0.0',
  '1.0.0+build.1',
  '1.0.1',
  '1.1.0-rc.1',
  '1.1.0',
  '1.1.5-alpha.1',
  '1.2.0-0',
  '1.2.0-rc.1',
  '1.2.0',
  '2.0.0-rc.1',
  '2.0.0',
];

/** A seeded catalog: channels over release and pre-release versions with all three rules. */
function generatedCatalog(packages: number, seed: number): AnyBlob[] {
  let state = seed;
  const rnd = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const blobs: AnyBlob[] = [];
  for (let p = 0; p < packages; p++) {
    const pkg = `gen-${p}`;
    const versions = [
      ...new Set(Array.from({ length: 3 + Math.floor(rnd() * 8) }, () => pick(VERSIONS))),
    ];
    const names = versions.map((v) => `${pkg}.v${v}`);
    for (const [i, v] of versions.entries())
      blobs.push({
        schema: 'olm.bundle',
        package: pkg,
        name: names[i]!,
        image: `example.com/${pkg}:${i}`,
        properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
      });
    for (const ch of ['stable', 'fast']) {
      blobs.push({
        schema: 'olm.channel',
        package: pkg,
        name: ch,
        entries: names.map((name, i) => ({
          name,
          ...(i > 0 && rnd() < 0.7 && { replaces: names[i - 1] }),
          ...(rnd() < 0.3 && { skips: names.filter(() => rnd() < 0.3) }),
          ...(rnd() < 0.6 && { skipRange: pick(RANGES) }),
        })),
      });
    }
  }
  return blobs;
}

describe('client/upgrades equal an independent computation on blang/semver', function () {
  this.timeout(10 * 60 * 1000);
  let bin = '';

  before(function () {
    if (spawnSync('go', ['version']).status !== 0) {
      console.log('    skipped: no Go toolchain (hack/upgrades-check/build.sh)');
      this.skip();
    }
    try {
      bin = checkerBinary();
    } catch (err) {
      console.log(`    skipped: ${(err as Error).message}`);
      this.skip();
    }
  });

  it('skipRange matching: every range × version edge case as blang decides it', async () => {
    const pairs = RANGES.flatMap((r) => VERSIONS.map((v) => [r, v] as const));
    const theirs = await blangSatisfies(bin, pairs);
    const ours = ourSatisfies(pairs);
    const diff = pairs.filter((_, i) => ours[i] !== theirs[i]).map(([r, v]) => `${r} ∋ ${v}`);
    expect(diff).to.deep.equal([]);
    // the edge cases are real: both answers and parse errors occur
    expect(new Set(theirs)).to.deep.equal(new Set([true, false, 'error']));
  });

  it('one-step upgrades of every entry of a generated catalog (replaces, skips, skipRange, pre-releases)', async () => {
    const r = await compareBlobs(bin, generatedCatalog(60, 7));
    expect(r.differences).to.deep.equal([]);
    expect(r.entries).to.be.greaterThan(300);
    expect(r.byVia.skipRange).to.be.greaterThan(100);
    expect(r.byVia.skips).to.be.greaterThan(20);
  });

  it('packages --install-mode on a generated catalog equals the independent reading of each head', async () => {
    const m = await compareInstallModes(bin, answersCatalog(60, 3));
    expect(m.differences).to.deep.equal([]);
    expect(m.withCsvHead).to.be.greaterThan(20);
    expect(Object.values(m.matching).every((n) => n > 5)).to.equal(true);
  });
});
