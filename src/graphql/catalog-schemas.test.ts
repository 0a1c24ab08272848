import { expect } from 'chai';
import { graphqlSync } from 'graphql';
import { CatalogSchemas } from './catalog-schemas.js';
import type { RevisionBlobs } from './catalog-schemas.js';

/** A revision of `blobs` by schema, as the lease gives them (JSON lines). */
function revisionOf(blobs: Array<Record<string, unknown>>): RevisionBlobs {
  const bySchema = new Map<string, string[]>();
  for (const b of blobs) {
    const s = String(b.schema);
    bySchema.set(s, [...(bySchema.get(s) ?? []), JSON.stringify(b)]);
  }
  return {
    contentHash: 'sha256:test',
    schemas: () => [...bySchema].map(([schema, l]) => ({ schema, blobs: l.length })),
    async *schemaBlobs(schema, skip, take) {
      yield* (bySchema.get(schema) ?? []).slice(skip, skip + take);
    },
  };
}

describe('graphql/catalog-schemas: the schema as graphql-go describes it', () => {
  it('gives the catalog’s types, fields and arguments without a description "" (upstream’s discovery query)', async () => {
    const { schema } = await new CatalogSchemas().get(
      revisionOf([
        { schema: 'olm.package', name: 'foo' },
        {
          schema: 'olm.bundle',
          name: 'foo.v1',
          properties: [{ type: 'olm.package', value: { packageName: 'foo' } }],
        },
      ]),
    );
    const answer = graphqlSync({
      schema,
      source:
        '{ __schema { queryType { description fields { name description args { name description } } } } ' +
        'b: __type(name: "OlmBundle") { description fields { name description } } ' +
        'p: __type(name: "OlmBundleProperties") { description fields { description } } ' +
        's: __type(name: "CatalogSummary") { description fields { description } } ' +
        'str: __type(name: "String") { description } }',
    });
    expect(answer.errors).to.equal(undefined);
    const data = JSON.parse(JSON.stringify(answer.data)) as {
      __schema: {
        queryType: {
          description: string;
          fields: Array<{
            name: string;
            description: string;
            args: Array<{ description: string }>;
          }>;
        };
      };
      b: { description: string; fields: Array<{ description: string }> };
      p: { description: string; fields: Array<{ description: string }> };
      s: { description: string; fields: Array<{ description: string }> };
      str: { description: string };
    };
    const q = data.__schema.queryType;
    expect(q.description).to.equal('');
    // Upstream's fields (the additions that follow them have their own descriptions).
    expect(
      q.fields.filter((f) => !f.name.startsWith('fbc')).map((f) => [f.name, f.description]),
    ).to.deep.equal([
      ['olmbundles', ''],
      ['olmpackages', ''],
      ['summary', ''],
    ]);
    // The arguments keep upstream's descriptions.
    expect(q.fields[0]!.args.map((a) => a.description)).to.deep.equal([
      'Maximum number of items to return',
      'Number of items to skip',
    ]);
    for (const t of [data.b, data.p, data.s]) {
      expect(t.description).to.equal('');
      expect(t.fields.every((f) => f.description === '')).to.equal(true);
    }
    // Built-in scalars keep the library's own description.
    expect(data.str.description).to.be.a('string').and.not.equal('');
  });
});
