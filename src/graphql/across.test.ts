import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ContentStore, startContentServer } from '../server/index.js';
import type { ContentServer } from '../server/index.js';
import { blobOf, catalogOf, streamOf } from '../server/test-catalogs.test.js';
import type { TestCatalog } from '../server/test-catalogs.test.js';
import { createAcrossEndpoint } from './across.js';
import type { AcrossEndpointOptions } from './across.js';
import type { CatalogEntry } from './across-port.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { LATE_CLOCK, smallCatalog, T0 } from './test-fixtures.test.js';
import { call, requestError } from './test-requests.test.js';
import type { Reply } from './test-requests.test.js';

const ACROSS = '/api/v1/graphql';

/** A second catalog: other packages, `count` a String (an Int in smallCatalog), a field of its own. */
function otherCatalog(): TestCatalog {
  return catalogOf(
    [
      { schema: 'olm.package', name: 'zed', defaultChannel: 'beta', only: 'here' },
      { schema: 'my.thing', name: 'two', count: 'many' },
      {
        schema: 'olm.bundle',
        package: 'zed',
        name: 'zed.v1',
        image: 'quay.io/x/zed.v1',
        properties: [{ type: 'olm.package', value: { packageName: 'zed', version: '1.0.0' } }],
      },
    ].map(blobOf),
  );
}

/** A catalog with no schema (two FBC schemas with one type name: upstream's collision). */
function brokenCatalog(): TestCatalog {
  return catalogOf(
    [
      { schema: 'olm.bundle', name: 'x' },
      { schema: 'olm_bundle', name: 'y' },
    ].map(blobOf),
  );
}

const entry = (name: string, priority: number, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  name,
  priority,
  availabilityMode: 'Available',
  serving: true,
  ...over,
});

interface Across {
  server: ContentServer;
  entries: CatalogEntry[];
  close(): Promise<void>;
}

async function serveAcross(
  catalogs: Record<string, TestCatalog>,
  entries: CatalogEntry[],
  opts: Partial<AcrossEndpointOptions> = {},
): Promise<Across> {
  const root = await mkdtemp(path.join(tmpdir(), 'across-'));
  const store = new ContentStore(path.join(root, 'store'), { graceMs: 0 });
  for (const [name, c] of Object.entries(catalogs))
    await store.ensureServed(name, c.contentHash, T0, () => streamOf(c.blobs));
  const server = await startContentServer({
    store,
    graphql: createGraphqlEndpoint(),
    serverGraphql: createAcrossEndpoint({ directory: { catalogs: () => entries }, ...opts }),
  });
  return {
    server,
    entries,
    async close() {
      await server.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

function post(s: Across, query: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return call(s.server, ACROSS, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, ...extra }),
  });
}

function get(s: Across, query: string, headers: Record<string, string> = {}): Promise<Reply> {
  return call(s.server, `${ACROSS}?query=${encodeURIComponent(query)}`, { headers });
}

