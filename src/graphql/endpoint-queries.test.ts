import { expect } from 'chai';
import { getIntrospectionQuery } from 'graphql';
import { generatedCatalog, inBlobOrder } from '../server/test-catalogs.test.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { servedForSuite, withServed } from './test-fixtures.test.js';
import { dataOf, postQuery, requestError } from './test-requests.test.js';

describe('graphql/endpoint: upstream’s queries over HTTP', function () {
  const s = servedForSuite();
  /** POSTs `query` to the suite's catalog. */
  const ask = (query: string, extra?: Record<string, unknown>) =>
    postQuery(s().server, 'cat', query, extra);

  it('answers summary, with the schemas in name order', async () => {
    const r = await ask('{ summary { totalSchemas schemas { name totalObjects totalFields } } }');
    expect(r.status).to.equal(200);
    expect(r.headers['content-type']).to.equal('application/json');
    expect(r.json).to.deep.equal({
      data: {
        summary: {
          totalSchemas: 4,
          schemas: [
            { name: 'my.thing', totalObjects: 1, totalFields: 13 },
            { name: 'olm.bundle', totalObjects: 3, totalFields: 5 },
            { name: 'olm.channel', totalObjects: 1, totalFields: 4 },
            { name: 'olm.package', totalObjects: 2, totalFields: 5 },
          ],
        },
      },
    });
  });

  it('writes the answer as upstream’s encoding/json does: keys sorted, HTML escaped, a newline', async () => {
    const r = await ask('{ olmpackages(limit: 1, offset: 1) { name icon description } }');
    expect(r.text).to.equal(
      '{"data":{"olmpackages":[{"description":"a \\u003cb\\u003e \\u0026 c","icon":"{\\"base64data\\":\\"PHN2Zz4=\\",\\"mediatype\\":\\"image/svg+xml\\"}","name":"foo"}]}}\n',
    );
  });

  it('has one root field per schema, with limit and offset, and summary (introspection)', async () => {
    const fields = dataOf<{
      __schema: {
        queryType: {
          name: string;
          fields: Array<{ name: string; type: unknown; args: unknown[] }>;
        };
      };
    }>(
      await ask(
        '{ __schema { queryType { name fields { name type { kind ofType { name } } args { name defaultValue type { name } } } } } }',
      ),
    ).__schema.queryType;
    expect(fields.name).to.equal('Query');
    // Upstream's fields first, in its order; the additions follow (additions.test.ts).
    expect(fields.fields.map((f) => f.name).slice(0, 5)).to.deep.equal([
      'mythings',
      'olmbundles',
      'olmchannels',
      'olmpackages',
      'summary',
    ]);
    expect(fields.fields[1]).to.deep.equal({
      name: 'olmbundles',
      type: { kind: 'LIST', ofType: { name: 'OlmBundle' } },
      args: [
        { name: 'limit', defaultValue: '100', type: { name: 'Int' } },
        { name: 'offset', defaultValue: '0', type: { name: 'Int' } },
      ],
    });
  });

  it('answers introspection within upstream’s depth (graphql-js’s full introspection query is deeper)', async () => {
    const r = await ask(
      '{ __schema { types { name kind fields { name type { kind name ofType { kind name ofType { kind name } } } } } } }',
    );
    expect(r.status).to.equal(200);
    const types = dataOf<{ __schema: { types: Array<{ name: string }> } }>(r).__schema.types.map(
      (t) => t.name,
    );
    expect(types).to.include.members([
      'Query',
      'OlmBundle',
      'OlmBundleProperties',
      'OlmChannelEntries',
      'CatalogSummary',
      'SchemaSummary',
    ]);
    const full = await ask(getIntrospectionQuery());
    expect([full.status, full.text]).to.deep.equal([
      400,
      requestError('query exceeds maximum depth of 10'),
    ]);
  });

  it('types blob fields as upstream: scalars, lists, lists of objects, objects as JSON strings', async () => {
    const r = await ask(
      '{ t: __type(name: "MyThing") { fields { name type { kind name ofType { kind name } } } } p: __type(name: "OlmBundleProperties") { fields { name type { name } } } }',
    );
    const data = dataOf<{
      t: {
        fields: Array<{
          name: string;
          type: { kind: string; name: string | null; ofType: { name: string } | null };
        }>;
      };
      p: unknown;
    }>(r);
    const types = Object.fromEntries(
      data.t.fields.map((f) => [
        f.name,
        f.type.kind === 'LIST' ? `[${f.type.ofType!.name}]` : f.type.name,
      ]),
    );
    expect(types).to.deep.equal({
      big: 'Int',
      count: 'Int',
      empty: '[String]',
      flag: 'Boolean',
      mixed: '[String]',
      name: 'String',
      nothing: 'String',
      nums: '[Int]',
      obj: 'String',
      ratio: 'Float',
      schema: 'String',
      tags: '[String]',
      weirdKey: 'String',
    });
    expect(data.p).to.deep.equal({
      fields: [
        { name: 'type', type: { name: 'String' } },
        { name: 'value', type: { name: 'String' } },
      ],
    });
    const v = await ask(
      '{ mythings { count ratio big flag tags mixed nums empty obj weirdKey nothing } }',
    );
    expect(v.json).to.deep.equal({
      data: {
        mythings: [
          {
            big: null,
            count: 3,
            empty: [],
            flag: true,
            mixed: ['1', 'a'],
            nothing: null,
            nums: [1, 2],
            obj: '{"a":"\\u003c","z":1}',
            ratio: 0.5,
            tags: ['a', 'b'],
            weirdKey: 'x',
          },
        ],
      },
    });
    const c = await ask(
      '{ olmchannels { entries { name replaces skips } } olmbundles(limit: 1) { properties { type value } } }',
    );
    expect(c.json).to.deep.equal({
      data: {
        olmchannels: [
          {
            entries: [
              { name: 'foo.v1', replaces: null, skips: null },
              { name: 'foo.v2', replaces: 'foo.v1', skips: ['foo.v0'] },
            ],
          },
        ],
        olmbundles: [
          {
            properties: [
              { type: 'olm.package', value: '{"packageName":"bar","version":"1.0.0"}' },
              { type: 'olm.gvk', value: '{"group":"x.io","kind":"X","version":"v1"}' },
            ],
          },
        ],
      },
    });
  });

  it('pages in blob order with upstream’s bounds: no limit, 0, or over 100 is 100; offset below 0 is 0', async () => {
    const names = async (args: string) =>
      dataOf<{ olmbundles: Array<{ name: string }> }>(
        await ask(`{ olmbundles${args} { name } }`),
      ).olmbundles.map((b) => b.name);
    const all = ['bar.v1', 'foo.v1', 'foo.v2'];
    expect(await names('')).to.deep.equal(all);
    expect(await names('(limit: 0)')).to.deep.equal(all);
    expect(await names('(limit: -3)')).to.deep.equal(all);
    expect(await names('(limit: 1000)')).to.deep.equal(all);
    expect(await names('(limit: 1, offset: 1)')).to.deep.equal(['foo.v1']);
    expect(await names('(offset: -1)')).to.deep.equal(all);
    expect(await names('(offset: 3)')).to.deep.equal([]);
    expect(await names('(limit: 2, offset: 2)')).to.deep.equal(['foo.v2']);
  });

  it('pages through a generated catalog in blob order', async () => {
    const gen = await generatedCatalog(3, 0.3);
    await withServed({ gen }, createGraphqlEndpoint(), async (g) => {
      const want = inBlobOrder(gen.blobs)
        .filter((b) => b.schema === 'olm.bundle')
        .map((b) => b.name);
      const got: unknown[] = [];
      for (let offset = 0; offset < want.length + 100; offset += 100) {
        const r = await postQuery(g.server, 'gen', `{ olmbundles(offset: ${offset}) { name } }`);
        got.push(
          ...dataOf<{ olmbundles: Array<{ name: string }> }>(r).olmbundles.map((b) => b.name),
        );
      }
      expect(got).to.deep.equal(want);
    });
  });

  it('answers variables and operationName (upstream reads the query only)', async () => {
    const r = await ask(
      'query A { summary { totalSchemas } } query B($n: Int) { olmbundles(limit: $n) { name } }',
      {
        variables: { n: 1 },
        operationName: 'B',
      },
    );
    expect(r.json).to.deep.equal({ data: { olmbundles: [{ name: 'bar.v1' }] } });
  });
});
