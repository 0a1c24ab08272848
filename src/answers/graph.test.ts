import { expect } from 'chai';
import type { BundleBlob, ChannelBlob } from './fbc-types.js';
import { bundleGvks, bundleVersion, deprecationMessage, parseGvk } from './fbc-types.js';
import {
  channelHead,
  channelsOf,
  gvkProviders,
  sortBundlesByVersion,
  sortProviders,
  upgradeGraph,
  versionMap,
} from './graph.js';

const channel = (entries: ChannelBlob['entries'], name = 'stable'): ChannelBlob => ({
  schema: 'olm.channel',
  package: 'p',
  name,
  entries,
});

const bundle = (name: string, version: string, gvks: string[] = []): BundleBlob => ({
  schema: 'olm.bundle',
  package: 'p',
  name,
  image: `img/${name}`,
  properties: [
    { type: 'olm.package', value: { packageName: 'p', version } },
    ...gvks.map((g) => ({ type: 'olm.gvk', value: parseGvk(g) })),
  ],
});

// examples/catalog's channels
const stable = channel([
  { name: 'example-operator.v1.0.0' },
  { name: 'example-operator.v1.1.0', replaces: 'example-operator.v1.0.0' },
]);
const candidate = channel(
  [
    { name: 'example-operator.v1.0.0' },
    { name: 'example-operator.v1.1.0', replaces: 'example-operator.v1.0.0' },
    {
      name: 'example-operator.v1.2.0',
      replaces: 'example-operator.v1.1.0',
      skipRange: '>=1.0.0 <1.2.0',
    },
  ],
  'candidate',
);
const bundles = [
  bundle('example-operator.v1.0.0', '1.0.0', ['example.com/v1/Example']),
  bundle('example-operator.v1.1.0', '1.1.0', ['example.com/v1/Example']),
  bundle('example-operator.v1.2.0', '1.2.0', [
    'example.com/v1/Example',
    'example.com/v1alpha1/ExampleBackup',
  ]),
];

describe('answers/graph: channel heads', () => {
  it('the entry nothing replaces (sample catalog)', () => {
    expect(channelHead(stable).head).to.equal('example-operator.v1.1.0');
    expect(channelHead(candidate).head).to.equal('example-operator.v1.2.0');
  });

  it('skips count as incoming edges', () => {
    const c = channel([{ name: 'a' }, { name: 'b', skips: ['a'] }]);
    expect(channelHead(c)).to.deep.equal({ head: 'b', candidates: ['b'] });
  });

  it('skipRange does not (operator-registry semantics): two heads', () => {
    const c = channel([{ name: 'a' }, { name: 'b', skipRange: '>=0.0.0' }]);
    expect(channelHead(c)).to.deep.equal({
      candidates: ['a', 'b'],
      error: 'multiple channel heads found in graph: a, b',
    });
  });

  it('replaces of an entry outside the channel is harmless', () => {
    const c = channel([{ name: 'b', replaces: 'a' }]);
    expect(channelHead(c).head).to.equal('b');
  });

  it('a cycle has no head', () => {
    const c = channel([
      { name: 'a', replaces: 'b' },
      { name: 'b', replaces: 'a' },
    ]);
    expect(channelHead(c)).to.deep.equal({
      candidates: [],
      error: 'no channel head found in graph',
    });
  });

  it('a single entry is its own head', () => {
    expect(channelHead(channel([{ name: 'only' }])).head).to.equal('only');
  });
});

describe('answers/graph: upgrade graph', () => {
  it('replaces, skips and skipRange edges (sample candidate channel)', () => {
    const g = upgradeGraph(candidate, versionMap(bundles));
    expect(g.head).to.equal('example-operator.v1.2.0');
    expect(g.nodes.map((n) => n.name)).to.deep.equal([
      'example-operator.v1.2.0',
      'example-operator.v1.1.0',
      'example-operator.v1.0.0',
    ]);
    expect(g.edges).to.deep.equal([
      { from: 'example-operator.v1.0.0', to: 'example-operator.v1.1.0', via: 'replaces' },
      {
        from: 'example-operator.v1.0.0',
        to: 'example-operator.v1.2.0',
        via: 'skipRange',
        range: '>=1.0.0 <1.2.0',
      },
      {
        from: 'example-operator.v1.1.0',
        to: 'example-operator.v1.2.0',
        via: 'skipRange',
        range: '>=1.0.0 <1.2.0',
      },
      { from: 'example-operator.v1.1.0', to: 'example-operator.v1.2.0', via: 'replaces' },
    ]);
    expect(g.warnings).to.deep.equal([]);
  });

  it('skips, nodes outside the channel, bad ranges and missing versions', () => {
    const c = channel([
      { name: 'b', replaces: 'a', skips: ['x'] },
      { name: 'c', replaces: 'b', skipRange: 'not a range' },
      { name: 'd', replaces: 'c', skipRange: '<1.0.0' },
    ]);
    const g = upgradeGraph(
      c,
      new Map([
        ['b', '0.2.0'],
        ['c', '0.3.0'],
        ['d', '1.0.0'],
      ]),
    );
    expect(g.edges).to.deep.equal([
      { from: 'x', to: 'b', via: 'skips' },
      { from: 'a', to: 'b', via: 'replaces' },
      { from: 'b', to: 'c', via: 'replaces' },
      { from: 'b', to: 'd', via: 'skipRange', range: '<1.0.0' },
      { from: 'c', to: 'd', via: 'skipRange', range: '<1.0.0' },
      { from: 'c', to: 'd', via: 'replaces' },
    ]);
    expect(g.nodes).to.deep.equal([
      { name: 'd', inChannel: true, version: '1.0.0' },
      { name: 'c', inChannel: true, version: '0.3.0' },
      { name: 'b', inChannel: true, version: '0.2.0' },
      { name: 'a', inChannel: false },
      { name: 'x', inChannel: false },
    ]);
    expect(g.head).to.equal('d');
    expect(g.warnings).to.have.length(1);
    expect(g.warnings[0]).to.match(/^c: ignoring skipRange: invalid range/);
  });
});

