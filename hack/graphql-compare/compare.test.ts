import { expect } from 'chai';
import { canonical, compareAnswers } from './compare.js';

const json = (body: unknown, status = 200) => ({
  status,
  contentType: 'application/json',
  body: `${JSON.stringify(body)}\n`,
});

describe('hack/graphql-compare: how two answers compare', () => {
  it('sorts keys before comparing bytes', () => {
    expect(canonical('{"b":1,"a":{"d":2,"c":3}}')).to.equal('{"a":{"c":3,"d":2},"b":1}');
    expect(
      compareAnswers(
        json({ data: { x: [{ b: 1, a: 2 }] } }),
        json({ data: { x: [{ a: 2, b: 1 }] } }),
      ),
    ).to.deep.equal({ verdict: 'equal', detail: '' });
  });

  it('names each kind of difference', () => {
    const err = (message: string) => ({ data: null, errors: [{ message, locations: [] }] });
    expect(compareAnswers(json(err('x'), 400), json(err('x'))).verdict).to.equal('equal body');
    expect(
      compareAnswers(
        json({ data: { s: [{ n: 'a' }, { n: 'b' }] } }),
        json({ data: { s: [{ n: 'b' }, { n: 'a' }] } }),
      ).verdict,
    ).to.equal('equal as sets');
    const other = compareAnswers(json(err('x')), json(err('y')));
    expect(other).to.deep.equal({
      verdict: 'other error text',
      detail: '$.errors[0].message: "x" vs "y"',
    });
    const diff = compareAnswers(json({ data: { a: [1] } }), json({ data: { a: null } }));
    expect(diff).to.deep.equal({ verdict: 'different', detail: '$.data.a: [1] vs null' });
    const types = (extra: object[]) => ({
      data: { __schema: { types: [{ name: 'Query', fields: [{ name: 'a' }] }, ...extra] } },
    });
    expect(
      compareAnswers(
        json(types([{ name: '__Type', fields: [{ name: 'isOneOf' }] }])),
        json(types([{ name: '__Type', fields: [] }])),
      ).verdict,
    ).to.equal('equal but built-in types');
    const text = { status: 405, contentType: 'text/plain', body: 'Method Not Allowed\n' };
    expect(compareAnswers(json({ data: {} }), text).verdict).to.equal('different');
  });
});
