import { expect } from 'chai';
import {
  matchesLabels,
  parseLabelSelector,
  pinnedLabelValues,
  SelectorError,
} from './label-selector.js';

describe('label selectors (apimachinery grammar)', () => {
  const parsed: Array<[string, unknown]> = [
    ['', []],
    ['package=foo', [{ key: 'package', operator: '=', values: ['foo'] }]],
    ['package==foo', [{ key: 'package', operator: '=', values: ['foo'] }]],
    ['package!=foo', [{ key: 'package', operator: '!=', values: ['foo'] }]],
    ['schema in (b, a)', [{ key: 'schema', operator: 'in', values: ['a', 'b'] }]],
    ['schema notin (a)', [{ key: 'schema', operator: 'notin', values: ['a'] }]],
    ['package', [{ key: 'package', operator: 'exists', values: [] }]],
    ['!package', [{ key: 'package', operator: '!', values: [] }]],
    ['n>3', [{ key: 'n', operator: 'gt', values: ['3'] }]],
    [
      'a=,b',
      [
        { key: 'a', operator: '=', values: [''] },
        { key: 'b', operator: 'exists', values: [] },
      ],
    ],
    ['example.com/x = y', [{ key: 'example.com/x', operator: '=', values: ['y'] }]],
  ];
  for (const [text, want] of parsed)
    it(`parses ${JSON.stringify(text)}`, () =>
      expect(parseLabelSelector(text)).to.deep.equal(want));

  const refused: Array<[string, string]> = [
    ['a b', "found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a in b', "found 'b', expected: '('"],
    ['a in (b c)', "found 'c', expected: ',', ')' or identifier"],
    ['=a', "found '=', expected: identifier"],
    ['a,', "found '', expected: !, identifier, or 'end of string'"],
    ['a>b', "for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a=-x', 'values[0][a]: Invalid value: "-x"'],
    ['-a=x', 'Invalid value: "-a"'],
  ];
  for (const [text, message] of refused)
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(() => parseLabelSelector(text))
        .to.throw(SelectorError)
        .with.property('message')
        .that.includes(message);
    });

  it('matches as the apiserver does (!= and notin match an absent label)', () => {
    const labels = { package: 'foo', schema: 'olm.bundle', n: '5' };
    const cases: Array<[string, boolean]> = [
      ['package=foo', true],
      ['package=bar', false],
      ['package!=bar', true],
      ['name!=bar', true],
      ['name notin (x)', true],
      ['schema in (olm.bundle,olm.channel)', true],
      ['schema notin (olm.bundle)', false],
      ['package,!name', true],
      ['name', false],
      ['n>4,n<6', true],
      ['n>5', false],
    ];
    for (const [text, want] of cases)
      expect(matchesLabels(parseLabelSelector(text), labels), text).to.equal(want);
  });

  it('pins the values = and in leave a label, intersected', () => {
    expect(
      pinnedLabelValues(parseLabelSelector('package in (a,b),package=b'), 'package'),
    ).to.deep.equal(['b']);
    expect(pinnedLabelValues(parseLabelSelector('package!=a'), 'package')).to.equal(undefined);
  });
});
