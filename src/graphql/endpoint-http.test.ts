import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { blobOf, catalogOf } from '../server/test-catalogs.test.js';
import { CatalogSchemas } from './catalog-schemas.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { servedForSuite, smallCatalog, withServed } from './test-fixtures.test.js';
import { ENDPOINT, call, dataOf, get, postQuery } from './test-requests.test.js';

describe('graphql/endpoint: HTTP (GET, HEAD, POST, caching, gzip)', function () {
  const s = servedForSuite();

  it('answers GET ?query= with an ETag and 304, HEAD alike, gzip when asked', async () => {
    const q = '{ olmpackages { name } }';
    const r = await get(s(), q);
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ data: { olmpackages: [{ name: 'bar' }, { name: 'foo' }] } });
    const etag = r.headers.etag!;
    expect(etag).to.match(/^"[0-9a-f]{64}"$/);
    expect(r.headers['last-modified']).to.equal('Wed, 04 Mar 2026 05:06:07 GMT');
    expect(r.headers.vary).to.equal('Accept-Encoding');
    const again = await get(s(), q, { 'If-None-Match': etag });
    expect([again.status, again.body.length]).to.deep.equal([304, 0]);
    expect(again.headers.etag).to.equal(etag);
    const other = await get(s(), '{ olmpackages { defaultChannel } }', { 'If-None-Match': etag });
    expect(other.status).to.equal(200);
    expect(other.headers.etag).not.to.equal(etag);
    const z = await get(s(), q, { 'Accept-Encoding': 'gzip' });
    expect(z.headers['content-encoding']).to.equal('gzip');
    expect(z.headers.etag).to.equal(`${etag.slice(0, -1)}-gzip"`);
    expect(gunzipSync(z.body).toString()).to.equal(r.text);
    expect(
      (await get(s(), q, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag })).status,
    ).to.equal(304);
    const head = await call(s().server, `${ENDPOINT}?query=${encodeURIComponent(q)}`, {
      method: 'HEAD',
    });
    expect([
      head.status,
      head.body.length,
      head.headers.etag,
      head.headers['content-length'],
    ]).to.deep.equal([200, 0, etag, String(r.body.length)]);
    const vars = await get(
      s(),
      'query($n: Int) { olmbundles(limit: $n) { name } }',
      {},
      `&variables=${encodeURIComponent('{"n":1}')}`,
    );
    expect(vars.json).to.deep.equal({ data: { olmbundles: [{ name: 'bar.v1' }] } });
    // An invalid GET query is 400, and gets no ETag.
    const bad = await get(s(), '{ nope }');
    expect([bad.status, bad.headers.etag]).to.deep.equal([400, undefined]);
    expect((await call(s().server, ENDPOINT)).status).to.equal(400);
  });

  it('gzips a POST answer when asked', async () => {
    const q = '{ olmbundles { name image } }';
    const plain = await postQuery(s().server, 'cat', q);
    const z = await postQuery(s().server, 'cat', q, {}, { 'Accept-Encoding': 'gzip' });
    expect(z.headers['content-encoding']).to.equal('gzip');
    expect(z.headers.etag).to.equal(undefined);
    expect(gunzipSync(z.body).toString()).to.equal(plain.text);
  });

  it('is GET, HEAD and POST only; 404 for a catalog not served', async () => {
    const r = await call(s().server, ENDPOINT, { method: 'PUT', body: '{}' });
    expect([r.status, r.headers.allow]).to.deep.equal([405, 'GET, HEAD, POST']);
    expect((await postQuery(s().server, 'nope', '{ summary { totalSchemas } }')).status).to.equal(
      404,
    );
  });
});

describe('graphql/endpoint: revision URLs, mounting', function () {
  it('answers a revision URL from that revision (a replaced one in its grace period)', async () => {
    const first = smallCatalog();
    const second = catalogOf([blobOf({ schema: 'olm.package', name: 'only' })]);
    const schemas = new CatalogSchemas();
    await withServed(
      { cat: first },
      createGraphqlEndpoint({ schemas }),
      async (s) => {
        await s.store.ensureServed('cat', second.contentHash, new Date(), async function* () {
          yield* second.blobs;
        });
        const names = async (base: string) => {
          const r = await call(s.server, `${base}/api/v1/graphql`, {
            method: 'POST',
            body: JSON.stringify({ query: '{ olmpackages { name } }' }),
          });
          return dataOf<{ olmpackages: Array<{ name: string }> }>(r).olmpackages.map((p) => p.name);
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
      },
      { graceMs: 60_000 },
    );
  });

  it('is not there unless mounted (--no-graphql): 404', async () => {
    await withServed({ cat: smallCatalog() }, undefined, async (s) => {
      expect((await postQuery(s.server, 'cat', '{ summary { totalSchemas } }')).status).to.equal(
        404,
      );
    });
  });
});
