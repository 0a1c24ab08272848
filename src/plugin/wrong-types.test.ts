// `kubectl catalog` over a catalog with a value of the wrong JSON type in every field the client
// library reads (test/support/wrong-types-catalog.ts), beside the ordinary demo catalog and one
// whose content cannot be read: every command prints the rest and exits 0 (SPEC §5.2).
import { expect } from 'chai';
import { load } from 'js-yaml';
import type { AnyBlob } from '../client/index.js';
import { typedBlob } from '../client/index.js';
import { run } from './main.js';
import type { FixtureCatalog, PluginRun } from '../../test/support/kubectl-catalog-fixture.js';
import {
  FIXTURE_BLOBS,
  catalogsClient,
  packageCommands,
  runPlugin,
} from '../../test/support/kubectl-catalog-fixture.js';
import type { Shape } from '../../test/support/lean-objects.js';
import { metadataObject } from '../../test/support/lean-objects.js';
import {
  CHAOS_BLOBS,
  CHAOS_BUNDLES,
  CHAOS_CHANNEL,
  CHAOS_GVK,
  CHAOS_PACKAGE,
  TO_STRING,
} from '../../test/support/wrong-types-catalog.js';

/** A catalog whose objects hold no content, and whose content server does not have it. */
const GONE: FixtureCatalog = {
  name: 'gone',
  blobs: [],
  objects: [
    metadataObject('gone', { schema: 'olm.package', name: 'gone-operator' }, 'absent'),
    metadataObject(
      'gone',
      {
        schema: 'olm.bundle',
        package: 'gone-operator',
        name: 'gone.v1',
        properties: [
          { type: 'olm.gvk', value: { group: 'chaos.example.com', version: 'v1', kind: 'Chaos' } },
        ],
      },
      'absent',
    ),
  ],
};

function kubectlCatalog(
  args: string[],
  shape: Shape = 'full',
  withGone = false,
): Promise<PluginRun> {
  const { client } = catalogsClient([
    { name: 'chaos', blobs: CHAOS_BLOBS, shape },
    { name: 'demo', blobs: FIXTURE_BLOBS, shape },
    ...(withGone ? [GONE] : []),
  ]);
  return runPlugin(args, client);
}

const P = CHAOS_PACKAGE;
const COMMANDS: string[][] = [
  ['packages'],
  ['packages', '--catalog', 'chaos'],
  ['packages', '--install-mode', 'AllNamespaces'],
  ['packages', '--kube-version', '1.30', '--arch', 'amd64'],
  ['packages', '--openshift-version', '4.16'],
  ['packages', '--category', 'x', '--capability', 'x', '--provider', 'x', '--keyword', 'chaos'],
  ['packages', '--search', 'chaos'],
  ...packageCommands(P, CHAOS_CHANNEL),
  ['graph', P, '--channel', 'broken'],
  ['upgrades', P, '--from', CHAOS_BUNDLES[0]],
  ['upgrades', P, '--from', '1.2.0'],
  ['provides', CHAOS_GVK],
];

