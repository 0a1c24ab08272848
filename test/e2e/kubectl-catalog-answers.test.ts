// `kubectl catalog` answers (issue 24) end to end: a real controller syncs a generated catalog
// of many packages and channels (test/support/answers-catalog.ts: replaces, skips, skipRange,
// pre-releases, deprecations, CSV metadata) into the local control plane; the plugin's answers
// are compared with the client library's pure functions on the same blobs, and the plugin runs
// as a process for its tables, documents and errors.
import { expect } from 'chai';
import path from 'node:path';
import type { BundleBlob, ChannelBlob, DeprecationsBlob } from '../../src/client/index.js';
import type { PackageFilter } from '../../src/client/index.js';
import {
  CatalogClient,
  INSTALL_MODES,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
  matchesPackageFilter,
  packageDetails,
  packageFacts,
  upgradesFrom,
  versionMap,
} from '../../src/client/index.js';
import { run } from '../../src/plugin/main.js';
import { answersCatalog, writeAnswersCatalog } from '../support/answers-catalog.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';
import type { ProcessResult } from '../support/process.js';
import { runProcess } from '../support/process.js';

const plugin = path.join(repoRoot, 'src', 'plugin', 'kubectl-catalog.ts');

/** Runs a TypeScript entry point as a process (KUBECONFIG from the e2e hooks). */
const runTs = (entry: string, args: string[]) =>
  runProcess(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: repoRoot });

/** Runs the plugin as a process, as kubectl would. */
const kc = (...args: string[]) => runTs(plugin, args);

/**
 * Runs the plugin in this process with a request-counting client: `requests` are the command's,
 * the client's discovery of the object view (its two group-version documents, once per client)
 * is checked apart.
 */
async function inProcess(
  args: string[],
): Promise<ProcessResult & { requests: number; discovery: number }> {
  let requests = 0;
  let discovery = 0;
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    client: () =>
      new CatalogClient({
        onRequest: (_verb, resource) => (resource === 'discovery' ? discovery++ : requests++),
      }),
  });
  return { code, stdout: out.join(''), stderr: err.join(''), requests, discovery };
}

const table = (out: string) =>
  out
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/ {2,}/));

