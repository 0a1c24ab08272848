import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { getIntrospectionQuery } from 'graphql';
import { blobOf, catalogOf, generatedCatalog, inBlobOrder } from '../server/test-catalogs.test.js';
import type { Timer } from '../util/clock.js';
import { CatalogSchemas } from './catalog-schemas.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { call, postQuery, serve, smallCatalog } from './test-fixtures.test.js';
import type { Served } from './test-fixtures.test.js';

const ENDPOINT = '/catalogs/cat/api/v1/graphql';

function get(s: Served, query: string, headers: Record<string, string> = {}, extra = '') {
  return call(s.server, `${ENDPOINT}?query=${encodeURIComponent(query)}${extra}`, { headers });
}

/** Upstream's body of a request error: no data, one error without locations. */
function requestError(message: string): string {
  return `${JSON.stringify({ data: null, errors: [{ message, locations: [] }] })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')}\n`;
}

describe('graphql/endpoint: upstream’s queries over HTTP', function () {
  let s: Served;

  before(async () => {
    s = await serve({ cat: smallCatalog() }, createGraphqlEndpoint());
  });

  after(async () => {
    await s.close();
  });

  it('answers summary, with the schemas in name order', async () => {
    const r = await postQuery(
      s.server,
      'cat',
      '{ summary { totalSchemas schemas { name totalObjects totalFields } } }',
    );
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
    const r = await postQuery(
      s.server,
      'cat',
      '{ olmpackages(limit: 1, offset: 1) { name icon description } }',
    );
    expect(r.text).to.equal(
      '{"data":{"olmpackages":[{"description":"a \\u003cb\\u003e \\u0026 c","icon":"{\\"base64data\\":\\"PHN2Zz4=\\",\\"mediatype\\":\\"image/svg+xml\\"}","name":"foo"}]}}\n',
    );
  });

  it('has one root field per schema, with limit and offset, and summary (introspection)', async () => {
    const r = await postQuery(
      s.server,
      'cat',
      '{ __schema { queryType { name fields { name type { kind ofType { name } } args { name defaultValue type { name } } } } } }',
    );
    const fields = (
      r.json as {
        data: {
          __schema: {
            queryType: {
              name: string;
              fields: Array<{ name: string; type: unknown; args: unknown[] }>;
            };
          };
        };
      }
    ).data.__schema.queryType;
    expect(fields.name).to.equal('Query');
    expect(fields.fields.map((f) => f.name)).to.deep.equal([
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
    const r = await postQuery(
      s.server,
      'cat',
      '{ __schema { types { name kind fields { name type { kind name ofType { kind name ofType { kind name } } } } } } }',
    );
    expect(r.status).to.equal(200);
    const types = (
      r.json as { data: { __schema: { types: Array<{ name: string }> } } }
    ).data.__schema.types.map((t) => t.name);
    expect(types).to.include.members([
      'Query',
      'OlmBundle',
      'OlmBundleProperties',
      'OlmChannelEntries',
      'CatalogSummary',
      'SchemaSummary',
    ]);
    const full = await postQuery(s.server, 'cat', getIntrospectionQuery());
    expect([full.status, full.text]).to.deep.equal([
      400,
      requestError('query exceeds maximum depth of 10'),
    ]);
  });

  it('types blob fields as upstream: scalars, lists, lists of objects, objects as JSON strings', async () => {
    const r = await postQuery(
      s.server,
      'cat',
      '{ t: __type(name: "MyThing") { fields { name type { kind name ofType { kind name } } } } p: __type(name: "OlmBundleProperties") { fields { name type { name } } } }',
    );
    const data = (
      r.json as {
        data: {
          t: {
            fields: Array<{
              name: string;
              type: { kind: string; name: string | null; ofType: { name: string } | null };
            }>;
          };
          p: unknown;
        };
      }
    ).data;
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
    const v = await postQuery(
      s.server,
      'cat',
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
    const c = await postQuery(
      s.server,
      'cat',
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
      (
        (await postQuery(s.server, 'cat', `{ olmbundles${args} { name } }`)).json as {
          data: { olmbundles: Array<{ name: string }> };
        }
      ).data.olmbundles.map((b) => b.name);
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
    const g = await serve({ gen }, createGraphqlEndpoint());
    try {
      const want = inBlobOrder(gen.blobs)
        .filter((b) => b.schema === 'olm.bundle')
        .map((b) => b.name);
      const got: unknown[] = [];
      for (let offset = 0; offset < want.length + 100; offset += 100) {
        const r = await postQuery(g.server, 'gen', `{ olmbundles(offset: ${offset}) { name } }`);
        got.push(
          ...(r.json as { data: { olmbundles: Array<{ name: string }> } }).data.olmbundles.map(
            (b) => b.name,
          ),
        );
      }
      expect(got).to.deep.equal(want);
    } finally {
      await g.close();
    }
  });

  it('answers variables and operationName (upstream reads the query only)', async () => {
    const r = await postQuery(
      s.server,
      'cat',
      'query A { summary { totalSchemas } } query B($n: Int) { olmbundles(limit: $n) { name } }',
      {
        variables: { n: 1 },
        operationName: 'B',
      },
    );
    expect(r.json).to.deep.equal({ data: { olmbundles: [{ name: 'bar.v1' }] } });
  });

  it('refuses a query over upstream’s limits with 400 and upstream’s error shape', async () => {
    let deep = '{ olmbundles { properties { type } } }';
    for (let i = 0; i < 10; i++) deep = `{ ... on Query ${deep} }`;
    const d = await postQuery(s.server, 'cat', deep);
    expect(d.status).to.equal(400);
    expect(d.text).to.equal(requestError('query exceeds maximum depth of 10'));
    const aliases = `{ ${Array.from({ length: 51 }, (_, i) => `a${i}: summary { totalSchemas }`).join(' ')} }`;
    const a = await postQuery(s.server, 'cat', aliases);
    expect([a.status, a.text]).to.deep.equal([
      400,
      requestError('query exceeds maximum alias count of 50'),
    ]);
    const fields = `{ olmbundles { ${Array.from({ length: 500 }, () => 'name').join(' ')} } }`;
    const f = await postQuery(s.server, 'cat', fields);
    expect([f.status, f.text]).to.deep.equal([
      400,
      requestError('query exceeds maximum field count of 500'),
    ]);
    const cost = `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: olmbundles { name }`).join(' ')} }`;
    const c = await postQuery(s.server, 'cat', cost);
    expect(c.status).to.equal(400);
    expect((c.json as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(
      /^query exceeds maximum list cost of 1000 objects/,
    );
  });

  it('answers a malformed or invalid query 400, a bad body 400 with upstream’s messages', async () => {
    const p = await postQuery(s.server, 'cat', '{ olmbundles { name }');
    expect([p.status, p.text]).to.deep.equal([
      400,
      requestError('query parse error: Syntax Error: Expected Name, found <EOF>.'),
    ]);
    const v = await postQuery(s.server, 'cat', '{ olmbundles { nope } }');
    expect(v.status).to.equal(400);
    expect(v.json).to.deep.equal({
      data: null,
      errors: [
        {
          message: 'Cannot query field "nope" on type "OlmBundle". Did you mean "name"?',
          locations: [{ line: 1, column: 16 }],
        },
      ],
    });
    const body = (b: string) => call(s.server, ENDPOINT, { method: 'POST', body: b });
    for (const [b, message] of [
      ['not json', 'Invalid request body'],
      ['[1]', 'Invalid request body'],
      ['{"query": 3}', 'Invalid request body'],
      ['{}', 'Query cannot be empty'],
      ['{"query": ""}', 'Query cannot be empty'],
      [
        JSON.stringify({ query: `{ summary { totalSchemas } }${' '.repeat(100_000)}` }),
        'Query too large',
      ],
      [
        '{"query": "{ summary { totalSchemas } }", "variables": [1]}',
        'variables must be a JSON object',
      ],
    ] as const) {
      const r = await body(b);
      expect([r.status, r.text], b.slice(0, 40)).to.deep.equal([400, requestError(message)]);
    }
    const big = await call(s.server, ENDPOINT, {
      method: 'POST',
      body: Buffer.alloc((1 << 20) + 1, 32),
    });
    expect([big.status, big.text]).to.deep.equal([400, requestError('Invalid request body')]);
    const spreads = `{ olmbundles { ${'...F '.repeat(2500)}} } fragment F on OlmBundle { name }`;
    const t = await postQuery(s.server, 'cat', spreads);
    expect([t.status, t.text]).to.deep.equal([
      400,
      requestError(
        'query parse error: Syntax Error: Document contains more than 5000 tokens. Parsing aborted.',
      ),
    ]);
    const u = await postQuery(
      s.server,
      'cat',
      'query($n: Int) { olmbundles(limit: $n) { name } }',
      { variables: { n: 'x' } },
    );
    expect(u.status).to.equal(400);
  });

  it('answers GET ?query= with an ETag and 304, HEAD alike, gzip when asked', async () => {
    const q = '{ olmpackages { name } }';
    const r = await get(s, q);
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ data: { olmpackages: [{ name: 'bar' }, { name: 'foo' }] } });
    const etag = r.headers.etag!;
    expect(etag).to.match(/^"[0-9a-f]{64}"$/);
    expect(r.headers['last-modified']).to.equal('Wed, 04 Mar 2026 05:06:07 GMT');
    expect(r.headers.vary).to.equal('Accept-Encoding');
    const again = await get(s, q, { 'If-None-Match': etag });
    expect([again.status, again.body.length]).to.deep.equal([304, 0]);
    expect(again.headers.etag).to.equal(etag);
    const other = await get(s, '{ olmpackages { defaultChannel } }', { 'If-None-Match': etag });
    expect(other.status).to.equal(200);
    expect(other.headers.etag).not.to.equal(etag);
    const z = await get(s, q, { 'Accept-Encoding': 'gzip' });
    expect(z.headers['content-encoding']).to.equal('gzip');
    expect(z.headers.etag).to.equal(`${etag.slice(0, -1)}-gzip"`);
    expect(gunzipSync(z.body).toString()).to.equal(r.text);
    expect((await get(s, q, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag })).status).to.equal(
      304,
    );
    const head = await call(s.server, `${ENDPOINT}?query=${encodeURIComponent(q)}`, {
      method: 'HEAD',
    });
    expect([
      head.status,
      head.body.length,
      head.headers.etag,
      head.headers['content-length'],
    ]).to.deep.equal([200, 0, etag, String(r.body.length)]);
    const vars = await get(
      s,
      'query($n: Int) { olmbundles(limit: $n) { name } }',
      {},
      `&variables=${encodeURIComponent('{"n":1}')}`,
    );
    expect(vars.json).to.deep.equal({ data: { olmbundles: [{ name: 'bar.v1' }] } });
    // An invalid GET query is 400, and gets no ETag.
    const bad = await get(s, '{ nope }');
    expect([bad.status, bad.headers.etag]).to.deep.equal([400, undefined]);
    expect((await call(s.server, ENDPOINT)).status).to.equal(400);
  });

  it('gzips a POST answer when asked', async () => {
    const q = '{ olmbundles { name image } }';
    const plain = await postQuery(s.server, 'cat', q);
    const z = await postQuery(s.server, 'cat', q, {}, { 'Accept-Encoding': 'gzip' });
    expect(z.headers['content-encoding']).to.equal('gzip');
    expect(z.headers.etag).to.equal(undefined);
    expect(gunzipSync(z.body).toString()).to.equal(plain.text);
  });

  it('is GET, HEAD and POST only; 404 for a catalog not served', async () => {
    const r = await call(s.server, ENDPOINT, { method: 'PUT', body: '{}' });
    expect([r.status, r.headers.allow]).to.deep.equal([405, 'GET, HEAD, POST']);
    expect((await postQuery(s.server, 'nope', '{ summary { totalSchemas } }')).status).to.equal(
      404,
    );
  });
});