describe('kubectl catalog: a value of the wrong JSON type is absent, never a crash', () => {
  for (const shape of ['full', 'lean'] as const) {
    it(`every command prints the rest and exits 0 (${shape} objects)`, async () => {
      for (const args of COMMANDS) {
        for (const output of [[], ['-o', 'json'], ['-o', 'yaml']]) {
          if (output.length > 0 && args.includes('-o')) continue;
          const all = [...args, ...output];
          const r = await kubectlCatalog(all, shape);
          expect(r.code, `kubectl catalog ${all.join(' ')}: ${r.stderr}`).to.equal(0);
          expect(r.stdout + r.stderr, all.join(' ')).to.not.equal('');
          if (output[1] === 'json') JSON.parse(r.stdout);
          if (output[1] === 'yaml') load(r.stdout);
        }
      }
    });
  }

  it('packages across catalogs: the demo catalog answered beside the wrong-typed one', async () => {
    const r = await kubectlCatalog(['packages']);
    const names = r.stdout.split('\n').map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(names).to.include.members([
      'chaos-operator chaos',
      'demo-operator demo',
      'plain-operator demo',
    ]);
    // A deprecation whose message is not a string is a deprecation without a message.
    expect(r.stdout).to.match(/^chaos-operator\s+chaos\s+stable\s+2\s+true\s+<none>$/m);
    const withHeads = await kubectlCatalog(['packages', '--keyword', 'chaos']);
    expect(withHeads.stdout).to.match(/^chaos-operator\s+chaos\s/m);
  });

  it('reads what is well-typed and leaves the rest out', async () => {
    const show = JSON.parse((await kubectlCatalog(['show', P, '-o', 'json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(show).to.deep.include({
      name: P,
      defaultChannel: CHAOS_CHANNEL,
      head: { name: CHAOS_BUNDLES[2], version: '1.2.0' },
      keywords: ['chaos'],
      installModes: [],
      categories: [],
      // TO_STRING is an object: a link with neither name nor url.
      links: [{}, {}],
      maintainers: [],
      infrastructureFeatures: [],
      providedAPIs: ['chaos.example.com/v1/Chaos'],
      archs: ['amd64'],
      csvMetadata: true,
      deprecated: { package: '', channel: '' },
    });
    expect(show).to.not.have.any.keys('displayName', 'description', 'maturity');
    expect(show.provider).to.deep.equal({});
    const graph = JSON.parse((await kubectlCatalog(['graph', P, '-o', 'json'])).stdout) as {
      nodes: Array<{ name: string }>;
      edges: Array<{ from: string; to: string; via: string }>;
      head: string;
    };
    // Newest version first, then the unversioned by name.
    expect(graph.nodes.map((n) => n.name)).to.deep.equal([
      CHAOS_BUNDLES[2],
      CHAOS_BUNDLES[0],
      CHAOS_BUNDLES[1],
    ]);
    expect(graph.edges).to.deep.equal([
      { from: CHAOS_BUNDLES[0], to: CHAOS_BUNDLES[1], via: 'replaces' },
      { from: CHAOS_BUNDLES[0], to: CHAOS_BUNDLES[2], via: 'skips' },
      { from: CHAOS_BUNDLES[1], to: CHAOS_BUNDLES[2], via: 'replaces' },
    ]);
    expect(graph.head).to.equal(CHAOS_BUNDLES[2]);
    const bundles = JSON.parse((await kubectlCatalog(['bundles', P, '-o', 'json'])).stdout) as {
      items: Array<Record<string, unknown>>;
    };
    expect(bundles.items.map((b) => [b.name, b.version, b.image])).to.deep.equal([
      [CHAOS_BUNDLES[2], '1.2.0', 'quay.io/chaos/bundle:v1.2.0'],
      [CHAOS_BUNDLES[0], undefined, undefined],
      [CHAOS_BUNDLES[1], undefined, undefined],
    ]);
  });

  it('a catalog that still fails is named on stderr and left out; the others are answered', async () => {
    const r = await kubectlCatalog(['packages'], 'full', true);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.match(/^demo-operator\s+demo\s/m);
    expect(r.stdout).to.match(/^chaos-operator\s+chaos\s/m);
    expect(r.stdout).to.not.include('gone-operator');
    const warnings = r.stderr.split('\n').filter((l) => l.includes('gone'));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(
      /^warning: catalog gone: its packages are not shown: cannot read the whole blob of olm\.package "gone-operator"/,
    );
    const p = await kubectlCatalog(['provides', CHAOS_GVK], 'full', true);
    expect(p.code).to.equal(0);
    expect(p.stdout).to.match(/^chaos-operator\s+chaos\s+chaos\.v1\.2\.0\s+1\.2\.0$/m);
    expect(p.stderr).to.match(/^warning: catalog gone: its bundles are not shown: /m);
  });

  it("an object whose contentOmitted.url is not its catalog's: not requested, the catalog named and left out", async () => {
    const o = metadataObject(
      'foreign',
      { schema: 'olm.package', name: 'foreign-operator' },
      'absent',
    );
    const url =
      'http://evil.test/catalogs/foreign/api/v1/metas?schema=olm.package&name=foreign-operator';
    o.spec.contentOmitted!.url = url;
    const { client, content } = catalogsClient([
      { name: 'demo', blobs: FIXTURE_BLOBS },
      { name: 'foreign', blobs: [], objects: [o] },
    ]);
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(['packages'], {
      stdout: (x) => out.push(x),
      stderr: (x) => err.push(x),
      client: () => client,
    });
    expect(code).to.equal(0);
    expect(out.join('')).to.match(/^demo-operator\s+demo\s/m);
    expect(err.join('')).to.equal(
      `warning: catalog foreign: its packages are not shown: the whole blob of olm.package "foreign-operator" of catalog foreign is unavailable: its contentOmitted.url "${url}" is not a content URL of ClusterCatalog "foreign" (status.urls.base: "http://catalogd.test/catalogs/foreign/revisions/aaaaaaaaaaaaaaaa"), the only place its content is read from; nothing was requested\n`,
    );
    expect(content.requests).to.deep.equal([]);
  });

  it('typedBlob: the same object when well-typed, a copy without the ill-typed fields otherwise', () => {
    for (const b of FIXTURE_BLOBS) expect(typedBlob(b)).to.equal(b);
    const pkg = CHAOS_BLOBS[0]!;
    expect(typedBlob(pkg)).to.deep.equal({
      schema: 'olm.package',
      name: P,
      defaultChannel: CHAOS_CHANNEL,
    });
    expect(pkg.description).to.equal(TO_STRING);
    const channel = typedBlob(CHAOS_BLOBS[1]!) as AnyBlob & { entries: unknown[] };
    expect(channel.entries).to.deep.equal([
      { name: CHAOS_BUNDLES[0] },
      { name: CHAOS_BUNDLES[1], replaces: CHAOS_BUNDLES[0], skips: [] },
      { name: CHAOS_BUNDLES[2], replaces: CHAOS_BUNDLES[1], skips: [CHAOS_BUNDLES[0]] },
    ]);
    expect(typedBlob(CHAOS_BLOBS[2]!).entries).to.deep.equal([]);
  });
});
