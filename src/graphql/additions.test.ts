import { expect } from 'chai';
import { readDirCatalog } from '../server/test-catalogs.test.js';
import type { TestCatalog } from '../server/test-catalogs.test.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { EXCERPT_DIR, serve } from './test-fixtures.test.js';
import type { Served } from './test-fixtures.test.js';
import { dataOf, postQuery } from './test-requests.test.js';
import type { Reply } from './test-requests.test.js';

const NFS = 'nfs-provisioner-operator';
const EDA = 'eda-k8s-operator';
const NFS_IMAGE = 'quay.io/community-operator-pipeline-prod/nfs-provisioner-operator@sha256:';

describe('graphql/additions: filters, joins and answers on a real catalog excerpt', function () {
  let s: Served;
  let excerpt: TestCatalog;
  before(async () => {
    excerpt = await readDirCatalog(EXCERPT_DIR);
    s = await serve({ real: excerpt }, createGraphqlEndpoint());
  });
  after(async () => {
    await s.close();
  });
  const ask = (query: string, variables?: Record<string, unknown>): Promise<Reply> =>
    postQuery(s.server, 'real', query, variables ? { variables } : {});
  const data = async <T>(query: string, variables?: Record<string, unknown>): Promise<T> => {
    const r = await ask(query, variables);
    expect(r.status, r.text).to.equal(200);
    expect((r.json as { errors?: unknown }).errors, r.text).to.equal(undefined);
    return dataOf<T>(r);
  };
  const names = (list: Array<{ name: string }>) => list.map((x) => x.name);

  it('joins a package to its channels, their entries and heads, and its deprecations', async () => {
    const d = await data<{ fbcPackage: unknown }>(`{ fbcPackage(name: "${NFS}") {
      name defaultChannelName deprecation
      deprecations { schema name message }
      head { name version deprecation channels { name } }
      defaultChannel { name }
      channels { name headName headError deprecation
        entries { name replaces skips skipRange bundle { name version image } } } } }`);
    expect(d.fbcPackage).to.deep.equal({
      name: NFS,
      defaultChannelName: 'alpha',
      deprecation: null,
      deprecations: [
        {
          schema: 'olm.bundle',
          name: `${NFS}.v0.0.9`,
          message: `${NFS}.v0.0.9 is deprecated; stay on v0.0.8.`,
        },
        { schema: 'olm.channel', name: 'alpha', message: 'The alpha channel is deprecated.' },
      ],
      head: {
        name: `${NFS}.v0.0.9`,
        version: '0.0.9',
        deprecation: `${NFS}.v0.0.9 is deprecated; stay on v0.0.8.`,
        channels: [{ name: 'alpha' }],
      },
      defaultChannel: { name: 'alpha' },
      channels: [
        {
          name: 'alpha',
          headName: `${NFS}.v0.0.9`,
          headError: null,
          deprecation: 'The alpha channel is deprecated.',
          entries: [
            {
              name: `${NFS}.v0.0.8`,
              replaces: null,
              skips: [],
              skipRange: null,
              bundle: {
                name: `${NFS}.v0.0.8`,
                version: '0.0.8',
                image: `${NFS_IMAGE}d7ef0fa3b5a1a6094b6fd60c6197a52cb14766865b3549806de100bb3522821a`,
              },
            },
            {
              name: `${NFS}.v0.0.9`,
              replaces: `${NFS}.v0.0.8`,
              skips: [],
              skipRange: null,
              bundle: {
                name: `${NFS}.v0.0.9`,
                version: '0.0.9',
                image: `${NFS_IMAGE}ab7ba62dd2ad7d9bdfba881ade8d8f3a1f5dd03135c02d6cb305767cdafaf7e4`,
              },
            },
          ],
        },
      ],
    });
  });

  it('filters packages as kubectl catalog packages does (on the default channel head)', async () => {
    const pkgs = async (args: string) =>
      names(
        (await data<{ fbcPackages: Array<{ name: string }> }>(`{ fbcPackages${args} { name } }`))
          .fbcPackages,
      );
    const all = ['appian-operator', EDA, 'kubevirt-wol', 'libredb-studio-operator', NFS];
    expect(await pkgs('')).to.deep.equal(all);
    expect(await pkgs('(limit: 2, offset: 1)')).to.deep.equal(all.slice(1, 3));
    expect(await pkgs(`(name: "${EDA}")`)).to.deep.equal([EDA]);
    expect(await pkgs('(name: "no-such-package")')).to.deep.equal([]);
    expect(await pkgs('(installMode: OwnNamespace)')).to.deep.equal(['kubevirt-wol', NFS]);
    // libredb's CSV is an olm.bundle.object: its metadata is read from there.
    expect(await pkgs('(installMode: AllNamespaces)')).to.deep.equal(all);
    expect(await pkgs('(installMode: AllNamespaces, limit: 2, offset: 1)')).to.deep.equal([
      EDA,
      'kubevirt-wol',
    ]);
    expect(await pkgs('(arch: "arm64")')).to.deep.equal([EDA, 'libredb-studio-operator']);
    expect(await pkgs('(os: "linux", category: "storage")')).to.deep.equal([NFS]);
    expect(await pkgs('(provider: "NOKIA")')).to.deep.equal([EDA]);
    expect(await pkgs('(keyword: "Wake On LAN")')).to.deep.equal(['kubevirt-wol']);
    expect(await pkgs('(search: "libredb")')).to.deep.equal(['libredb-studio-operator']);
    expect(await pkgs(`(name: "${EDA}", installMode: OwnNamespace)`)).to.deep.equal([]);
    // Heads need Kubernetes 1.29 (eda), 1.26 (libredb), 1.14 (kubevirt-wol); the others say nothing.
    expect(await pkgs('(kubeVersion: "1.20")')).to.deep.equal([
      'appian-operator',
      'kubevirt-wol',
      NFS,
    ]);
    expect(await pkgs('(capability: "deep insights")')).to.deep.equal(['kubevirt-wol']);
    expect(await pkgs('(openshiftVersion: "4.20")')).to.deep.equal(all);
    const bad = await ask('{ fbcPackages(installMode: Everywhere) { name } }');
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain(
      'Value \\"Everywhere\\" does not exist in \\"Fbc_InstallMode\\" enum.',
    );
  });

  it('answers the head’s facts as fields', async () => {
    const d = await data<{ fbcPackage: unknown }>(`{ fbcPackage(name: "${EDA}") {
      headVersion displayName provider keywords categories installModes archs oses
      minKubeVersion maxOpenShiftVersion icon { mediatype } } }`);
    expect(d.fbcPackage).to.deep.include({
      headVersion: '6.0.1',
      provider: 'Nokia',
      keywords: ['EDA Connect', 'K8s Controller', 'EDA K8s Controller Operator'],
      installModes: ['SingleNamespace', 'AllNamespaces'],
      archs: ['amd64', 'arm64'],
      oses: ['linux'],
    });
  });

  it('lists a package’s bundles by channel and name, each with the channels it is in', async () => {
    const d = await data<Record<string, Array<{ name: string; channels?: unknown }>>>(`{
      all: fbcBundles(package: "${EDA}") { name channels { name } }
      six: fbcBundles(package: "${EDA}", channel: "6.0", limit: 1, offset: 1) { name }
      one: fbcBundles(package: "${EDA}", name: "eda-openshift-operator.v6.0.1") { name version }
      none: fbcBundles(package: "no-such-package") { name }
      channels: fbcChannels(package: "kubevirt-wol") { name headName }
      stable: fbcChannels(package: "kubevirt-wol", name: "stable-v0") { name } }`);
    expect(d).to.deep.equal({
      all: [
        { name: 'eda-openshift-operator.v6.0.0', channels: [{ name: '6.0' }, { name: 'stable' }] },
        { name: 'eda-openshift-operator.v6.0.1', channels: [{ name: '6.0' }] },
      ],
      six: [{ name: 'eda-openshift-operator.v6.0.1' }],
      one: [{ name: 'eda-openshift-operator.v6.0.1', version: '6.0.1' }],
      none: [],
      channels: [
        { name: 'candidate-v0', headName: 'kubevirt-wol.v0.0.2' },
        { name: 'fast-v0', headName: 'kubevirt-wol.v0.0.2' },
        { name: 'stable-v0', headName: 'kubevirt-wol.v0.0.2' },
      ],
      stable: [{ name: 'stable-v0' }],
    });
  });

  it('answers who provides an API, newest first, in one package or the whole catalog', async () => {
    const d = await data<Record<string, Array<{ name: string }>>>(`{
      all: fbcProvides(group: "cache.jhouse.com", version: "v1alpha1", kind: "NFSProvisioner") { name provides { kind } }
      one: fbcProvides(group: "cache.jhouse.com", version: "v1alpha1", kind: "NFSProvisioner", package: "${NFS}", limit: 1) { name }
      none: fbcProvides(group: "x", version: "v1", kind: "Y") { name } }`);
    expect(d).to.deep.equal({
      all: [
        { name: `${NFS}.v0.0.9`, provides: [{ kind: 'NFSProvisioner' }] },
        { name: `${NFS}.v0.0.8`, provides: [{ kind: 'NFSProvisioner' }] },
      ],
      one: [{ name: `${NFS}.v0.0.9` }],
      none: [],
    });
  });

  it('answers one-step upgrades as kubectl catalog upgrades does (replaces, skipRange, deprecations)', async () => {
    const d = await data<Record<string, unknown>>(`{
      eda: fbcUpgrades(package: "${EDA}", from: "6.0.0", channel: "6.0") {
        package channel from { name version } head warnings
        items { name version via skipRange head deprecation bundle { image } }
        path { name version } }
      nfs: fbcUpgrades(package: "${NFS}", from: "${NFS}.v0.0.8") {
        channel items { name via head deprecation } path { name deprecation } } }`);
    expect(d).to.deep.equal({
      eda: {
        package: EDA,
        channel: '6.0',
        from: { name: 'eda-openshift-operator.v6.0.0', version: '6.0.0' },
        head: 'eda-openshift-operator.v6.0.1',
        warnings: [],
        items: [
          {
            name: 'eda-openshift-operator.v6.0.1',
            version: '6.0.1',
            via: ['replaces', 'skipRange'],
            skipRange: '>=5.0.0',
            head: true,
            deprecation: null,
            bundle: {
              image: (d.eda as { items: Array<{ bundle: { image: string } }> }).items[0]!.bundle
                .image,
            },
          },
        ],
        path: [
          { name: 'eda-openshift-operator.v6.0.0', version: '6.0.0' },
          { name: 'eda-openshift-operator.v6.0.1', version: '6.0.1' },
        ],
      },
      nfs: {
        channel: 'alpha',
        items: [
          {
            name: `${NFS}.v0.0.9`,
            via: ['replaces'],
            head: true,
            deprecation: `${NFS}.v0.0.9 is deprecated; stay on v0.0.8.`,
          },
        ],
        path: [
          { name: `${NFS}.v0.0.8`, deprecation: null },
          { name: `${NFS}.v0.0.9`, deprecation: `${NFS}.v0.0.9 is deprecated; stay on v0.0.8.` },
        ],
      },
    });
  });

  it('answers a mistake in an answer’s arguments with a field error naming it', async () => {
    const r = await ask(`{ a: fbcUpgrades(package: "${NFS}", from: "9.9.9") { head }
      b: fbcUpgrades(package: "nope", from: "1.0.0") { head }
      c: fbcUpgrades(package: "${NFS}", from: "0.0.8", channel: "beta") { head }
      d: fbcPackage(name: "nope") { name } }`);
    expect(r.status).to.equal(200);
    const body = r.json as { data: unknown; errors: Array<{ message: string; path: string[] }> };
    expect(body.data).to.deep.equal({ a: null, b: null, c: null, d: null });
    expect(body.errors.map((e) => [e.path, e.message]).sort()).to.deep.equal([
      [
        ['a'],
        `package "${NFS}" has no bundle named or versioned "9.9.9"; its versions: 0.0.8, 0.0.9 (see: kubectl catalog bundles ${NFS})`,
      ],
      [['b'], 'package "nope" is not in this catalog'],
      [['c'], `package "${NFS}" has no channel "beta"; its channels: alpha`],
    ]);
  });

  it('answers a package’s nested bundles, a channel by name, and a bundle’s properties by type', async () => {
    const d = await data<{ fbcPackage: unknown }>(`{ fbcPackage(name: "${EDA}") {
      description
      channels(name: "stable") { name }
      bundles(channel: "6.0", limit: 1) { name
        properties(type: "olm.package") { type value }
        relatedImages { name } } } }`);
    const pkg = d.fbcPackage as { description: string | null; bundles: unknown[] };
    expect(pkg.description).to.equal(null); // its olm.package blob has none
    expect(pkg.bundles).to.have.length(1);
    expect(d.fbcPackage).to.deep.include({ channels: [{ name: 'stable' }] });
    const bundle = pkg.bundles[0] as {
      name: string;
      properties: unknown;
      relatedImages: unknown[];
    };
    expect(bundle.name).to.equal('eda-openshift-operator.v6.0.0');
    expect(bundle.properties).to.deep.equal([
      { type: 'olm.package', value: '{"packageName":"eda-k8s-operator","version":"6.0.0"}' },
    ]);
    expect(bundle.relatedImages.length).to.be.greaterThan(0);
  });
});
