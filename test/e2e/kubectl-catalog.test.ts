// `kubectl catalog` end to end: a real controller syncs the sample catalog (examples/catalog)
// into the local control plane, then the plugin runs as a process (and once through kubectl's
// plugin discovery) and its outputs are checked against what the FBC fixture says.
import { expect } from 'chai';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { CatalogClient } from '../../src/client/index.js';
import { run } from '../../src/plugin/main.js';
import { pushCatalog } from '../../src/source/index.js';
import { applyCatalog, sampleDir, objectsSynced } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { ProcessResult } from '../support/process.js';
import { runProcess } from '../support/process.js';

const plugin = path.join(repoRoot, 'src', 'plugin', 'kubectl-catalog.ts');

function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return runProcess(cmd, args, { cwd: repoRoot, env });
}

/** Runs the plugin as a process, as kubectl would (KUBECONFIG from the e2e hooks). */
function kc(...args: string[]): Promise<ProcessResult> {
  return exec(process.execPath, ['--import', 'tsx', plugin, ...args]);
}

async function kcOk(...args: string[]): Promise<string> {
  const r = await kc(...args);
  if (r.code !== 0) throw new Error(`kubectl-catalog ${args.join(' ')}: ${r.code} ${r.stderr}`);
  return r.stdout;
}

/** A table's rows as arrays of cells (cells never contain 2+ spaces in our fixtures). */
function table(out: string): string[][] {
  return out
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/ {2,}/));
}

async function waitServing(name: string): Promise<ClusterCatalog> {
  return pollUntil(
    async () => {
      const c = JSON.parse(
        await kubectlOk(['get', 'clustercatalog', name, '-o', 'json']),
      ) as ClusterCatalog;
      return objectsSynced(c) && c.status?.contentHash ? c : undefined;
    },
    { timeoutMs: 120_000, what: `ClusterCatalog ${name} to be served` },
  );
}

