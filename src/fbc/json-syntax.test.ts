import { expect } from 'chai';
import { findJsonSyntaxError } from './json-syntax.js';

describe('fbc/json-syntax: where a JSON text is invalid', () => {
  it('accepts valid JSON', () => {
    for (const s of [
      '{}',
      '[]',
      '{"a":[1,-2.5e3,true,false,null,"x\\n\\u00e9"]}',
      ' "s" ',
      '0',
      '{"a":{"b":[[]]}}',
    ])
      expect(findJsonSyntaxError(s), s).to.equal(undefined);
  });

  it('finds the first error and says why', () => {
    const cases: [string, number, string][] = [
      ['{"a": ]}', 6, 'unexpected "]", expected a value'],
      ['{"a" 1}', 5, `unexpected "1", expected ':'`],
      ['{a: 1}', 1, 'unexpected "a", expected a string key'],
      ['[1 2]', 3, `unexpected "2", expected ',' or ']'`],
      ['{"a": 1', 7, `unexpected end of input, expected ',' or '}'`],
      ['"abc', 4, 'unterminated string'],
      ['"a\\x"', 2, 'invalid escape in string'],
      ['"a\nb"', 2, 'control character in string'],
      ['{} x', 3, 'unexpected "x" after the value'],
      ['01', 1, 'unexpected "1" after the value'],
    ];
    for (const [s, index, reason] of cases)
      expect(findJsonSyntaxError(s), s).to.deep.equal({ index, reason });
  });

  it('handles any depth', () => {
    expect(findJsonSyntaxError('['.repeat(100000) + ']'.repeat(99999))?.reason).to.match(
      /end of input/,
    );
  });
});
