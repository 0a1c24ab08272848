import { expect } from 'chai';
import type { BundleBlob, ChannelBlob, PackageBlob } from './fbc-types.js';
import type { PackageFilter } from './packages.js';
import { matchesPackageFilter, needsHead, packageFacts } from './packages.js';

const pkg: PackageBlob = {
  schema: 'olm.package',
  name: 'db-operator',
  defaultChannel: 'stable',
  description: 'Runs databases.',
};
const stable: ChannelBlob = {
  schema: 'olm.channel',
  package: 'db-operator',
  name: 'stable',
  entries: [{ name: 'db.v1' }, { name: 'db.v2', replaces: 'db.v1' }],
};
const bundle = (name: string, extra: BundleBlob['properties'] = []): BundleBlob => ({
  schema: 'olm.bundle',
  package: 'db-operator',
  name,
  image: `img/${name}`,
  properties: [
    { type: 'olm.package', value: { packageName: 'db-operator', version: '1.0.0' } },
    ...extra,
  ],
});
const csv = (value: Record<string, unknown>) => ({ type: 'olm.csv.metadata', value });
const modes = (...on: string[]) =>
  ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({
    type,
    supported: on.includes(type),
  }));

const head = bundle('db.v2', [
  csv({
    displayName: 'DB Operator',
    description: 'Postgres clusters.',
    installModes: modes('OwnNamespace', 'AllNamespaces'),
    provider: { name: 'Acme Data' },
    keywords: ['postgres', 'SQL'],
    minKubeVersion: '1.28.0',
    annotations: { categories: 'Database, Storage', capabilities: 'Full Lifecycle' },
    labels: {
      'operatorframework.io/arch.arm64': 'supported',
      'operatorframework.io/arch.s390x': 'unsupported',
      'operatorframework.io/os.linux': 'supported',
    },
  }),
  { type: 'olm.maxOpenShiftVersion', value: '4.16' },
]);
// The older bundle supports everything: the filters must read the head only.
const old = bundle('db.v1', [csv({ installModes: modes('MultiNamespace', 'SingleNamespace') })]);
const facts = packageFacts(pkg, [stable], [old, head]);
const match = (f: PackageFilter) => matchesPackageFilter(facts, f);

describe('answers/packages: facts of the default channel head', () => {
  it('reads the head bundle only', () => {
    expect(facts).to.deep.include({
      head: 'db.v2',
      headVersion: '1.0.0',
      displayName: 'DB Operator',
      provider: 'Acme Data',
      installModes: ['OwnNamespace', 'AllNamespaces'],
      archs: ['arm64'],
      oses: ['linux'],
      categories: ['Database', 'Storage'],
      maxOpenShiftVersion: '4.16',
      hasCsvMetadata: true,
    });
  });

  it('a CSV without arch/os labels is amd64/linux (OLM default)', () => {
    const f = packageFacts(pkg, [stable], [bundle('db.v2', [csv({ installModes: [] })])]);
    expect([f.archs, f.oses]).to.deep.equal([['amd64'], ['linux']]);
  });
});