describe('kubectl catalog answers e2e (generated catalog)', function () {
  this.timeout(300_000);
  const catalog = uniqueName('kc-ans');
  const prefix = uniqueName('ans');
  const blobs = answersCatalog(24, 5, prefix);
  let controller: RunningController;
  let tmp: string;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'kc-answers-e2e-' }));
    await writeAnswersCatalog(tmp, blobs);
    controller = await startController();
    await pushAndSync(catalog, tmp, `kc-answers:${uniqueName('v')}`);
  });

  after(async () => {
    await tearDownE2e({ catalogs: [catalog], deleteFirst: true, controllers: [controller], tmp });
  });

  it('upgrades: every entry of every channel agrees with the library on the same blobs, in 3 requests each', async () => {
    const channels = blobs.filter((b): b is ChannelBlob => isChannelBlob(b as never));
    const bundles = blobs.filter((b): b is BundleBlob => isBundleBlob(b as never));
    const deprecations = blobs.filter((b): b is DeprecationsBlob => isDeprecationsBlob(b as never));
    let compared = 0;
    let withUpgrades = 0;
    for (const ch of channels) {
      const versions = versionMap(bundles.filter((b) => b.package === ch.package));
      const dep = deprecations.find((d) => d.package === ch.package);
      for (const e of ch.entries) {
        const r = await inProcess([
          'upgrades',
          ch.package,
          '--from',
          e.name,
          '--channel',
          ch.name,
          '--catalog',
          catalog,
          '-o',
          'json',
        ]);
        expect(r.code, r.stderr).to.equal(0);
        expect([r.requests, r.discovery]).to.deep.equal([3, 2]);
        const doc = JSON.parse(r.stdout) as Record<string, unknown>;
        const want = upgradesFrom(ch, e.name, versions, dep);
        expect(doc.items, `${ch.package}/${ch.name} from ${e.name}`).to.deep.equal(want.items);
        expect(doc.path).to.deep.equal(want.path);
        expect(doc.head).to.equal(want.head);
        compared++;
        if (want.items.length > 0) withUpgrades++;
      }
    }
    expect(compared).to.be.greaterThan(150);
    expect(withUpgrades).to.be.greaterThan(100);
  });

  it('upgrades: the table, the path line, deprecation marks and errors from the plugin process', async () => {
    // ans-1 has deprecations: channel fast, its oldest bundle.
    const pkg = `${prefix}-1`;
    const ch = blobs.find(
      (b) => b.schema === 'olm.channel' && b.package === pkg && b.name === 'fast',
    ) as unknown as ChannelBlob;
    const oldest = ch.entries[0]!.name;
    const r = await kc(
      'upgrades',
      pkg,
      '--from',
      oldest,
      '--channel',
      'fast',
      '--catalog',
      catalog,
    );
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('warning: channel fast is deprecated: fast is retired.');
    expect(r.stderr).to.include(
      `the installed bundle ${oldest} is deprecated: ${oldest} has a CVE.`,
    );
    const rows = table(r.stdout.split('\n\n')[0]!);
    expect(rows[0]).to.deep.equal(['BUNDLE', 'VERSION', 'VIA', 'HEAD', 'DEPRECATED']);
    expect(rows.length).to.be.greaterThan(1);
    expect(r.stdout).to.match(/\n\nPath to head \(\d+ steps?\): /);
    const version = oldest.slice(`${pkg}.v`.length);
    expect(r.stdout).to.include(`: ${oldest} (${version}) [deprecated] -> `);
    const unknown = await kc('upgrades', pkg, '--from', '7.7.7', '--catalog', catalog);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(
      /(^|\n)error: package ".*" has no bundle named or versioned "7.7.7"; its versions: /,
    );
    // The example program of docs/client.md gives the same answer (default channel: stable).
    const stable = blobs.find(
      (b) => b.schema === 'olm.channel' && b.package === pkg && b.name === 'stable',
    ) as unknown as ChannelBlob;
    const from = stable.entries[0]!.name;
    const example = await runTs(path.join(repoRoot, 'examples', 'client', 'upgrades.ts'), [
      catalog,
      pkg,
      from,
    ]);
    expect(example.code, example.stderr).to.equal(0);
    const bundles = blobs.filter(
      (b): b is BundleBlob => isBundleBlob(b as never) && b.package === pkg,
    );
    const dep = blobs.find((b) => isDeprecationsBlob(b as never) && b.package === pkg) as never;
    const want = upgradesFrom(stable, from, versionMap(bundles), dep);
    expect(example.stdout).to.equal(
      [
        ...want.items.map(
          (i) =>
            `${i.name} ${i.version ?? ''} via ${i.via.join('+')}${i.deprecated ? ' (deprecated)' : ''}`,
        ),
        `path: ${want.path.map((s) => s.name).join(' -> ') || 'none'}`,
      ].join('\n') + '\n',
    );
    const noFrom = await kc('upgrades', pkg);
    expect(noFrom.code).to.equal(2);
    const noPkg = await kc('upgrades', 'no-such-package-xyz', '--from', '1.0.0');
    expect(noPkg.code).to.equal(1);
    expect(noPkg.stderr).to.include('package "no-such-package-xyz" not found in any catalog');
  });

  it('packages: each filter (and combinations) selects what the library selects on the same blobs, in 6 requests', async () => {
    const pkgs = blobs.filter((b) => isPackageBlob(b as never));
    const expected = (f: PackageFilter) =>
      pkgs
        .filter((p) =>
          matchesPackageFilter(
            packageFacts(
              p as never,
              blobs.filter((c) => isChannelBlob(c as never) && c.package === p.name) as never,
              blobs.filter((b) => isBundleBlob(b as never) && b.package === p.name) as never,
            ),
            f,
          ),
        )
        .map((p) => p.name as string)
        .sort();
    const cases: Array<[string[], PackageFilter]> = [
      ...INSTALL_MODES.map((m): [string[], PackageFilter] => [
        ['--install-mode', m],
        { installMode: m },
      ]),
      [['--kube-version', '1.28'], { kubeVersion: '1.28' }],
      [['--openshift-version', '4.17'], { openshiftVersion: '4.17' }],
      [['--arch', 'arm64'], { arch: 'arm64' }],
      [['--os', 'linux', '--category', 'Database'], { os: 'linux', category: 'Database' }],
      [
        ['--capability', 'full lifecycle', '--provider', 'even'],
        { capability: 'full lifecycle', provider: 'even' },
      ],
      [
        ['--keyword', 'sql', '--install-mode', 'AllNamespaces'],
        { keyword: 'sql', installMode: 'AllNamespaces' },
      ],
      [['--search', 'databases'], { search: 'databases' }],
    ];
    let nonEmpty = 0;
    for (const [flags, f] of cases) {
      const r = await inProcess(['packages', '--catalog', catalog, ...flags, '-o', 'json']);
      expect(r.code, r.stderr).to.equal(0);
      expect([r.requests, r.discovery], flags.join(' ')).to.deep.equal([6, 2]);
      const names = (JSON.parse(r.stdout) as { items: Array<{ name: string }> }).items.map(
        (i) => i.name,
      );
      const want = expected(f);
      expect(names, flags.join(' ')).to.deep.equal(want);
      if (want.length > 0 && want.length < pkgs.length) nonEmpty++;
    }
    expect(nonEmpty).to.be.greaterThan(8);
    // Packages without CSV metadata (every fifth) never pass a CSV filter.
    const bare = `${prefix}-4`;
    const all = await inProcess([
      'packages',
      '--catalog',
      catalog,
      '--install-mode',
      'OwnNamespace',
    ]);
    expect(all.stdout).not.to.include(`${bare} `);
    // The table: DEPRECATED column; a deprecated package says so.
    const table1 = table((await kc('packages', '--catalog', catalog)).stdout);
    expect(table1[0]).to.deep.equal([
      'NAME',
      'CATALOG',
      'DEFAULT CHANNEL',
      'CHANNELS',
      'DEPRECATED',
      'DESCRIPTION',
    ]);
    expect(table1.find((row) => row[0] === `${prefix}-1`)?.[4]).to.equal('true');
    expect(table1.find((row) => row[0] === `${prefix}-2`)?.[4]).to.equal('false');
    const bad = await kc('packages', '--install-mode', 'Everything');
    expect(bad.code).to.equal(2);
  });

  it('show: the document equals the library on the same blobs; the text screen; unknown package', async () => {
    const of = (name: string) => {
      const p = blobs.find((b) => b.schema === 'olm.package' && b.name === name)!;
      return packageDetails(
        catalog,
        p as never,
        blobs.filter((b) => isChannelBlob(b as never) && b.package === name) as never,
        blobs.filter((b) => isBundleBlob(b as never) && b.package === name) as never,
        blobs.find((b) => isDeprecationsBlob(b as never) && b.package === name) as never,
      );
    };
    for (const i of [0, 1, 4]) {
      const name = `${prefix}-${i}`;
      const r = await inProcess(['show', name, '--catalog', catalog, '-o', 'json']);
      expect(r.code, r.stderr).to.equal(0);
      expect([r.requests, r.discovery]).to.deep.equal([3, 2]);
      expect(JSON.parse(r.stdout), name).to.deep.equal(JSON.parse(JSON.stringify(of(name))));
    }
    // A package whose default channel has a head with CSV metadata.
    const rich = [...Array(24).keys()].map((n) => `${prefix}-${n}`).find((n) => of(n).csvMetadata)!;
    const d = of(rich);
    const text = await kc('show', rich, '--catalog', catalog);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(new RegExp(`^Name: +${rich}\\n`));
    expect(text.stdout).to.include(`Provider:                ${d.provider?.name}\n`);
    expect(text.stdout).to.include(`Architectures:           ${d.archs.join(', ')}\n`);
    expect(text.stdout).to.include(
      `Install modes:           ${d.installModes.join(', ') || '<none>'}\n`,
    );
    expect(text.stdout).to.include(
      `Head:                    ${d.head?.name} (${d.head?.version})\n`,
    );
    const bare = await kc('show', `${prefix}-4`, '--catalog', catalog);
    expect(bare.stdout).to.include('the head bundle has no CSV metadata');
    const missing = await kc('show', 'no-such-package-xyz');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('package "no-such-package-xyz" not found in any catalog');
  });
});
