import { expect } from 'chai';
import {
  formatFloat32G,
  goParseInt,
  resolvePlain,
  resolveTagged,
  scalarToJSON,
  scalarToKey,
  TAG_PREFIX,
} from './yaml-scalar.js';

// Each case is what go.yaml.in/yaml/v2 + sigs.k8s.io/yaml make of a plain scalar in value
// position (checked against `opm render` v1.60.0), and what js-yaml 5's default (YAML 1.2 core
// schema) would make of it where that differs.
const VALUES: [string, unknown, string][] = [
  ['yes', true, 'js-yaml: string'],
  ['Yes', true, 'js-yaml: string'],
  ['YES', true, 'js-yaml: string'],
  ['y', true, 'js-yaml: string'],
  ['Y', true, 'js-yaml: string'],
  ['no', false, 'js-yaml: string'],
  ['n', false, 'js-yaml: string'],
  ['N', false, 'js-yaml: string'],
  ['on', true, 'js-yaml: string'],
  ['ON', true, 'js-yaml: string'],
  ['off', false, 'js-yaml: string'],
  ['Off', false, 'js-yaml: string'],
  ['true', true, 'same'],
  ['False', false, 'same'],
  ['yES', 'yES', 'not a bool in either'],
  ['oN', 'oN', 'not a bool in either'],
  ['~', null, 'same'],
  ['', null, 'same'],
  ['NULL', null, 'same'],
  ['0755', 493, 'js-yaml: 755 (YAML 1.2 has no leading-0 octal)'],
  ['0o17', 15, 'same'],
  ['0x1F', 31, 'same'],
  ['-0x1F', -31, 'js-yaml: string'],
  ['0b101', 5, 'js-yaml: string'],
  ['1_000_000', 1000000, 'js-yaml: string'],
  ['08', 8, 'invalid octal falls through to a float'],
  ['1e3', 1000, 'same'],
  ['.5', 0.5, 'same'],
  ['1.', 1, 'same'],
  ['+12', 12, 'same'],
  ['1.0', 1, 'a float64 1 prints as 1'],
  ['12345678901234567890', 12345678901234567000, 'uint64, then float64 in JSON'],
  ['123456789012345678901234567890', 1.2345678901234568e29, 'float'],
  ['1e400', '1e400', 'overflow: goyaml keeps the string; js-yaml: Infinity'],
  ['-0', 0, 'int 0'],
  ['2001-12-14', '2001-12-14', 'timestamps stay strings; js-yaml with YAML 1.1: Date'],
  ['2001-12-14t21:59:43.10-05:00', '2001-12-14t21:59:43.10-05:00', 'timestamp kept as written'],
  ['190:20:30', '190:20:30', 'no sexagesimal in goyaml v2'],
  ['1.2.3', '1.2.3', 'string'],
  ['<<', '<<', 'a merge key only in key position'],
  ['=', '=', 'js-yaml YAML 1.1: value tag; here a string'],
  ['.nan.', '.nan.', 'string'],
];

describe('fbc/yaml-scalar: plain scalars as operator-registry reads them', () => {
  for (const [text, want, note] of VALUES) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(want)} (${note})`, () => {
      expect(scalarToJSON(resolvePlain(text))).to.deep.equal(want);
    });
  }

  it('±Inf and NaN are errors in value position (encoding/json refuses them)', () => {
    for (const t of ['.inf', '-.Inf', '+.INF', '.nan', '.NaN'])
      expect(() => scalarToJSON(resolvePlain(t)), t).to.throw(/unsupported value/);
  });

  it('stringifies keys as sigs.k8s.io/yaml does', () => {
    const cases: [string, string][] = [
      ['1', '1'],
      ['0x10', '16'],
      ['1.5', '1.5'],
      ['1234567.0', '1.234567e+06'],
      ['0.00001', '1e-05'],
      ['0.0001', '0.0001'],
      ['123456', '123456'],
      ['0.1', '0.1'],
      ['true', 'true'],
      ['y', 'true'],
      ['off', 'false'],
      ['.inf', '.inf'],
      ['-.inf', '-.inf'],
      ['.nan', '.nan'],
      ['2001-01-01', '2001-01-01'],
    ];
    for (const [text, key] of cases) expect(scalarToKey(resolvePlain(text)), text).to.equal(key);
  });

  it('rejects null and uint64 keys like sigs.k8s.io/yaml', () => {
    expect(() => scalarToKey(resolvePlain('~'))).to.throw(/unsupported map key of type: <nil>/);
    expect(() => scalarToKey(resolvePlain('18446744073709551615'))).to.throw(/uint64/);
  });

  it('formats float keys like strconv.FormatFloat(f, g, -1, 32)', () => {
    expect(formatFloat32G(3.14159)).to.equal('3.14159');
    expect(formatFloat32G(1e21)).to.equal('1e+21');
    expect(formatFloat32G(-2.5e-7)).to.equal('-2.5e-07');
    expect(formatFloat32G(100000)).to.equal('100000');
    expect(formatFloat32G(1000000)).to.equal('1e+06');
    expect(formatFloat32G(0)).to.equal('0');
  });

  it('parses integers with Go ParseInt base-0 rules and int64 range', () => {
    expect(goParseInt('9223372036854775807')).to.equal(9223372036854775807n);
    expect(goParseInt('9223372036854775808')).to.equal(undefined);
    expect(goParseInt('-9223372036854775808')).to.equal(-9223372036854775808n);
    expect(goParseInt('0x')).to.equal(undefined);
    expect(goParseInt('09')).to.equal(undefined);
    expect(goParseInt('0')).to.equal(0n);
  });

  it('applies explicit tags as goyaml v2 does', () => {
    expect(resolveTagged(`${TAG_PREFIX}str`, '0755')).to.deep.equal({ kind: 'str', value: '0755' });
    expect(resolveTagged(`${TAG_PREFIX}int`, '42')).to.deep.equal({ kind: 'int', value: 42n });
    expect(resolveTagged(`${TAG_PREFIX}float`, '7')).to.deep.equal({ kind: 'float', value: 7 });
    expect(resolveTagged(`${TAG_PREFIX}timestamp`, '2001-01-01')).to.deep.equal({
      kind: 'str',
      value: '2001-01-01',
    });
    expect(resolveTagged('!custom', 'yes')).to.deep.equal({ kind: 'str', value: 'yes' });
    expect(() => resolveTagged(`${TAG_PREFIX}int`, 'abc')).to.throw(
      'cannot decode !!str `abc` as a !!int',
    );
    expect(() => resolveTagged(`${TAG_PREFIX}bool`, '1')).to.throw(
      'cannot decode !!int `1` as a !!bool',
    );
    expect(() => resolveTagged(`${TAG_PREFIX}timestamp`, 'nope')).to.throw('as a !!timestamp');
  });
});
