import { expect } from 'chai';
import type { BundleBlob, ChannelBlob, DeprecationsBlob } from './fbc-types.js';
import { versionMap } from './graph.js';
import { tryParseVersion } from './semver.js';
import { UnknownBundleError, resolveInstalled, upgradeVia, upgradesFrom } from './upgrades.js';

const channel = (entries: ChannelBlob['entries']): ChannelBlob => ({
  schema: 'olm.channel',
  package: 'p',
  name: 'stable',
  entries,
});

const bundle = (name: string, version: string): BundleBlob => ({
  schema: 'olm.bundle',
  package: 'p',
  name,
  image: `img/${name}`,
  properties: [{ type: 'olm.package', value: { packageName: 'p', version } }],
});

const via = (e: Parameters<typeof upgradeVia>[0], from: string, version?: string) =>
  upgradeVia(e, from, tryParseVersion(version));

describe('answers/upgrades: the successor rule', () => {
  it('replaces, skips and skipRange each make an upgrade; several rules are all listed', () => {
    expect(via({ name: 'b', replaces: 'a' }, 'a', '1.0.0')).to.deep.equal(['replaces']);
    expect(via({ name: 'b', skips: ['x', 'a'] }, 'a', '1.0.0')).to.deep.equal(['skips']);
    expect(via({ name: 'b', skipRange: '<1.1.0' }, 'a', '1.0.0')).to.deep.equal(['skipRange']);
    expect(
      via({ name: 'b', replaces: 'a', skips: ['a'], skipRange: '>=0.1.0 <2.0.0' }, 'a', '1.0.0'),
    ).to.deep.equal(['replaces', 'skips', 'skipRange']);
    expect(via({ name: 'b', replaces: 'c' }, 'a', '1.0.0')).to.deep.equal([]);
  });

  it('never the installed bundle itself, even when its own range or skips name it', () => {
    expect(via({ name: 'a', replaces: 'a', skipRange: '<=1.0.0' }, 'a', '1.0.0')).to.deep.equal([]);
  });

  it('skipRange with pre-releases as blang reads it (not as npm semver)', () => {
    const e = { name: 'b', skipRange: '>=1.0.0 <1.2.0' };
    // a pre-release of the upper bound is below it: in range (npm would exclude it)
    expect(via(e, 'a', '1.2.0-rc.1')).to.deep.equal(['skipRange']);
    // a pre-release between the bounds: in range (npm would exclude it: other tuple)
    expect(via(e, 'a', '1.1.5-alpha')).to.deep.equal(['skipRange']);
    // a pre-release of the lower bound is below it
    expect(via(e, 'a', '1.0.0-rc.1')).to.deep.equal([]);
    expect(via({ name: 'b', skipRange: '<1.0.0' }, 'a', '1.0.0-0')).to.deep.equal(['skipRange']);
    // numeric pre-release identifiers compare as numbers, before alphanumeric ones
    expect(via({ name: 'b', skipRange: '<1.0.0-rc.10' }, 'a', '1.0.0-rc.9')).to.deep.equal([
      'skipRange',
    ]);
    expect(via({ name: 'b', skipRange: '<1.0.0-1' }, 'a', '1.0.0-alpha')).to.deep.equal([]);
    // build metadata is ignored
    expect(via({ name: 'b', skipRange: '<=1.0.0' }, 'a', '1.0.0+build.7')).to.deep.equal([
      'skipRange',
    ]);
  });

  it('skipRange syntax: wildcards, ||, no space after an operator; bad ranges never match', () => {
    expect(via({ name: 'b', skipRange: '1.x' }, 'a', '1.9.3')).to.deep.equal(['skipRange']);
    expect(via({ name: 'b', skipRange: '1.x' }, 'a', '2.0.0')).to.deep.equal([]);
    expect(via({ name: 'b', skipRange: '<1.0.0 || >=1.5.0 <1.6.0' }, 'a', '1.5.2')).to.deep.equal([
      'skipRange',
    ]);
    expect(via({ name: 'b', skipRange: '>= 1.0.0 < 1.3.0' }, 'a', '1.2.0')).to.deep.equal([
      'skipRange',
    ]);
    expect(via({ name: 'b', skipRange: '>=1.0 <2.0' }, 'a', '1.2.0')).to.deep.equal([]);
    expect(via({ name: 'b', skipRange: '^1.0.0' }, 'a', '1.2.0')).to.deep.equal([]);
    // an installed version that is not strict semver: only replaces and skips can match
    expect(via({ name: 'b', skipRange: '<2.0.0', replaces: 'a' }, 'a', 'v1.0')).to.deep.equal([
      'replaces',
    ]);
  });
});

