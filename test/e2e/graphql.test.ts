// The GraphQL endpoint as clients meet it (docs/graphql.md): served by the real controller (on
// by default) for a synced catalog, its answers compared with the CatalogMetadata objects in
// the apiserver, under the revision URL of status.urls.base and the catalog's own base alike.
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import type { ChannelBlob } from '../../src/answers/fbc-types.js';
import { channelHead } from '../../src/answers/graph.js';
import { listObjects, sampleDir } from '../support/catalogs.js';
import { serveSampleForSuite } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';

interface GraphqlReply {
  status: number;
  headers: Headers;
  text: string;
  body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string }> };
}

async function post(
  base: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<GraphqlReply> {
  const r = await fetch(`${base}/api/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  const text = await r.text();
  const body = JSON.parse(text) as GraphqlReply['body'];
  return { status: r.status, headers: r.headers, text, body };
}

describe('graphql e2e: upstream catalogd’s GraphQL queries over HTTP', function () {
  this.timeout(300_000);
  const name = uniqueName('gql');
  const suite = serveSampleForSuite(name, sampleDir);

  async function contents(schema: string): Promise<Array<Record<string, unknown>>> {
    const list = await listObjects(`catalog=${name},schema=${schema}`);
    return list.items.map((o) => o.spec.content as Record<string, unknown>);
  }

  it('answers summary with the counts of the CatalogMetadata objects', async () => {
    const r = await post(
      suite.served(),
      '{ summary { totalSchemas schemas { name totalObjects } } }',
    );
    expect(r.status).to.equal(200);
    const summary = r.body.data!.summary as {
      totalSchemas: number;
      schemas: Array<{ name: string; totalObjects: number }>;
    };
    expect(summary.totalSchemas).to.equal(summary.schemas.length);
    for (const s of summary.schemas)
      expect(s.totalObjects, s.name).to.equal((await contents(s.name)).length);
    expect(summary.schemas.map((s) => s.name)).to.include.members(['olm.bundle', 'olm.package']);
  });

  it('answers olmbundles and olmpackages as the objects hold them, at both bases', async () => {
    const query = '{ olmbundles { name package image } olmpackages { name defaultChannel } }';
    const r = await post(suite.served(), query);
    expect(r.status).to.equal(200);
    const bundles = (r.body.data!.olmbundles as Array<Record<string, unknown>>).map((b) =>
      JSON.stringify(b),
    );
    const want = (await contents('olm.bundle'))
      .map((b) =>
        JSON.stringify({
          image: b.image ?? null,
          name: b.name ?? null,
          package: b.package ?? null,
        }),
      )
      .sort();
    expect([...bundles].sort()).to.deep.equal(want);
    const packages = (r.body.data!.olmpackages as Array<{ name: string }>).map((p) => p.name);
    expect([...packages].sort()).to.deep.equal(
      (await contents('olm.package')).map((p) => p.name as string).sort(),
    );
    // The catalog's own base (the revision served now) answers the same.
    const current = `${suite.controller().serverUrl}/catalogs/${name}`;
    expect((await post(current, query)).text).to.equal(r.text);
  });

  it('refuses a query over upstream’s limits with 400 and its error shape', async () => {
    let deep = '{ olmbundles { properties { type } } }';
    for (let i = 0; i < 10; i++) deep = `{ ... on Query ${deep} }`;
    const r = await post(suite.served(), deep);
    expect(r.status).to.equal(400);
    expect(r.body).to.deep.equal({
      data: null,
      errors: [{ message: 'query exceeds maximum depth of 10', locations: [] }],
    });
    expect((await post(suite.served(), '{ olmbundles {')).status).to.equal(400);
  });

  it('answers GET ?query= with an ETag and 304, and gzip when asked', async () => {
    const url = `${suite.served()}/api/v1/graphql?query=${encodeURIComponent('{ olmpackages { name } }')}`;
    const first = await fetch(url);
    expect(first.status).to.equal(200);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).to.match(/^"[0-9a-f]{64}(-gzip)?"$/);
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).to.equal(304);
    const { request } = await import('node:http');
    const { hostname, port, pathname, search } = new URL(url);
    const gz = await new Promise<{ encoding: string | undefined; body: Buffer }>(
      (resolve, reject) => {
        const req = request(
          { hostname, port, path: pathname + search, headers: { 'accept-encoding': 'gzip' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                encoding: res.headers['content-encoding'],
                body: Buffer.concat(chunks),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
    expect(gz.encoding).to.equal('gzip');
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).to.deep.equal(
      JSON.parse(await (await fetch(url)).text()),
    );
  });

  it('answers the additions: a filtered package list and a package joined to its channels and heads', async () => {
    const channels = (await contents('olm.channel')) as unknown as ChannelBlob[];
    const pkg = channels[0]!.package;
    const r = await post(
      suite.served(),
      `{ fbcPackages(name: "${pkg}") { name channels { name headName head { name package } } } }`,
    );
    expect(r.status, r.text).to.equal(200);
    const want = channels
      .filter((c) => c.package === pkg)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((c) => {
        const head = channelHead(c).head ?? null;
        return { name: c.name, headName: head, head: head && { name: head, package: pkg } };
      });
    expect(r.body.data).to.deep.equal({ fbcPackages: [{ name: pkg, channels: want }] });
  });
});
