// The HTTP content server as clients meet it: served by the real controller for a synced
// catalog, compared with the CatalogMetadata objects in the apiserver, and read while a new
// revision is being synced.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { canonicalize } from '../../src/fbc/index.js';
import { applyCatalog, listObjects, push, sampleDir, waitSynced } from '../support/catalogs.js';
import { serveSampleForSuite } from '../support/e2e-setup.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { bodyContentHash } from '../support/olm-client.js';
import { pollUntil } from '../support/poll.js';
import { catalogContentHash } from '../support/revisions.js';

describe('server e2e: catalog content over HTTP', function () {
  this.timeout(300_000);
  const name = uniqueName('served');
  const suite = serveSampleForSuite(name, sampleDir);

  async function objectContents(selector: string): Promise<string[]> {
    const list = await listObjects(`catalog=${name}${selector ? `,${selector}` : ''}`);
    return list.items.map((o) => canonicalize(o.spec.content)).sort();
  }

  async function metas(query: string): Promise<string[]> {
    const r = await fetch(`${suite.served()}/api/v1/metas${query}`);
    expect(r.status, query).to.equal(200);
    return (await r.text()).split('\n').filter(Boolean).sort();
  }

  it('serves /all and metas queries equal to the CatalogMetadata contents', async () => {
    const all = await fetch(`${suite.served()}/api/v1/all`);
    expect(all.headers.get('content-type')).to.match(/jsonl|json/);
    expect((await all.text()).split('\n').filter(Boolean).sort()).to.deep.equal(
      await objectContents(''),
    );
    expect(await metas('?schema=olm.bundle')).to.deep.equal(
      await objectContents('schema=olm.bundle'),
    );
    expect(await metas('?package=example-operator')).to.deep.equal(
      await objectContents('package=example-operator'),
    );
    expect(await metas('?schema=olm.channel&package=example-operator')).to.deep.equal(
      await objectContents('schema=olm.channel,package=example-operator'),
    );
    expect(await metas('?schema=olm.channel&name=stable')).to.deep.equal(
      await objectContents('schema=olm.channel,name=stable'),
    );
    expect(await metas('?name=example-operator.v1.2.0')).to.have.length(1);
  });

  it('answers conditional, gzip and HEAD requests, and refuses traversal', async () => {
    const first = await fetch(`${suite.served()}/api/v1/all`);
    const body = await first.text();
    const etag = first.headers.get('etag') ?? '';
    expect(etag).to.match(/^"[0-9a-f]{64}(-gzip)?"$/);
    expect(first.headers.get('last-modified')).to.be.a('string');
    expect(
      (await fetch(`${suite.served()}/api/v1/all`, { headers: { 'if-none-match': etag } })).status,
    ).to.equal(304);

    // fetch() decodes gzip itself; node:http's raw bytes show the encoding. The whole catalog's
    // gzip is written just after the revision is first served: identity until then.
    const gz = await pollUntil(
      async () => {
        const r = await rawGet(`${suite.served()}/api/v1/all`, { 'accept-encoding': 'gzip' });
        if (r.headers['content-encoding'] === 'gzip') return r;
        expect(r.body.toString('utf8')).to.equal(body);
        return undefined;
      },
      { timeoutMs: 30_000, what: 'the gzip of /api/v1/all' },
    );
    expect(gunzipSync(gz.body).toString('utf8')).to.equal(body);

    const head = await rawGet(`${suite.served()}/api/v1/all`, {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.body.length).to.equal(0);
    expect(head.headers['content-length']).to.equal(String(Buffer.byteLength(body)));

    const root = suite.served().slice(0, suite.served().indexOf('/catalogs/'));
    for (const p of [
      `/catalogs/..%2f${name}/api/v1/all`,
      `/catalogs/%2e%2e/api/v1/all`,
      `/catalogs/${name}%2fapi/v1/all`,
      `/catalogs/../catalogs/${name}/api/v1/all`,
    ]) {
      const r = await rawGet(`${root}${p}`, {});
      expect([400, 404], p).to.include(r.status);
    }
    expect((await fetch(`${suite.served()}/api/v1/metas?color=blue`)).status).to.equal(400);
  });

  it('serves exactly one revision to every request while a new one is synced', async () => {
    const cat = uniqueName('swap');
    const v1 = await mkdtemp(path.join(os.tmpdir(), 'swap-v1-'));
    const v2 = await mkdtemp(path.join(os.tmpdir(), 'swap-v2-'));
    try {
      await generateCatalog(v1, { seed: 11, sizeMB: 2 });
      await generateCatalog(v2, { seed: 12, sizeMB: 2 });
      const h1 = await catalogContentHash(v1, cat);
      const h2 = await catalogContentHash(v2, cat);
      await applyCatalog(cat, await push(v1, `swap:${uniqueName('v1')}`));
      const c1 = await waitSynced(cat);
      expect(c1.status?.contentHash).to.equal(h1);
      // The unversioned URL: the revision the replica serves now (urls.base names c1's).
      const url = `${suite.controller().serverUrl}/catalogs/${cat}/api/v1/all`;
      await applyCatalog(cat, await push(v2, `swap:${uniqueName('v2')}`));
      const seen = new Set<string>();
      await pollUntil(
        async () => {
          const bodies = await Promise.all([1, 2, 3].map(async () => (await fetch(url)).text()));
          for (const b of bodies) {
            const h = bodyContentHash(b);
            expect([h1, h2], 'a response of one revision').to.include(h);
            seen.add(h);
          }
          return seen.has(h2);
        },
        { timeoutMs: 180_000, intervalMs: 0, what: 'the new revision to be served' },
      );
      expect(seen.has(h2)).to.equal(true);
    } finally {
      await kubectl(['delete', 'clustercatalog', cat, '--wait=false']);
      await rm(v1, { recursive: true, force: true });
      await rm(v2, { recursive: true, force: true });
    }
  });
});

async function rawGet(
  url: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}> {
  const { request } = await import('node:http');
  // The path is sent as written: a URL object would resolve `..` before the server sees it.
  const { protocol, host } = new URL(url);
  const rawPath = url.slice(`${protocol}//${host}`.length);
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: rawPath, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