describe('answers/upgrades: upgradesFrom', () => {
  const bundles = ['1.0.0', '1.1.0', '1.2.0-rc.1', '1.2.0', '1.3.0'].map((v) =>
    bundle(`p.v${v}`, v),
  );
  const versions = versionMap(bundles);
  const ch = channel([
    { name: 'p.v1.0.0' },
    { name: 'p.v1.1.0', replaces: 'p.v1.0.0' },
    { name: 'p.v1.2.0-rc.1', replaces: 'p.v1.1.0' },
    { name: 'p.v1.2.0', replaces: 'p.v1.2.0-rc.1', skipRange: '>=1.0.0 <1.2.0' },
    { name: 'p.v1.3.0', replaces: 'p.v1.2.0', skips: ['p.v1.1.0'] },
  ]);
  const deprecations: DeprecationsBlob = {
    schema: 'olm.deprecations',
    package: 'p',
    entries: [
      { reference: { schema: 'olm.bundle', name: 'p.v1.2.0-rc.1' }, message: 'rc: do not use' },
    ],
  };

  it('lists the one-step upgrades newest first, with how each is reached and deprecation', () => {
    const u = upgradesFrom(ch, 'p.v1.1.0', versions, deprecations);
    expect(u.from).to.deep.equal({ name: 'p.v1.1.0', version: '1.1.0' });
    expect(u.items).to.deep.equal([
      { name: 'p.v1.3.0', version: '1.3.0', via: ['skips'], head: true },
      {
        name: 'p.v1.2.0',
        version: '1.2.0',
        via: ['skipRange'],
        skipRange: '>=1.0.0 <1.2.0',
        head: false,
      },
      {
        name: 'p.v1.2.0-rc.1',
        version: '1.2.0-rc.1',
        via: ['replaces'],
        deprecated: 'rc: do not use',
        head: false,
      },
    ]);
    expect(u.head).to.equal('p.v1.3.0');
    expect(u.path.map((s) => s.name)).to.deep.equal(['p.v1.1.0', 'p.v1.3.0']);
    expect(u.warnings).to.deep.equal([]);
  });

  it('the path to the head: fewest steps, newest candidate at each step', () => {
    const u = upgradesFrom(ch, 'p.v1.0.0', versions, deprecations);
    expect(u.items.map((i) => [i.name, i.via.join('+')])).to.deep.equal([
      ['p.v1.2.0', 'skipRange'],
      ['p.v1.1.0', 'replaces'],
    ]);
    // 1.0.0 → 1.1.0 → 1.3.0 and 1.0.0 → 1.2.0 → 1.3.0 are both two steps: the newer first step
    expect(u.path.map((s) => s.name)).to.deep.equal(['p.v1.0.0', 'p.v1.2.0', 'p.v1.3.0']);
    // a pre-release installed: skipRange <1.2.0 takes it too
    const rc = upgradesFrom(ch, 'p.v1.2.0-rc.1', versions, deprecations);
    expect(rc.from.deprecated).to.equal('rc: do not use');
    expect(rc.items.map((i) => [i.name, i.via.join('+')])).to.deep.equal([
      ['p.v1.2.0', 'replaces+skipRange'],
    ]);
  });

  it('at the head: no upgrades, the path is the head alone', () => {
    const u = upgradesFrom(ch, 'p.v1.3.0', versions);
    expect(u.items).to.deep.equal([]);
    expect(u.path).to.deep.equal([{ name: 'p.v1.3.0', version: '1.3.0' }]);
  });

  it('a bundle outside the channel that an entry replaces; an unreachable head; no single head', () => {
    const old = upgradesFrom(
      channel([{ name: 'p.v1.1.0', replaces: 'p.v0.9.0' }, { name: 'p.v1.2.0' }]),
      'p.v0.9.0',
      versions,
    );
    expect(old.items.map((i) => i.name)).to.deep.equal(['p.v1.1.0']);
    expect(old.head).to.equal(undefined);
    expect(old.path).to.deep.equal([]);
    expect(old.warnings).to.deep.equal([
      'multiple channel heads found in graph: p.v1.1.0, p.v1.2.0',
    ]);
    const stuck = upgradesFrom(
      channel([{ name: 'p.v1.0.0' }, { name: 'p.v1.1.0', skips: ['p.v1.0.0'] }]),
      'p.v1.3.0',
      versions,
    );
    expect(stuck.items).to.deep.equal([]);
    expect(stuck.head).to.equal('p.v1.1.0');
    expect(stuck.path).to.deep.equal([]);
    const bad = upgradesFrom(
      channel([{ name: 'p.v1.0.0' }, { name: 'p.v1.1.0', skipRange: '>>1', replaces: 'p.v1.0.0' }]),
      'p.v1.0.0',
      versions,
    );
    expect(bad.items.map((i) => i.via)).to.deep.equal([['replaces']]);
    expect(bad.warnings).to.deep.equal(['p.v1.1.0: ignoring unparsable skipRange ">>1"']);
  });
});

describe('answers/upgrades: resolveInstalled', () => {
  const bundles = [bundle('p.v1.0.0', '1.0.0'), bundle('p.v1.1.0', '1.1.0')];

  it('by bundle name, by version, by v-prefixed version', () => {
    expect(resolveInstalled(bundles, 'p.v1.1.0').name).to.equal('p.v1.1.0');
    expect(resolveInstalled(bundles, '1.0.0').name).to.equal('p.v1.0.0');
    expect(resolveInstalled(bundles, 'v1.0.0').name).to.equal('p.v1.0.0');
  });

  it('prefers the bundle of the channel when several have the version; else asks for a name', () => {
    const twins = [...bundles, bundle('p-alt.v1.0.0', '1.0.0')];
    const ch = channel([{ name: 'p-alt.v1.0.0' }]);
    expect(resolveInstalled(twins, '1.0.0', ch).name).to.equal('p-alt.v1.0.0');
    expect(() => resolveInstalled(twins, '1.0.0')).to.throw(
      UnknownBundleError,
      'version 1.0.0 of package "p" is in several bundles: p-alt.v1.0.0, p.v1.0.0; name one with --from BUNDLE',
    );
  });

  it('an unknown version or bundle: an error listing the versions', () => {
    expect(() => resolveInstalled(bundles, '2.0.0')).to.throw(
      UnknownBundleError,
      'package "p" has no bundle named or versioned "2.0.0"; its versions: 1.0.0, 1.1.0 (see: kubectl catalog bundles p)',
    );
  });
});