describe('answers/graph: bundles and APIs', () => {
  it('versions, gvks and providers', () => {
    expect(bundleVersion(bundles[2]!)).to.equal('1.2.0');
    expect(bundleGvks(bundles[2]!)).to.deep.equal([
      { group: 'example.com', version: 'v1', kind: 'Example' },
      { group: 'example.com', version: 'v1alpha1', kind: 'ExampleBackup' },
    ]);
    const backup = parseGvk('example.com/v1alpha1/ExampleBackup')!;
    expect(gvkProviders(bundles, backup).map((b) => b.name)).to.deep.equal([
      'example-operator.v1.2.0',
    ]);
    expect(gvkProviders(bundles, parseGvk('example.com/v1/Example')!)).to.have.length(3);
    expect(parseGvk('v1/Pod')).to.deep.equal({ group: '', version: 'v1', kind: 'Pod' });
    expect(parseGvk('a/b/c/d')).to.equal(undefined);
    expect(parseGvk('a//c')).to.equal(undefined);
  });

  it('sorts bundles newest first and finds their channels', () => {
    const sorted = sortBundlesByVersion([bundles[1]!, bundles[2]!, bundles[0]!]);
    expect(sorted.map((b) => b.name)).to.deep.equal([
      'example-operator.v1.2.0',
      'example-operator.v1.1.0',
      'example-operator.v1.0.0',
    ]);
    expect(channelsOf('example-operator.v1.1.0', [stable, candidate])).to.deep.equal([
      'candidate',
      'stable',
    ]);
    expect(channelsOf('example-operator.v1.2.0', [stable, candidate])).to.deep.equal(['candidate']);
  });

  it('deprecation messages', () => {
    const dep = {
      schema: 'olm.deprecations' as const,
      package: 'p',
      entries: [
        { reference: { schema: 'olm.package' }, message: 'package gone' },
        { reference: { schema: 'olm.channel', name: 'alpha' }, message: 'use stable' },
      ],
    };
    expect(deprecationMessage(dep, 'olm.package')).to.equal('package gone');
    expect(deprecationMessage(dep, 'olm.channel', 'alpha')).to.equal('use stable');
    expect(deprecationMessage(dep, 'olm.channel', 'stable')).to.equal(undefined);
    expect(deprecationMessage(undefined, 'olm.package')).to.equal(undefined);
  });
});

describe('answers/graph: deprecations', () => {
  it('marks deprecated nodes of the upgrade graph with their message, others not', () => {
    const g = upgradeGraph(candidate, versionMap(bundles), {
      schema: 'olm.deprecations',
      package: 'p',
      entries: [
        { reference: { schema: 'olm.bundle', name: 'example-operator.v1.0.0' }, message: 'CVE' },
        { reference: { schema: 'olm.channel', name: 'candidate' }, message: 'not a bundle' },
      ],
    });
    expect(g.nodes.map((n) => [n.name, n.deprecated])).to.deep.equal([
      ['example-operator.v1.2.0', undefined],
      ['example-operator.v1.1.0', undefined],
      ['example-operator.v1.0.0', 'CVE'],
    ]);
  });

  it('deprecationMessage: package (no name), channel and bundle by name; malformed entries ignored', () => {
    const dep = {
      schema: 'olm.deprecations' as const,
      package: 'p',
      entries: [
        { reference: { schema: 'olm.package' }, message: 'eol' },
        { reference: { schema: 'olm.channel', name: 'fast' }, message: 'retired' },
        { reference: 'bad' } as never,
      ],
    };
    expect(deprecationMessage(dep, 'olm.package')).to.equal('eol');
    expect(deprecationMessage(dep, 'olm.channel', 'fast')).to.equal('retired');
    expect(deprecationMessage(dep, 'olm.channel', 'stable')).to.equal(undefined);
    expect(deprecationMessage(dep, 'olm.bundle', 'fast')).to.equal(undefined);
    expect(deprecationMessage(undefined, 'olm.package')).to.equal(undefined);
  });
});

describe('answers/graph: providers', () => {
  it('sorts providers by package, then catalog, newest version first', () => {
    const q = (name: string, version: string): BundleBlob => ({
      ...bundle(name, version),
      package: 'q',
    });
    const found = [
      { catalog: 'b', bundle: bundle('p.v1', '1.0.0') },
      { catalog: 'a', bundle: q('q.v2', '2.0.0') },
      { catalog: 'a', bundle: bundle('p.v1', '1.0.0') },
      { catalog: 'a', bundle: bundle('p.v10', '10.0.0') },
      { catalog: 'a', bundle: bundle('p.v2', '2.0.0') },
    ];
    expect(
      sortProviders(found).map((f) => `${f.bundle.package}/${f.catalog}/${f.bundle.name}`),
    ).to.deep.equal(['p/a/p.v10', 'p/a/p.v2', 'p/a/p.v1', 'p/b/p.v1', 'q/a/q.v2']);
  });
});
