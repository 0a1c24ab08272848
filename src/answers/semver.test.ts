import { expect } from 'chai';
import {
  SemVerError,
  compareVersions,
  formatVersion,
  parseRange,
  parseVersion,
  satisfies,
} from './semver.js';

const v = parseVersion;
const inRange = (version: string, range: string) => satisfies(v(version), parseRange(range));

describe('answers/semver', () => {
  it('parses strict versions with pre-release and build', () => {
    expect(v('1.2.3')).to.deep.equal({ major: 1, minor: 2, patch: 3, pre: [], build: [] });
    expect(v('1.2.3-rc.1+b.5')).to.deep.include({ pre: ['rc', 1], build: ['b', '5'] });
    expect(formatVersion(v('1.2.3-rc.1+b.5'))).to.equal('1.2.3-rc.1+b.5');
  });

  for (const bad of ['1.2', 'v1.2.3', '01.2.3', '1.2.3-01', '1.2.3-', '1.2.3-a..b', '', 'x']) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      expect(() => v(bad)).to.throw(SemVerError);
    });
  }

  it('orders by SemVer 2.0 precedence, ignoring build metadata', () => {
    const order = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i + 1 < order.length; i++) {
      expect(compareVersions(v(order[i]!), v(order[i + 1]!)), order[i]).to.equal(-1);
      expect(compareVersions(v(order[i + 1]!), v(order[i]!))).to.equal(1);
    }
    expect(compareVersions(v('1.0.0+a'), v('1.0.0+b'))).to.equal(0);
  });

  it('matches OLM skipRange style ranges (AND by space)', () => {
    expect(inRange('1.0.0', '>=1.0.0 <1.2.0')).to.equal(true);
    expect(inRange('1.1.9', '>=1.0.0 <1.2.0')).to.equal(true);
    expect(inRange('1.2.0', '>=1.0.0 <1.2.0')).to.equal(false);
    expect(inRange('0.9.0', '>=1.0.0 <1.2.0')).to.equal(false);
    // blang matches pre-releases like any version (npm semver would not)
    expect(inRange('1.2.0-rc.1', '>=1.0.0 <1.2.0')).to.equal(true);
  });

  it('allows spaces after operators and OR alternatives', () => {
    expect(inRange('1.1.0', '>= 1.0.0 < 1.2.0')).to.equal(true);
    expect(inRange('3.0.0', '<1.0.0 || >=2.0.0')).to.equal(true);
    expect(inRange('1.5.0', '<1.0.0 || >=2.0.0')).to.equal(false);
    expect(inRange('1.5.0', '1.5.0')).to.equal(true);
    expect(inRange('1.5.0', '!=1.5.0')).to.equal(false);
    expect(inRange('1.5.0', '<=1.5.0 >1.4.9')).to.equal(true);
  });

  it('expands x wildcards as blang does', () => {
    expect(inRange('1.9.9', '1.x')).to.equal(true);
    expect(inRange('2.0.0', '1.x')).to.equal(false);
    expect(inRange('1.2.7', '1.2.x')).to.equal(true);
    expect(inRange('1.3.0', '1.2.x')).to.equal(false);
    expect(inRange('1.3.0', '<=1.2.x')).to.equal(false);
    expect(inRange('1.2.9', '<=1.2.x')).to.equal(true);
    expect(inRange('2.0.0', '>1.x')).to.equal(true);
    expect(inRange('1.9.0', '>1.x')).to.equal(false);
  });

  it("keeps blang's quirks (checked against blang itself in hack/upgrades-check)", () => {
    // 1.x.x is a patch wildcard: >=1.0.0 <1.1.0
    expect(inRange('1.0.5', '1.x.x')).to.equal(true);
    expect(inRange('1.1.0', '1.x.x')).to.equal(false);
    // a one-character part is dropped
    expect(inRange('0.5.0', '<1.0.0 x')).to.equal(true);
    // an unknown operator before a wildcard: equality with the flattened version
    expect(inRange('1.0.0', '~1.x')).to.equal(true);
    expect(inRange('1.0.1', '~1.x')).to.equal(false);
    // an x in a pre-release is a wildcard blang cannot expand for <=
    expect(() => parseRange('<=1.0.0-x')).to.throw(SemVerError);
    expect(inRange('1.0.0-y', '>=1.0.0-x')).to.equal(true);
  });

  for (const bad of [
    '',
    '||',
    '>=1.0.0 ||',
    '|| <1.0.0',
    '<1.0.0 || || >=2.0.0',
    '~1.0.0',
    '>=1.0',
    'abc',
    '>=1.0.0 <x',
  ]) {
    it(`rejects range ${JSON.stringify(bad)}`, () => {
      expect(() => parseRange(bad)).to.throw(SemVerError);
    });
  }
});
