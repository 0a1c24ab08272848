import { expect } from 'chai';
import { ShapeBuilder, ShapeError } from './shape.js';
import type { FieldShape } from './shape.js';

function typeOf(f: FieldShape | undefined): string {
  if (!f) return 'absent';
  if (f.nested)
    return `[{${[...f.nested.values()].map((n) => `${n.name}:${typeOf(n)}`).join(',')}}]`;
  return f.list ? `[${f.scalar}]` : f.scalar;
}

function shapeOf(schema: string, blobs: Array<Record<string, unknown>>) {
  const b = new ShapeBuilder();
  for (const blob of blobs) b.add(schema, blob);
  return b.shape().schemas.get(schema)!;
}

describe('graphql/shape: blob fields typed as upstream types them', () => {
  it('maps JSON values to GraphQL types (upstream’s TestAnalyzeJSONObject and more)', () => {
    const s = shapeOf('x', [
      {
        name: 'test-package',
        version: '1.0.0',
        count: 42,
        ratio: 0.5,
        active: true,
        tags: ['tag1', 'tag2'],
        numbers: [1, 2, 3],
        floats: [1.5, 2],
        mixed: [1, 'a'],
        nested: { key: 'value' },
        nullField: null,
        empty: [],
        nulls: [null, null],
        lists: [[1], [2]],
        huge: 2 ** 63,
        'related-images': [{ name: 'a', image: 'b' }],
      },
    ]);
    const types = Object.fromEntries([...s.fields].map(([k, f]) => [k, typeOf(f)]));
    expect(types).to.deep.equal({
      name: 'String',
      version: 'String',
      count: 'Int',
      ratio: 'Float',
      active: 'Boolean',
      tags: '[String]',
      numbers: '[Int]',
      floats: '[Float]',
      mixed: '[String]',
      nested: 'String',
      nullField: 'String',
      empty: '[String]',
      nulls: '[String]',
      lists: '[String]',
      huge: 'Float',
      relatedImages: '[{name:String,image:String}]',
    });
    expect(s.fields.get('relatedImages')!.originalName).to.equal('related-images');
    expect(s.totalObjects).to.equal(1);
  });

  it('types a key by its first value; later blobs only add fields of list objects', () => {
    const s = shapeOf('x', [
      { a: 1, p: [{ type: 't', value: 1 }], e: [] },
      { a: 'one', p: [{ type: 't', value: { x: 1 }, extra: true }], e: [{ k: 'v' }], b: 2.5 },
    ]);
    expect(typeOf(s.fields.get('a'))).to.equal('Int');
    expect(typeOf(s.fields.get('b'))).to.equal('Float');
    expect(typeOf(s.fields.get('p'))).to.equal('[{type:String,value:Int,extra:Boolean}]');
    // An empty list first, objects later: a list of objects.
    expect(typeOf(s.fields.get('e'))).to.equal('[{k:String}]');
    expect(s.totalObjects).to.equal(2);
  });

  it('looks at 10 elements of a list: objects among them make a list of objects', () => {
    const s = shapeOf('x', [
      {
        first: ['s', { a: 1 }],
        late: [...Array.from({ length: 10 }, () => 's'), { a: 1 }],
        merged: [{ a: 1 }, { b: [true] }, { c: null }],
      },
    ]);
    expect(typeOf(s.fields.get('first'))).to.equal('[{a:Int}]');
    expect(typeOf(s.fields.get('late'))).to.equal('[String]');
    expect(typeOf(s.fields.get('merged'))).to.equal('[{a:Int,b:[Boolean],c:String}]');
  });

  it('keeps the first key of two that map to one name', () => {
    const s = shapeOf('x', [{ 'foo-bar': 1, foo_bar: 'x' }]);
    expect(s.fields.get('fooBar')!.originalName).to.equal('foo-bar');
    expect(s.fields.size).to.equal(1);
  });

  it('is bounded: schemas, fields of a type, the length of a key', () => {
    const b = new ShapeBuilder({ schemas: 2, fieldsPerType: 3, keyLength: 8 });
    b.add('a', { x: 1 });
    b.add('b', { x: 1 });
    expect(() => b.add('c', { x: 1 })).to.throw(ShapeError, 'more than 2 schemas');
    expect(() => b.add('a', { p: 1, q: 1, r: 1 })).to.throw(ShapeError, 'a has more than 3 fields');
    expect(() => b.add('b', { abcdefghi: 1 })).to.throw(ShapeError, 'longer than 8 characters');
  });
});
