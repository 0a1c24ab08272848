import { expect } from 'chai';
import {
  coerceBoolean,
  coerceFloat,
  coerceInt,
  coerceString,
  compareGoKeys,
  goFormatFloat,
  goJson,
  goParseFloat,
} from './go-values.js';

describe('graphql/go-values: values as upstream’s Go writes them', () => {
  it('marshals as encoding/json: keys sorted by bytes, HTML characters escaped', () => {
    expect(goJson({ z: 1, a: '<&>', m: [true, null, 0.5, -0, 1e21, 1e-7] })).to.equal(
      '{"a":"\\u003c\\u0026\\u003e","m":[true,null,0.5,-0,1e+21,1e-7],"z":1}',
    );
    expect(goJson('\u2028\u2029\b\f\n\t\u0001"\\')).to.equal(
      '"\\u2028\\u2029\\b\\f\\n\\t\\u0001\\"\\\\"',
    );
    expect(goJson('a\ud800b\udc00')).to.equal('"a\ufffdb\ufffd"');
    // A pair is kept; escapes and replacements in one string with plain text around them.
    expect(goJson('x\ud83d\ude00<y\udc00')).to.equal('"x\ud83d\ude00\\u003cy\ufffd"');
    expect(goJson('plain "quoted" \\ text')).to.equal(JSON.stringify('plain "quoted" \\ text'));
    expect(goJson('😀')).to.equal('"😀"');
    // UTF-8 order: an astral character sorts after U+FFFF, unlike UTF-16's.
    expect(['\uffff', '😀', 'b', 'B'].sort(compareGoKeys)).to.deep.equal([
      'B',
      'b',
      '\uffff',
      '😀',
    ]);
    expect(goJson(Object.assign(Object.create(null) as object, { b: 1, a: 2 }))).to.equal(
      '{"a":2,"b":1}',
    );
  });

  it('formats floats as fmt’s %v', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [3, '3'],
      [0.5, '0.5'],
      [100000, '100000'],
      [1000000, '1e+06'],
      [1234567, '1.234567e+06'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [-2.5e-7, '-2.5e-07'],
      [1e21, '1e+21'],
      [1.5e300, '1.5e+300'],
    ];
    for (const [n, want] of cases) expect(goFormatFloat(n), String(n)).to.equal(want);
  });

  it('parses floats as strconv.ParseFloat', () => {
    expect(goParseFloat('1.5')).to.equal(1.5);
    expect(goParseFloat('-3e2')).to.equal(-300);
    expect(goParseFloat('.5')).to.equal(0.5);
    expect(goParseFloat('+Inf')).to.equal(Infinity);
    expect(Number.isNaN(goParseFloat('nan'))).to.equal(true);
    expect(goParseFloat('1e400')).to.equal(undefined);
    expect(goParseFloat('')).to.equal(undefined);
    expect(goParseFloat('12abc')).to.equal(undefined);
    expect(goParseFloat('{"a":1}')).to.equal(undefined);
  });

  it('coerces as graphql-go’s scalars (objects and lists as strings of JSON first)', () => {
    expect(coerceString('x')).to.equal('x');
    expect(coerceString(1000000)).to.equal('1e+06');
    expect(coerceString(true)).to.equal('true');
    expect(coerceString({ b: 1, a: [2] })).to.equal('{"a":[2],"b":1}');
    expect(coerceString(null)).to.equal(null);

    expect(coerceInt(3)).to.equal(3);
    expect(coerceInt(2.9)).to.equal(2);
    expect(coerceInt(-0.5)).to.equal(0);
    expect(coerceInt(2147483647)).to.equal(2147483647);
    expect(coerceInt(2147483648)).to.equal(null);
    expect(coerceInt(-2147483649)).to.equal(null);
    expect(coerceInt(true)).to.equal(1);
    expect(coerceInt('42.7')).to.equal(42);
    expect(coerceInt('x')).to.equal(null);
    expect(coerceInt({ a: 1 })).to.equal(null);
    expect(coerceInt(null)).to.equal(null);

    expect(coerceFloat(0.5)).to.equal(0.5);
    expect(coerceFloat(false)).to.equal(0);
    expect(coerceFloat('2.5')).to.equal(2.5);
    expect(coerceFloat('NaN')).to.equal(null);
    expect(coerceFloat([1])).to.equal(null);

    expect(coerceBoolean(true)).to.equal(true);
    expect(coerceBoolean('')).to.equal(false);
    expect(coerceBoolean('false')).to.equal(false);
    expect(coerceBoolean('no')).to.equal(true);
    expect(coerceBoolean(0)).to.equal(false);
    expect(coerceBoolean(2)).to.equal(true);
    expect(coerceBoolean({})).to.equal(true);
    expect(coerceBoolean(null)).to.equal(null);
  });
});