describe('graphql/across: <server-url>/api/v1/graphql', () => {
  let s: Across;
  before(async () => {
    s = await serveAcross(
      { low: smallCatalog(), high: otherCatalog(), off: otherCatalog(), broken: brokenCatalog() },
      [
        entry('low', 0),
        entry('high', 10),
        entry('off', 20, { availabilityMode: 'Unavailable' }),
        entry('waiting', 5, { serving: false }),
        entry('broken', 1),
        entry('elsewhere', 1),
      ],
    );
  });
  after(async () => {
    await s.close();
  });

  it('answers every serving catalog by priority, each object naming its catalog; the others in errors', async () => {
    const r = await post(s, '{ olmpackages { catalog name } }');
    expect(r.status).to.equal(200);
    const body = r.json as { data: unknown; errors: Array<{ message: string }> };
    expect(body.data).to.deep.equal({
      olmpackages: [
        { catalog: 'high', name: 'zed' },
        { catalog: 'low', name: 'bar' },
        { catalog: 'low', name: 'foo' },
      ],
    });
    // Unavailable: left out without a word (operator-controller drops it); the others named.
    expect(body.errors.map((e) => e.message)).to.deep.equal([
      'catalog "waiting" is not being served: left out',
      'catalog "broken" has no GraphQL schema (type name collision: schemas "olm.bundle" and "olm_bundle" both sanitize to GraphQL type "OlmBundle"): left out',
      'catalog "elsewhere" is not served by this server yet: left out',
    ]);
  });

  it('lists the ClusterCatalogs by priority, with the revision each answered from', async () => {
    const r = await post(s, '{ catalogs { name priority availabilityMode serving contentHash } }');
    const rows = (r.json as { data: { catalogs: Array<Record<string, unknown>> } }).data.catalogs;
    expect(rows.map((c) => [c.name, c.priority, c.serving, c.contentHash !== null])).to.deep.equal([
      ['off', 20, true, false],
      ['high', 10, true, true],
      ['waiting', 5, false, false],
      ['broken', 1, true, false],
      ['elsewhere', 1, true, false],
      ['low', 0, true, true],
    ]);
    expect(rows[0]!.availabilityMode).to.equal('Unavailable');
  });

  it("merges the types: a field of one catalog is null in the other; a field typed otherwise takes the first catalog's type", async () => {
    const r = await post(s, '{ olmpackages { name only } mythings { catalog name count } }');
    const data = (r.json as { data: Record<string, unknown> }).data;
    expect(data.olmpackages).to.deep.equal([
      { name: 'zed', only: 'here' },
      { name: 'bar', only: null },
      { name: 'foo', only: null },
    ]);
    // `count` is a String in "high" (first by priority), an Int in "low": low is not asked.
    expect(data.mythings).to.deep.equal([
      { catalog: 'high', name: 'two', count: 'many' },
      { catalog: 'low', name: 'one', count: null },
    ]);
    const t = await post(s, '{ __type(name: "MyThing") { fields { name type { name kind } } } }');
    const fields = (
      t.json as {
        data: { __type: { fields: Array<{ name: string; type: { name: string; kind: string } }> } };
      }
    ).data.__type.fields;
    expect(fields.find((f) => f.name === 'count')!.type).to.deep.equal({
      name: 'String',
      kind: 'SCALAR',
    });
    expect(fields.find((f) => f.name === 'catalog')!.type.kind).to.equal('NON_NULL');
  });

  it('answers aliases, fragments, variables and nested lists, limit per catalog', async () => {
    const r = await post(
      s,
      'query ($n: Int) { b: olmbundles(limit: $n) { ...B from: catalog } } fragment B on OlmBundle { name properties { type } }',
      { variables: { n: 1 } },
    );
    expect((r.json as { data: unknown }).data).to.deep.equal({
      b: [
        { name: 'zed.v1', properties: [{ type: 'olm.package' }], from: 'high' },
        { name: 'bar.v1', properties: [{ type: 'olm.package' }, { type: 'olm.gvk' }], from: 'low' },
      ],
    });
  });

  it('refuses what the per-catalog endpoint refuses, with its messages', async () => {
    const bad = await post(s, '{ olmpackages { nope } }');
    expect(bad.status).to.equal(400);
    expect((bad.json as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(
      /Cannot query field "nope" on type "OlmPackage"/,
    );
    const deep = await post(s, `{ olmpackages ${'{ a '.repeat(11)}${'}'.repeat(11)} }`);
    expect(deep.status).to.equal(400);
    expect(deep.text).to.include('query exceeds maximum depth of 10');
    const cost = await post(
      s,
      `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: olmbundles { name }`).join(' ')} }`,
    );
    expect(cost.status).to.equal(400);
    expect(cost.text).to.include('maximum list cost');
    const join = await post(s, '{ fbcPackages { bundles { channels { name } } } }');
    expect(join.status).to.equal(400);
    expect(join.text).to.include('maximum join cost');
    expect((await call(s.server, ACROSS, { method: 'PUT' })).status).to.equal(405);
  });

  it('GET: an ETag of every catalog and the request, 304, gzip', async () => {
    const q = '{ olmpackages { name } }';
    const r = await get(s, q);
    expect(r.status).to.equal(200);
    const etag = r.headers.etag!;
    expect(etag).to.match(/^"[0-9a-f]{64}"$/);
    expect((await get(s, q, { 'If-None-Match': etag })).status).to.equal(304);
    const z = await get(s, q, { 'Accept-Encoding': 'gzip' });
    expect(gunzipSync(z.body).toString()).to.equal(r.text);
    // Another priority is another answer (another order): another tag.
    s.entries[0]!.priority = 30;
    try {
      const moved = await get(s, q, { 'If-None-Match': etag });
      expect(moved.status).to.equal(200);
      expect(moved.headers.etag).to.not.equal(etag);
      expect(
        (moved.json as { data: { olmpackages: unknown[] } }).data.olmpackages[0],
      ).to.deep.equal({
        name: 'bar',
      });
    } finally {
      s.entries[0]!.priority = 0;
    }
  });
});

describe('graphql/across: bounds', () => {
  it('counts the read budget over all catalogs together: 400', async () => {
    // One catalog's bundles fit in the budget; both catalogs' do not.
    const bundleBytes = smallCatalog()
      .blobs.filter((b) => b.schema === 'olm.bundle')
      .reduce((n, b) => n + Buffer.byteLength(b.canonical), 0);
    const catalogs = { a: smallCatalog(), b: smallCatalog() };
    const budgets = { readBytes: Math.floor(bundleBytes * 1.5) };
    const s = await serveAcross(catalogs, [entry('a', 0)], { budgets });
    try {
      expect((await post(s, '{ olmbundles { name } }')).status).to.equal(200);
      s.entries.push(entry('b', 0));
      const r = await post(s, '{ olmbundles { name } }');
      expect(r.status).to.equal(400);
      expect(r.text).to.include('all catalogs together');
    } finally {
      await s.close();
    }
  });

  it('a query with no turn, or past its deadline, is 503 with Retry-After', async () => {
    for (const [opts, message] of [
      [{ running: 0, waiting: 0 }, 'too many GraphQL queries at once: retry'],
      [{ clock: LATE_CLOCK }, 'query exceeds its deadline of 5s'],
    ] as const) {
      const s = await serveAcross({ a: smallCatalog() }, [entry('a', 0)], opts);
      try {
        const r = await post(s, '{ olmbundles { name } }');
        expect([r.status, r.headers['retry-after'], r.text]).to.deep.equal([
          503,
          '1',
          requestError(message),
        ]);
      } finally {
        await s.close();
      }
    }
  });

  it('answers `catalogs` with no catalog served, and 404 without the endpoint', async () => {
    const s = await serveAcross({}, []);
    try {
      const r = await post(s, '{ catalogs { name } }');
      expect(r.json).to.deep.equal({ data: { catalogs: [] } });
    } finally {
      await s.close();
    }
  });
});
