// operator-controller sees the same catalog from catalogd-ts as from upstream catalogd (issue 37
// point 3, docs/olmv1.md "The same catalog as upstream"): catalogd-ts serves a catalog image of an
// FBC directory, and hack/olmv1-check reads it with operator-controller v1.5.1's own catalog client
// and resolver, and the same directory as upstream catalogd v1.5.1's storage code serves it.
// On the committed excerpt of real catalogs (test/fixtures/olmv1-check), and with
// $CATALOGD_REAL_CATALOGS (colon-separated directories, as in gitops.test.ts) on those too.
import { expect } from 'chai';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { installCrds } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { pushAndSync, tearDownE2e } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';
import type { Olmv1CheckResult } from '../support/olmv1-check.js';
import { olmv1BinDir, runOlmv1Check } from '../support/olmv1-check.js';

const EXCERPT = path.join(repoRoot, 'test', 'fixtures', 'olmv1-check', 'catalog');

const REAL = (process.env.CATALOGD_REAL_CATALOGS ?? '')
  .split(':')
  .filter((s) => s !== '')
  .map((s) => s.split('@')[0] ?? '');

function explain(r: Olmv1CheckResult): string {
  return `exit ${r.code}: ${r.stderr}${(r.summary?.differences ?? []).join('\n')}`;
}

describe('OLM v1 check: operator-controller sees the same catalog from catalogd-ts as from upstream catalogd', function () {
  // The first build of operator-controller takes minutes; `make test` builds it before (olmv1).
  this.timeout(40 * 60_000);
  let binDir = '';
  let controller: RunningController | undefined;
  const catalogs: string[] = [];
  let tmp = '';

  /** Serves dir from catalogd-ts (as a catalog image) and returns its ClusterCatalog once synced. */
  async function serve(dir: string): Promise<ClusterCatalog> {
    const name = uniqueName('olmv1-check');
    catalogs.push(name);
    return pushAndSync(name, dir, `olmv1-check:${uniqueName('v')}`, { timeoutMs: 600_000 });
  }

  before(async () => {
    binDir = await olmv1BinDir();
    await installCrds();
    controller = await startController();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'olmv1-check-'));
  });

  after(async () => {
    await tearDownE2e({ controllers: [controller], catalogs, tmp });
  });

  let excerpt: ClusterCatalog | undefined;

  it('the committed excerpt: same packages, channels, bundles, deprecations, other blobs and resolutions', async function () {
    this.timeout(300_000);
    excerpt = await serve(EXCERPT);
    const r = await runOlmv1Check(binDir, EXCERPT, excerpt);
    expect(r.code, explain(r)).to.equal(0);
    expect(r.summary).to.include({
      packages: 5,
      channels: 8,
      bundles: 10,
      deprecations: 1,
      others: 1,
      // per package (5), per channel (8), upgrade from each bundle (10)
      resolutions: 23,
    });
    expect(r.summary?.differences).to.deep.equal([]);
  });

  it('fails, naming each difference, when upstream serves something else', async function () {
    this.timeout(120_000);
    if (!excerpt) this.skip();
    // Upstream serves the excerpt with appian-operator's head bundle removed from its file and
    // channel, and one field of kubevirt-wol's bundle changed; catalogd-ts serves the excerpt.
    const altered = path.join(tmp, 'altered');
    await cp(EXCERPT, altered, { recursive: true });
    const appian = path.join(altered, 'appian-operator', 'catalog.yaml');
    const docs = (await readFile(appian, 'utf8')).split(/^---\n/m);
    const head = 'appian-operator.v0.205.0';
    const kept = docs.filter((d) => !new RegExp(`^name: ${head}$`, 'm').test(d));
    expect(kept).to.have.length(docs.length - 1);
    await writeFile(
      appian,
      kept.join('---\n').replace(`- name: ${head}\n  replaces: appian-operator.v0.200.0\n`, ''),
    );
    const wol = path.join(altered, 'kubevirt-wol', 'catalog.yaml');
    const text = await readFile(wol, 'utf8');
    const changed = text.replace(/^image: (.*)$/m, 'image: $1-altered');
    expect(changed).to.not.equal(text);
    await writeFile(wol, changed);

    const r = await runOlmv1Check(binDir, altered, excerpt);
    expect(r.code, explain(r)).to.equal(1);
    const diffs = r.summary?.differences ?? [];
    const starting = (prefix: string) => diffs.filter((d) => d.startsWith(prefix));
    expect(diffs).to.include(
      `package "appian-operator": olm.bundle ${head}: only from catalogd-ts`,
    );
    expect(starting('package "appian-operator": olm.channel alpha differs')).to.have.length(1);
    expect(
      starting('package "kubevirt-wol": olm.bundle kubevirt-wol.v0.0.2 differs'),
    ).to.have.length(1);
    // operator-controller would install another bundle: upstream's head is one version older.
    expect(
      starting(
        'resolution appian-operator: upstream catalogd appian-operator.v0.200.0 0.200.0 ' +
          `deprecation null; catalogd-ts ${head} 0.205.0`,
      ),
      diffs.join('\n'),
    ).to.have.length(1);
  });

  for (const dir of REAL) {
    it(`real catalog ${dir}: the same view`, async function () {
      this.timeout(30 * 60_000);
      const c = await serve(dir);
      const t0 = performance.now();
      const r = await runOlmv1Check(binDir, dir, c);
      const s = r.summary;
      console.log(
        `    ${dir}: ${s?.packages} packages, ${s?.channels} channels, ${s?.bundles} bundles, ` +
          `${s?.deprecations} deprecations, ${s?.others} other blobs; ${s?.resolutions} resolutions ` +
          `(${s?.resolvedBundles} found a bundle); ${s?.differences.length} differences ` +
          `(check ${Math.round(performance.now() - t0)} ms)`,
      );
      expect(r.code, explain(r)).to.equal(0);
      expect(s?.differences).to.deep.equal([]);
    });
  }
});
