import { expect } from 'chai';
import { getOperationAST, parse } from 'graphql';
import {
  checkComplexity,
  checkListCost,
  listCost,
  pageOffset,
  pageSize,
  QueryLimitError,
} from './limits.js';

function nested(depth: number): string {
  let q = '{ ';
  for (let i = 1; i < depth; i++) q += `f${i} { `;
  q += 'leaf';
  for (let i = 1; i < depth; i++) q += ' }';
  return `${q} }`;
}

function check(query: string): void {
  checkComplexity(parse(query));
}

describe('graphql/limits: upstream’s depth, alias and field limits, and a list cost', () => {
  it('allows depth 10 and refuses 11, counting fragments as a level as upstream does', () => {
    expect(() => check(nested(10))).not.to.throw();
    expect(() => check(nested(11))).to.throw(QueryLimitError, 'query exceeds maximum depth of 10');
    // 9 levels of fields inside a fragment spread and an inline fragment: 11.
    const inner = nested(9).slice(1, -1);
    expect(() => check(`{ ... on Query { ...F } } fragment F on Query { ${inner} }`)).to.throw(
      'query exceeds maximum depth of 10',
    );
    expect(() => check(`{ ...F } fragment F on Query { ${inner} }`)).not.to.throw();
  });

  it('refuses a 51st alias and a 501st field; a fragment spread again is not counted again', () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: summary { totalSchemas }`).join(' ')} }`;
    expect(() => check(aliases(50))).not.to.throw();
    expect(() => check(aliases(51))).to.throw('query exceeds maximum alias count of 50');
    const fields = (n: number) =>
      `{ x { ${Array.from({ length: n - 1 }, (_, i) => `f${i}`).join(' ')} } }`;
    expect(() => check(fields(500))).not.to.throw();
    expect(() => check(fields(501))).to.throw('query exceeds maximum field count of 500');
    const frag = `fragment F on Query { ${Array.from({ length: 300 }, (_, i) => `f${i}`).join(' ')} }`;
    expect(() => check(`{ ...F ...F } ${frag}`)).not.to.throw();
    // Fields are counted over the whole document, fragments once per operation.
    expect(() => check(`query A { ...F } query B { ...F } ${frag}`)).to.throw(
      'maximum field count',
    );
  });

  it('clamps limit and offset as upstream’s resolver does', () => {
    expect([undefined, null, 0, -1, 101, 1e9, 5, 100].map(pageSize)).to.deep.equal([
      100, 100, 100, 100, 100, 100, 5, 100,
    ]);
    expect([undefined, null, -5, 0, 7].map(pageOffset)).to.deep.equal([0, 0, 0, 0, 7]);
  });

  it('counts what the root list fields may return: limits, variables, aliases, fragments', () => {
    const isList = (f: string) => f.endsWith('s') && f !== 'summary';
    const cost = (q: string, vars: Record<string, unknown> = {}, name?: string) => {
      const doc = parse(q);
      return listCost(doc, getOperationAST(doc, name)!, vars, isList);
    };
    expect(cost('{ olmbundles { name } summary { totalSchemas } }')).to.equal(100);
    expect(cost('{ a: olmbundles(limit: 5) { name } b: olmpackages(limit: 0) { name } }')).to.equal(
      105,
    );
    expect(cost('{ olmbundles(limit: 5) { name } olmbundles(limit: 5) { image } }')).to.equal(5);
    expect(cost('query($n: Int = 7) { olmbundles(limit: $n) { name } }')).to.equal(7);
    expect(cost('query($n: Int = 7) { olmbundles(limit: $n) { name } }', { n: 20 })).to.equal(20);
    expect(
      cost(
        '{ ...F ... on Query { x: olmbundles(limit: 2) { name } } } fragment F on Query { olmbundles(limit: 3) { name } }',
      ),
    ).to.equal(5);
    expect(
      cost('query A { olmbundles { name } } query B { olmpackages(limit: 1) { name } }', {}, 'B'),
    ).to.equal(1);
    const many = `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: olmbundles { name }`).join(' ')} }`;
    expect(cost(many)).to.equal(1100);
    expect(() => checkListCost(1100)).to.throw(
      QueryLimitError,
      'query exceeds maximum list cost of 1000 objects',
    );
    expect(() => checkListCost(1000)).not.to.throw();
  });
});
