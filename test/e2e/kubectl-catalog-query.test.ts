// `kubectl catalog query` and the GraphQL endpoint across catalogs end to end (docs/graphql.md,
// "Across catalogs"): a real controller serves two catalogs of different priority; the plugin,
// run as a process, asks each catalog's endpoint and the one across both, whose order follows
// the ClusterCatalogs' priority as the controller's informer sees it (a patched priority
// reorders the answer, an Unavailable catalog leaves it).
import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyCatalog, push, sampleDir, waitSynced } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { ProcessResult } from '../support/process.js';
import { runProcess, tsxEntry } from '../support/process.js';

/** Runs the plugin as a process, as kubectl would (KUBECONFIG from the e2e hooks). */
function kc(...args: string[]): Promise<ProcessResult> {
  return runProcess(process.execPath, [...tsxEntry('plugin/kubectl-catalog.ts'), ...args], {
    cwd: repoRoot,
  });
}

interface Row {
  catalog: string;
  name: string;
}

describe('kubectl catalog query e2e: one catalog, and across catalogs by priority', function () {
  this.timeout(300_000);
  let controller: RunningController | undefined;
  let tmp = '';
  const low = uniqueName('q-low');
  const high = uniqueName('q-high');
  const pkg = uniqueName('q-pkg');

  before(async () => {
    ({ controller, tmp } = await setUpE2e({ tmpPrefix: 'query-e2e-', controller: {} }));
    const dir = path.join(tmp, 'high');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'catalog.json'),
      [
        { schema: 'olm.package', name: pkg, defaultChannel: 'stable' },
        { schema: 'olm.channel', package: pkg, name: 'stable', entries: [{ name: `${pkg}.v1` }] },
        {
          schema: 'olm.bundle',
          package: pkg,
          name: `${pkg}.v1`,
          image: `example.com/${pkg}:1`,
          properties: [{ type: 'olm.package', value: { packageName: pkg, version: '1.0.0' } }],
        },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    await pushAndSync(low, sampleDir, `sample:${low}`);
    await applyCatalog(high, await push(dir, `query:${high}`), { priority: 10 });
    await waitSynced(high);
  });

  after(async () => {
    await tearDownE2e({ controllers: [controller], catalogs: [low, high], tmp });
  });

  /** The packages across catalogs, only this suite's catalogs (others may be on the cluster). */
  async function across(): Promise<{ rows: Row[]; code: number; stderr: string }> {
    const r = await kc('query', '{ olmpackages { catalog name } }');
    const data = JSON.parse(r.stdout || '{}') as { olmpackages?: Row[] };
    const rows = (data.olmpackages ?? []).filter((p) => p.catalog === low || p.catalog === high);
    return { rows, code: r.code, stderr: r.stderr };
  }

  it("asks one catalog's endpoint with --catalog", async () => {
    const r = await kc('query', '{ olmpackages { name } }', '--catalog', high);
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ olmpackages: [{ name: pkg }] });
    const y = await kc('query', '{ olmbundles { name } }', '--catalog', high, '-o', 'yaml');
    expect(y.stdout).to.equal(`olmbundles:\n  - name: ${pkg}.v1\n`);
  });

  it('answers across catalogs, higher priority first, each object naming its catalog', async () => {
    const { rows } = await across();
    expect(rows[0]).to.deep.equal({ catalog: high, name: pkg });
    expect(rows.slice(1).length).to.be.greaterThan(0);
    expect(rows.slice(1).every((p) => p.catalog === low)).to.equal(true);
    const r = await kc('query', '{ catalogs { name priority serving } }');
    const names = (JSON.parse(r.stdout) as { catalogs: Array<{ name: string; priority: number }> })
      .catalogs;
    const ours = names.filter((c) => c.name === low || c.name === high);
    expect(ours).to.deep.equal([
      { name: high, priority: 10, serving: true },
      { name: low, priority: 0, serving: true },
    ]);
  });

  it('prints the errors of an answer on stderr and exits 1; a missing catalog is one line', async () => {
    const bad = await kc('query', '{ olmpackages { nope } }', '--catalog', low);
    expect(bad.code).to.equal(1);
    expect(bad.stdout).to.equal('');
    expect(bad.stderr).to.match(/^error: Cannot query field "nope" on type "OlmPackage"/);
    const missing = await kc('query', '{ olmpackages { name } }', '--catalog', `${low}-none`);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal(
      `error: ClusterCatalog "${low}-none" not found (see: kubectl get clustercatalogs)\n`,
    );
  });

  it('follows the ClusterCatalogs: a new priority reorders, an Unavailable catalog leaves', async () => {
    await kubectlOk([
      'patch',
      'clustercatalog',
      low,
      '--type=merge',
      '-p',
      '{"spec":{"priority":20}}',
    ]);
    await pollUntil(async () => ((await across()).rows[0]?.catalog === low ? true : undefined), {
      timeoutMs: 30_000,
      what: `catalog ${low} first across catalogs once its priority is 20`,
    });
    await kubectlOk([
      'patch',
      'clustercatalog',
      high,
      '--type=merge',
      '-p',
      '{"spec":{"availabilityMode":"Unavailable"}}',
    ]);
    const gone = await pollUntil(
      async () => {
        const a = await across();
        return a.rows.every((p) => p.catalog !== high) ? a : undefined;
      },
      { timeoutMs: 60_000, what: `catalog ${high} left out once Unavailable` },
    );
    // Left out without an error, as operator-controller leaves it out.
    expect(gone.stderr).to.not.include(high);
  });
});