describe('answers/packages: filters', () => {
  it('--install-mode: supported=true in the head', () => {
    expect(match({ installMode: 'AllNamespaces' })).to.equal(true);
    expect(match({ installMode: 'OwnNamespace' })).to.equal(true);
    expect(match({ installMode: 'SingleNamespace' })).to.equal(false);
    expect(match({ installMode: 'MultiNamespace' })).to.equal(false);
  });

  it('--kube-version: minKubeVersion <= V (MAJOR.MINOR allowed)', () => {
    expect(match({ kubeVersion: '1.28' })).to.equal(true);
    expect(match({ kubeVersion: '1.30.1' })).to.equal(true);
    expect(match({ kubeVersion: '1.27.9' })).to.equal(false);
  });

  it('--openshift-version: no maxOpenShiftVersion below V; none passes', () => {
    expect(match({ openshiftVersion: '4.16' })).to.equal(true);
    expect(match({ openshiftVersion: '4.16.3' })).to.equal(true);
    expect(match({ openshiftVersion: '4.17' })).to.equal(false);
    const noMax = packageFacts(pkg, [stable], [bundle('db.v2')]);
    expect(matchesPackageFilter(noMax, { openshiftVersion: '4.99' })).to.equal(true);
  });

  it('--arch, --os, --category, --capability, --provider, --keyword (case-insensitive)', () => {
    expect(match({ arch: 'arm64' })).to.equal(true);
    expect(match({ arch: 's390x' })).to.equal(false);
    expect(match({ arch: 'amd64' })).to.equal(false);
    expect(match({ os: 'linux' })).to.equal(true);
    expect(match({ category: 'storage' })).to.equal(true);
    expect(match({ category: 'Stor' })).to.equal(false);
    expect(match({ capability: 'full lifecycle' })).to.equal(true);
    expect(match({ provider: 'acme' })).to.equal(true);
    expect(match({ keyword: 'sql' })).to.equal(true);
    expect(match({ keyword: 'mysql' })).to.equal(false);
  });

  it('--search: name, display name, keywords, package or CSV description', () => {
    for (const s of ['db-op', 'DB OPERATOR', 'postgres', 'databases', 'clusters'])
      expect(match({ search: s }), s).to.equal(true);
    expect(match({ search: 'redis' })).to.equal(false);
  });

  it('filters combine with AND', () => {
    expect(match({ installMode: 'AllNamespaces', arch: 'arm64', keyword: 'postgres' })).to.equal(
      true,
    );
    expect(match({ installMode: 'AllNamespaces', arch: 'amd64' })).to.equal(false);
    expect(needsHead({})).to.equal(false);
    expect(needsHead({ search: 'x' })).to.equal(true);
  });

  it('a package without CSV metadata (or without a single head) fails the CSV filters only', () => {
    const bare = packageFacts(pkg, [stable], [bundle('db.v2')]);
    expect(bare.hasCsvMetadata).to.equal(false);
    for (const f of [
      { installMode: 'AllNamespaces' },
      { kubeVersion: '1.99' },
      { arch: 'amd64' },
      { os: 'linux' },
      { category: 'Database' },
      { capability: 'Basic Install' },
      { provider: 'a' },
      { keyword: 'sql' },
    ] as PackageFilter[])
      expect(matchesPackageFilter(bare, f), JSON.stringify(f)).to.equal(false);
    expect(matchesPackageFilter(bare, { search: 'databases' })).to.equal(true);
    const twoHeads = packageFacts(
      pkg,
      [{ ...stable, entries: [{ name: 'db.v1' }, { name: 'db.v2' }] }],
      [old, head],
    );
    expect(twoHeads.head).to.equal(undefined);
    expect(matchesPackageFilter(twoHeads, { installMode: 'AllNamespaces' })).to.equal(false);
  });

  it('reads a CSV carried only as an olm.bundle.object (older catalogs), as operator-registry does', () => {
    const manifest = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'db.v2', annotations: { categories: 'Database' }, labels: {} },
      spec: {
        displayName: 'From Object',
        installModes: modes('SingleNamespace'),
        provider: { name: 'Obj Co' },
        minKubeVersion: '1.20.0',
      },
    };
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
    const obj = (o: unknown) => ({
      type: 'olm.bundle.object',
      value: { data: Buffer.from(JSON.stringify(o)).toString('base64') },
    });
    const f = packageFacts(pkg, [stable], [bundle('db.v2', [obj(crd), obj(manifest)])]);
    expect(f).to.deep.include({
      hasCsvMetadata: true,
      displayName: 'From Object',
      provider: 'Obj Co',
      installModes: ['SingleNamespace'],
      categories: ['Database'],
      minKubeVersion: '1.20.0',
    });
    // olm.csv.metadata wins when both are there
    const both = packageFacts(
      pkg,
      [stable],
      [bundle('db.v2', [obj(manifest), csv({ displayName: 'Meta' })])],
    );
    expect(both.displayName).to.equal('Meta');
    // a bundle.object that is not a CSV, or not base64 JSON, is no CSV metadata
    const none = packageFacts(
      pkg,
      [stable],
      [bundle('db.v2', [obj(crd), { type: 'olm.bundle.object', value: { data: '!!' } }])],
    );
    expect(none.hasCsvMetadata).to.equal(false);
  });
});