describe('kubectl catalog e2e', function () {
  this.timeout(300_000);
  let controller: RunningController;
  let tmp: string;
  const a = uniqueName('kc-a');
  const b = uniqueName('kc-b');
  const c = uniqueName('kc-c');
  const e = uniqueName('kc-e');
  // A package name no other test uses, for the catalog lookup without --catalog.
  const pkg = uniqueName('kc-pkg');
  // 70 characters: its label values are hash-encoded, its spec fields are exact.
  const longPkg = uniqueName('kc-long').padEnd(70, 'x');
  let uniqueRef: string;

  before(async () => {
    await kubectlOk(['apply', '--server-side', '-f', path.join(repoRoot, 'crds')]);
    tmp = await mkdtemp(path.join(os.tmpdir(), 'kubectl-catalog-e2e-'));
    const sampleRef = (
      await pushCatalog(sampleDir, `${process.env.REGISTRY}/e2e/kubectl-catalog:${uniqueName('v')}`)
    ).ref;
    const dir = path.join(tmp, 'unique');
    await mkdir(path.join(dir, pkg), { recursive: true });
    await writeFile(
      path.join(dir, pkg, 'catalog.json'),
      [
        { schema: 'olm.package', name: pkg, defaultChannel: 'stable' },
        {
          schema: 'olm.channel',
          package: pkg,
          name: 'stable',
          entries: [{ name: `${pkg}.v0.1.0` }, { name: `${pkg}.v0.2.0`, skips: [`${pkg}.v0.1.0`] }],
        },
        ...['0.1.0', '0.2.0'].map((v) => ({
          schema: 'olm.bundle',
          package: pkg,
          name: `${pkg}.v${v}`,
          image: `example.com/${pkg}:${v}`,
          properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
        })),
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    await mkdir(path.join(dir, 'long'), { recursive: true });
    await writeFile(
      path.join(dir, 'long', 'catalog.json'),
      [
        { schema: 'olm.package', name: longPkg, defaultChannel: 'stable' },
        { schema: 'olm.channel', package: longPkg, name: 'stable', entries: [{ name: 'long.v1' }] },
        {
          schema: 'olm.bundle',
          package: longPkg,
          name: 'long.v1',
          image: 'example.com/long:1',
          properties: [{ type: 'olm.package', value: { packageName: longPkg, version: '1.0.0' } }],
        },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    uniqueRef = (
      await pushCatalog(dir, `${process.env.REGISTRY}/e2e/kubectl-catalog-u:${uniqueName('v')}`)
    ).ref;
    controller = await startController();
    await applyCatalog(a, sampleRef);
    await applyCatalog(b, uniqueRef);
    await waitServing(a);
    await waitServing(b);
  });

  after(async () => {
    await kubectlOk(['delete', 'clustercatalog', a, b, c, e, '--ignore-not-found', '--wait=false']);
    await controller?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('list: the catalogs with their state', async () => {
    const rows = table(await kcOk('list'));
    expect(rows[0]).to.deep.equal([
      'NAME',
      'SERVING',
      'PROGRESSING',
      'OBJECTS',
      'LAST UNPACKED',
      'DIGEST',
    ]);
    const row = rows.find((r) => r[0] === a)!;
    expect(row.slice(1, 4)).to.deep.equal(['True (Available)', 'True (Succeeded)', '9']);
    expect(row[5]).to.match(/^sha256:[a-f0-9]{12}$/);
    const json = JSON.parse(await kcOk('list', '-o', 'json')) as {
      items: Array<{ name: string; objectCount: number; contentHash: string }>;
    };
    expect(json.items.find((i) => i.name === a)).to.include({ objectCount: 9 });
  });

  it('packages: default channel and channel count, --search, --no-headers', async () => {
    const rows = table(await kcOk('packages', '--catalog', a));
    expect(rows).to.deep.equal([
      ['NAME', 'CATALOG', 'DEFAULT CHANNEL', 'CHANNELS', 'DEPRECATED', 'DESCRIPTION'],
      [
        'example-operator',
        a,
        'stable',
        '2',
        'false',
        'An example operator, bundled with catalogd-ts as its samp...',
      ],
      ['utility-operator', a, 'alpha', '1', 'false', '<none>'],
    ]);
    const searched = table(
      await kcOk('packages', '--catalog', a, '--search', 'UTIL', '--no-headers'),
    );
    expect(searched).to.deep.equal([['utility-operator', a, 'alpha', '1', 'false', '<none>']]);
    const all = table(await kcOk('packages', '--search', pkg));
    expect(all.slice(1)).to.deep.equal([[pkg, b, 'stable', '1', 'false', '<none>']]);
  });

  it('channels: heads (replaces, skipRange, skips) and entry counts', async () => {
    const rows = table(await kcOk('channels', 'example-operator', '--catalog', a));
    expect(rows).to.deep.equal([
      ['CHANNEL', 'HEAD', 'ENTRIES', 'DEFAULT', 'DEPRECATED'],
      ['candidate', 'example-operator.v1.2.0', '3', 'false', 'false'],
      ['stable', 'example-operator.v1.1.0', '2', 'true', 'false'],
    ]);
    // without --catalog: the only catalog with the package is found
    expect(table(await kcOk('channels', pkg)).slice(1)).to.deep.equal([
      ['stable', `${pkg}.v0.2.0`, '2', 'true', 'false'],
    ]);
    const y = await kcOk('channels', 'example-operator', '--catalog', a, '-o', 'yaml');
    expect(y).to.include('head: example-operator.v1.2.0');
  });

  it('bundles: version, image, channels and provided APIs, newest first', async () => {
    const rows = table(await kcOk('bundles', 'example-operator', '--catalog', a));
    expect(rows).to.deep.equal([
      ['BUNDLE', 'VERSION', 'CHANNELS', 'DEPRECATED', 'IMAGE', 'PROVIDES'],
      [
        'example-operator.v1.2.0',
        '1.2.0',
        'candidate',
        'false',
        'quay.io/example/example-operator-bundle:v1.2.0',
        'example.com/v1/Example,example.com/v1alpha1/ExampleBackup',
      ],
      [
        'example-operator.v1.1.0',
        '1.1.0',
        'candidate,stable',
        'false',
        'quay.io/example/example-operator-bundle:v1.1.0',
        'example.com/v1/Example',
      ],
      [
        'example-operator.v1.0.0',
        '1.0.0',
        'candidate,stable',
        'false',
        'quay.io/example/example-operator-bundle:v1.0.0',
        'example.com/v1/Example',
      ],
    ]);
    const stable = table(
      await kcOk(
        'bundles',
        'example-operator',
        '--catalog',
        a,
        '--channel',
        'stable',
        '--no-headers',
      ),
    );
    expect(stable.map((r) => r[0])).to.deep.equal([
      'example-operator.v1.1.0',
      'example-operator.v1.0.0',
    ]);
    const bad = await kc('bundles', 'example-operator', '--catalog', a, '--channel', 'nope');
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('has no channel "nope"; its channels: candidate, stable');
  });

  it('graph: text, mermaid, dot and json from replaces and skipRange', async () => {
    const text = table(
      await kcOk('graph', 'example-operator', '--catalog', a, '--channel', 'candidate'),
    );
    expect(text).to.deep.equal([
      ['BUNDLE', 'VERSION', 'UPGRADES TO', 'NOTE'],
      ['example-operator.v1.2.0', '1.2.0', '-', 'head'],
      [
        'example-operator.v1.1.0',
        '1.1.0',
        'example-operator.v1.2.0 (skipRange >=1.0.0 <1.2.0, replaces)',
        '<none>',
      ],
      [
        'example-operator.v1.0.0',
        '1.0.0',
        'example-operator.v1.2.0 (skipRange >=1.0.0 <1.2.0), example-operator.v1.1.0 (replaces)',
        '<none>',
      ],
    ]);
    const mermaid = await kcOk(
      'graph',
      'example-operator',
      '--catalog',
      a,
      '--channel',
      'candidate',
      '-o',
      'mermaid',
    );
    expect(mermaid).to.match(/^graph LR\n/);
    expect(mermaid).to.include('n2 -- "replaces" --> n1');
    expect(mermaid).to.include('n1 -- "skipRange >=1.0.0 <1.2.0" --> n0');
    expect(mermaid).to.include('class n0 head;');
    const dot = await kcOk('graph', 'example-operator', '--catalog', a, '-o', 'dot');
    // default channel: stable
    expect(dot).to.include(
      '"example-operator.v1.0.0" -> "example-operator.v1.1.0" [label="replaces"];',
    );
    const json = JSON.parse(
      await kcOk(
        'graph',
        'example-operator',
        '--catalog',
        a,
        '--channel',
        'candidate',
        '-o',
        'json',
      ),
    ) as { head: string; edges: unknown[] };
    expect(json.head).to.equal('example-operator.v1.2.0');
    expect(json.edges).to.have.length(4);
  });

  it('provides: the bundles that provide an API', async () => {
    const rows = table(
      await kcOk('provides', 'example.com/v1alpha1/ExampleBackup', '--catalog', a),
    );
    expect(rows).to.deep.equal([
      ['PACKAGE', 'CATALOG', 'BUNDLE', 'VERSION'],
      ['example-operator', a, 'example-operator.v1.2.0', '1.2.0'],
    ]);
    // across catalogs (others' catalogs may hold the sample too): ours is among them
    const across = table(await kcOk('provides', 'example.com/v1alpha1/ExampleBackup'));
    expect(across).to.deep.include(['example-operator', a, 'example-operator.v1.2.0', '1.2.0']);
    const v1 = table(
      await kcOk('provides', 'example.com/v1/Example', '--catalog', a, '--no-headers'),
    );
    expect(v1.map((r) => r[2])).to.deep.equal([
      'example-operator.v1.2.0',
      'example-operator.v1.1.0',
      'example-operator.v1.0.0',
    ]);
    const none = await kc('provides', 'example.com/v1/Nothing', '--catalog', a);
    expect(none).to.include({ code: 0, stdout: '' });
    expect(none.stderr).to.include('No bundles provide example.com/v1/Nothing');
    const bad = await kc('provides', 'Example');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('is not GROUP/VERSION/KIND');
  });

  it("a package's channels take a bounded number of API requests, whatever the number of catalogs", async () => {
    // The command's requests; the client's discovery of the object view (its two group-version
    // documents, once per client) is checked apart.
    async function count(args: string[]): Promise<number> {
      let n = 0;
      let discovery = 0;
      const out: string[] = [];
      const code = await run(args, {
        stdout: (s) => out.push(s),
        stderr: (s) => out.push(s),
        client: () =>
          new CatalogClient({
            onRequest: (_verb, resource) => (resource === 'discovery' ? discovery++ : n++),
          }),
      });
      expect(code, out.join('')).to.equal(0);
      expect(discovery, 'discovery requests').to.equal(2);
      return n;
    }
    // --catalog: status, list (one page), status
    expect(await count(['channels', 'example-operator', '--catalog', a])).to.equal(3);
    // without: first the label-selected lookup (schema=olm.package,name=P)
    expect(await count(['channels', pkg])).to.equal(4);
    // one more catalog (the sample again) changes nothing
    const d = uniqueName('kc-d');
    try {
      const ref = await kubectlOk([
        'get',
        'clustercatalog',
        a,
        '-o',
        'jsonpath={.spec.source.image.ref}',
      ]);
      await applyCatalog(d, ref.trim());
      await waitServing(d);
      expect(await count(['channels', 'example-operator', '--catalog', a])).to.equal(3);
      expect(await count(['channels', pkg])).to.equal(4);
    } finally {
      await kubectlOk(['delete', 'clustercatalog', d, '--ignore-not-found', '--wait=false']);
    }
  });

  it('errors say what to do: no such package, catalog not Serving, ambiguous package', async () => {
    const missing = await kc('channels', 'no-such-package-xyz');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(
      /^error: package "no-such-package-xyz" not found in any catalog.*; search with: kubectl catalog packages --search such\n$/,
    );
    const missingIn = await kc('channels', 'no-such-package-xyz', '--catalog', a);
    expect(missingIn.stderr).to.include(
      `package "no-such-package-xyz" not found in catalog "${a}"; list its packages with: kubectl catalog packages --catalog ${a}`,
    );
    const noCatalog = await kc('channels', 'x', '--catalog', 'no-such-catalog-xyz');
    expect(noCatalog.stderr).to.include('ClusterCatalog "no-such-catalog-xyz" not found');

    // A catalog whose image does not exist never serves.
    await applyCatalog(c, `${process.env.REGISTRY}/e2e/kubectl-catalog-missing:nope`);
    const notServing = await pollUntil(
      async () => {
        const r = await kc('channels', 'x', '--catalog', c);
        return r.stderr.includes('Serving=False') ? r : undefined;
      },
      { timeoutMs: 60_000, what: 'the catalog to report Serving=False' },
    );
    expect(notServing.code).to.equal(1);
    expect(notServing.stderr).to.include(
      `ClusterCatalog "${c}" is not Serving yet (Serving=False/Unavailable`,
    );
    expect(notServing.stderr).to.include(
      `kubectl wait --for=condition=Serving clustercatalog/${c}`,
    );
    const notFoundPending = await kc('channels', 'no-such-package-xyz');
    expect(notFoundPending.stderr).to.include(`not Serving yet (so not searched): `);
    expect(notFoundPending.stderr).to.include(`${c} (False (Unavailable))`);

    // The unique package in two catalogs: ambiguous without --catalog.
    await applyCatalog(e, uniqueRef);
    await waitServing(e);
    const ambiguous = await kc('channels', pkg);
    expect(ambiguous.code).to.equal(1);
    const [first, second] = [b, e].sort();
    expect(ambiguous.stderr).to.equal(
      `error: package "${pkg}" is in 2 catalogs: ${first}, ${second}; choose one with --catalog, e.g. --catalog ${first}\n`,
    );
    expect(table(await kcOk('channels', pkg, '--catalog', e, '--no-headers'))).to.deep.equal([
      ['stable', `${pkg}.v0.2.0`, '2', 'true', 'false'],
    ]);
  });

  it('field selectors: kubectl get --field-selector spec.package=<70 characters>, and the client uses them', async () => {
    const out = await kubectlOk([
      'get',
      'catalogmetadata',
      '--field-selector',
      `spec.package=${longPkg},spec.catalog.name=${b}`,
      '-o',
      'jsonpath={range .items[*]}{.spec.schema} {.spec.name}{"\\n"}{end}',
    ]);
    expect(out.trim().split('\n').sort()).to.deep.equal([
      'olm.bundle long.v1',
      'olm.channel stable',
    ]);
    const byName = await kubectlOk([
      'get',
      'catalogmetadata',
      '--field-selector',
      `spec.name=${longPkg},spec.schema=olm.package`,
      '-o',
      'jsonpath={.items[*].spec.catalog.name}',
    ]);
    expect(byName.trim().split(' ')).to.include(b);
    // The client selects the long value by field: one request, exactly its objects.
    const requests: string[] = [];
    const client = new CatalogClient({
      onRequest: (verb, resource) => requests.push(resource === 'discovery' ? resource : verb),
    });
    try {
      const names: string[] = [];
      for await (const o of client.listMetadata({ catalog: b, package: longPkg }))
        names.push(o.spec.name!);
      expect(names.sort()).to.deep.equal(['long.v1', 'stable']);
      // (after the client's discovery of the object view, once per client)
      expect(requests).to.deep.equal(['discovery', 'discovery', 'list']);
    } finally {
      client.close();
    }
    expect(table(await kcOk('channels', longPkg, '--catalog', b, '--no-headers'))).to.deep.equal([
      ['stable', 'long.v1', '1', 'true', 'false'],
    ]);
  });

  it('kubectl finds the plugin on PATH: kubectl catalog list', async () => {
    const shim = path.join(tmp, 'bin');
    await mkdir(shim, { recursive: true });
    const exe = path.join(shim, 'kubectl-catalog');
    await writeFile(
      exe,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(plugin)} "$@"\n`,
    );
    await chmod(exe, 0o755);
    const env = { ...process.env, PATH: `${shim}:${process.env.PATH ?? ''}` };
    const plugins = await exec('kubectl', ['plugin', 'list'], env);
    expect(plugins.stdout).to.include(exe);
    const r = await exec('kubectl', ['catalog', 'list'], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(table(r.stdout).find((row) => row[0] === a)?.[1]).to.equal('True (Available)');
  });
});