describe('graphql/endpoint: revisions, schemas, bounds', function () {
  it('answers a revision URL from that revision (a replaced one in its grace period)', async () => {
    const first = smallCatalog();
    const second = catalogOf([blobOf({ schema: 'olm.package', name: 'only' })]);
    const schemas = new CatalogSchemas();
    const s = await serve({ cat: first }, createGraphqlEndpoint({ schemas }), { graceMs: 60_000 });
    try {
      await s.store.ensureServed('cat', second.contentHash, new Date(), async function* () {
        yield* second.blobs;
      });
      const names = async (base: string) => {
        const r = await call(s.server, `${base}/api/v1/graphql`, {
          method: 'POST',
          body: JSON.stringify({ query: '{ olmpackages { name } }' }),
        });
        return (r.json as { data: { olmpackages: Array<{ name: string }> } }).data.olmpackages.map(
          (p) => p.name,
        );
      };
      const key = (h: string) => h.slice('sha256:'.length, 'sha256:'.length + 16);
      expect(await names('/catalogs/cat')).to.deep.equal(['only']);
      expect(await names(`/catalogs/cat/revisions/${key(first.contentHash)}`)).to.deep.equal([
        'bar',
        'foo',
      ]);
      expect(await names(`/catalogs/cat/revisions/${key(second.contentHash)}`)).to.deep.equal([
        'only',
      ]);
      expect(schemas.size).to.equal(2);
      const unknown = await call(
        s.server,
        '/catalogs/cat/revisions/0123456789abcdef/api/v1/graphql',
        {
          method: 'POST',
          body: '{"query":"{ summary { totalSchemas } }"}',
        },
      );
      expect([unknown.status, unknown.headers['retry-after']]).to.deep.equal([503, '1']);
    } finally {
      await s.close();
    }
  });

  it('answers 500 with upstream’s collision message for a catalog upstream cannot build a schema of', async () => {
    const c = catalogOf([
      blobOf({ schema: 'olm.bundle', name: 'a' }),
      blobOf({ schema: 'olm_bundle', name: 'b' }),
    ]);
    const s = await serve({ cat: c }, createGraphqlEndpoint());
    try {
      const r = await postQuery(s.server, 'cat', '{ summary { totalSchemas } }');
      expect(r.status).to.equal(500);
      expect(r.json).to.deep.equal({
        data: null,
        errors: [
          {
            message:
              'failed to get GraphQL schema: error building GraphQL schema: type name collision: schemas "olm.bundle" and "olm_bundle" both sanitize to GraphQL type "OlmBundle"',
            locations: [],
          },
        ],
      });
    } finally {
      await s.close();
    }
  });

  it('refuses a query past its budgets with 400, a query with no turn with 503, one past its deadline with 503', async () => {
    const c = smallCatalog();
    const budgeted = await serve(
      { cat: c },
      createGraphqlEndpoint({ budgets: { answerBytes: 100 } }),
    );
    try {
      const small = await postQuery(budgeted.server, 'cat', '{ olmbundles { name } }');
      expect(small.status).to.equal(200);
      const big = await postQuery(
        budgeted.server,
        'cat',
        '{ olmbundles { name properties { value } } }',
      );
      expect([big.status, big.json]).to.deep.equal([
        400,
        {
          data: null,
          errors: [
            {
              message:
                'query answer exceeds 100 bytes: ask for fewer objects (limit) or fewer fields',
              locations: [],
            },
          ],
        },
      ]);
    } finally {
      await budgeted.close();
    }
    const readBudget = await serve(
      { cat: c },
      createGraphqlEndpoint({ budgets: { readBytes: 200 } }),
    );
    try {
      const r = await postQuery(readBudget.server, 'cat', '{ olmbundles { name } }');
      expect(r.status).to.equal(400);
      expect(r.text).to.contain('query reads more than 200 bytes of blobs');
    } finally {
      await readBudget.close();
    }
    const busy = await serve({ cat: c }, createGraphqlEndpoint({ running: 0, waiting: 0 }));
    try {
      const r = await postQuery(busy.server, 'cat', '{ summary { totalSchemas } }');
      expect([r.status, r.headers['retry-after'], r.text]).to.deep.equal([
        503,
        '1',
        requestError('too many GraphQL queries at once: retry'),
      ]);
    } finally {
      await busy.close();
    }
    // A clock whose timers fire at once: the deadline has passed when the query runs.
    const late = {
      setTimer(_ms: number, fn: () => void): Timer {
        fn();
        return { cancel: () => undefined };
      },
    };
    const slow = await serve({ cat: c }, createGraphqlEndpoint({ clock: late }));
    try {
      const r = await postQuery(slow.server, 'cat', '{ olmbundles { name } }');
      expect([r.status, r.headers['retry-after'], r.text]).to.deep.equal([
        503,
        '1',
        requestError('query exceeds its deadline of 5s'),
      ]);
    } finally {
      await slow.close();
    }
  });

  it('is not there unless mounted (--no-graphql): 404', async () => {
    const s = await serve({ cat: smallCatalog() }, undefined);
    try {
      expect((await postQuery(s.server, 'cat', '{ summary { totalSchemas } }')).status).to.equal(
        404,
      );
    } finally {
      await s.close();
    }
  });
});
