import { expect } from 'chai';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CatalogClient } from './client.js';
import type { CatalogMetadata } from '../api/v1/index.js';
import { revisionBaseUrl } from '../api/v1/index.js';
import {
  ContentHashMismatchError,
  ContentOmittedError,
  ContentUrlRefusedError,
  contentOf,
  fetchUrl,
  isCatalogContentUrl,
  leftOut,
  resolverBlob,
} from './content.js';
import type { AnyBlob } from '../answers/fbc-types.js';
import { bundleCsvMetadata, bundleGvks, isBundleBlob } from '../answers/fbc-types.js';
import { catalogKube, contentServer, metadataObject } from '../../test/support/lean-objects.js';

const CATALOG = 'demo';

/** A local port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const bundle = (i: number): AnyBlob => ({
  schema: 'olm.bundle',
  package: 'demo',
  name: `demo.v1.0.${i}`,
  image: `quay.io/demo/bundle:v1.0.${i}`,
  properties: [
    { type: 'olm.package', value: { packageName: 'demo', version: `1.0.${i}` } },
    { type: 'olm.gvk', value: { group: 'demo.example.com', version: 'v1', kind: 'Demo' } },
    { type: 'olm.csv.metadata', value: { displayName: 'Demo', description: 'x'.repeat(500) } },
    { type: 'olm.bundle.object', value: { data: Buffer.from('{}').toString('base64') } },
  ],
  relatedImages: [{ name: 'op', image: 'quay.io/demo/op:v1' }],
});
const pkg: AnyBlob = {
  schema: 'olm.package',
  name: 'demo',
  defaultChannel: 'stable',
  description: 'Demo.',
  icon: { base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' },
};

function client(blobs: AnyBlob[], opts: { serverUrl?: string } = {}) {
  const server = contentServer(CATALOG, blobs);
  const c = new CatalogClient({
    kube: catalogKube(),
    fetch: server.fetch,
    ...opts,
  });
  return { client: c, server };
}

describe('client: full, partial (lean) and absent content', () => {
  it('says what an object holds of its blob', () => {
    expect(contentOf(metadataObject(CATALOG, pkg)).state).to.equal('full');
    const lean = contentOf(metadataObject(CATALOG, pkg, 'lean'));
    expect(lean.state).to.equal('partial');
    expect(leftOut(lean, 'icon')).to.equal(true);
    expect(contentOf(metadataObject(CATALOG, pkg, 'absent')).state).to.equal('absent');
  });

  it('a lean bundle keeps what resolvers read and says what is left out', () => {
    const c = contentOf(metadataObject(CATALOG, bundle(1), 'lean'));
    if (c.state !== 'partial') throw new Error(`state ${c.state}`);
    const b = resolverBlob(c);
    if (!isBundleBlob(b)) throw new Error('not a bundle');
    expect(bundleGvks(b)).to.have.length(1);
    expect(bundleCsvMetadata(b)).to.equal(undefined);
    expect(c.parts.map((p) => p.path)).to.deep.equal([
      'properties[type=olm.csv.metadata]',
      'properties[type=olm.bundle.object]',
    ]);
  });

  it('blobOf returns the whole blob: as stored when full, fetched and verified otherwise', async () => {
    const { client: c, server } = client([pkg, bundle(1)]);
    expect(await c.blobOf(metadataObject(CATALOG, pkg))).to.deep.equal(pkg);
    expect(server.requests).to.have.length(0);
    expect(await c.blobOf(metadataObject(CATALOG, pkg, 'lean'))).to.deep.equal(pkg);
    expect(await c.blobOf(metadataObject(CATALOG, bundle(1), 'lean'))).to.deep.equal(bundle(1));
    expect(await c.blobOf(metadataObject(CATALOG, bundle(1), 'absent'))).to.deep.equal(bundle(1));
    expect(server.requests).to.have.length(3);
  });

  it('refuses a fetched blob whose hash is not the content-hash annotation', async () => {
    const server = contentServer(CATALOG, [bundle(1)], (_u, line) =>
      line.replace('v1.0.1"', 'v1.0.1-other"'),
    );
    const c = new CatalogClient({
      kube: catalogKube(),
      fetch: server.fetch,
    });
    const err = await c.blobOf(metadataObject(CATALOG, bundle(1), 'lean')).catch((e: Error) => e);
    expect(err).to.be.instanceOf(ContentHashMismatchError);
    expect((err as Error).message).to.contain('olm.operatorframework.io/content-hash is sha256:');
    expect((err as Error).message).to.contain('try again');
  });

  it('names the URL and says what to do when the content server cannot be reached', async () => {
    const port = await closedPort();
    const c = new CatalogClient({
      kube: catalogKube(),
      serverUrl: `http://127.0.0.1:${port}`,
    });
    const err = await c.blobOf(metadataObject(CATALOG, pkg, 'lean')).catch((e: Error) => e);
    expect(err).to.be.instanceOf(ContentOmittedError);
    const msg = (err as Error).message;
    expect(msg).to.contain(
      `from http://127.0.0.1:${port}/catalogs/demo/api/v1/metas?schema=olm.package&name=demo: fetch failed (ECONNREFUSED)`,
    );
    expect(msg).to.contain('port-forward');
    expect(msg).to.contain('--server-url');
    expect(msg).to.not.match(/\n\s+at /);
  });

  it('rewrites the origin of contentOmitted.url to serverUrl, keeping path and query', () => {
    const url = 'http://catalogd.test/catalogs/demo/api/v1/metas?schema=olm.package&name=a%20b';
    expect(fetchUrl(url)).to.equal(url);
    expect(fetchUrl(url, 'http://localhost:8090/')).to.equal(
      'http://localhost:8090/catalogs/demo/api/v1/metas?schema=olm.package&name=a%20b',
    );
  });

  it('refuses a response much larger than the blob', async () => {
    const server = contentServer(CATALOG, [pkg], (_u, line) => `${line}\n${' '.repeat(200_000)}`);
    const c = new CatalogClient({
      kube: catalogKube(),
      fetch: server.fetch,
    });
    const err = await c.blobOf(metadataObject(CATALOG, pkg, 'lean')).catch((e: Error) => e);
    expect((err as Error).message).to.contain('more than the blob');
  });

  it('blobsOf fetches a few at a time; resolverContents fetches only content omitted whole', async () => {
    const blobs = Array.from({ length: 20 }, (_, i) => bundle(i));
    const { client: c, server } = client(blobs);
    const lean = blobs.map((b) => metadataObject(CATALOG, b, 'lean'));
    expect(await c.blobsOf(lean)).to.deep.equal(blobs);
    expect(server.requests).to.have.length(20);
    expect(server.maxInFlight).to.equal(4);

    server.requests.length = 0;
    const mixed = [
      metadataObject(CATALOG, blobs[0]!, 'lean'),
      metadataObject(CATALOG, blobs[1]!, 'absent'),
      metadataObject(CATALOG, blobs[2]!),
    ];
    const contents = await c.resolverContents(mixed);
    expect(contents.map((x) => x.state)).to.deep.equal(['partial', 'full', 'full']);
    expect(server.requests).to.have.length(1);
    expect(server.requests[0]).to.contain('name=demo.v1.0.1');
  });
});

/** A local HTTP listener that records every request it gets (it must get none). */
async function listener(): Promise<{
  url: string;
  requests: string[];
  close: () => Promise<void>;
}> {
  const requests: string[] = [];
  const server = createHttpServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`.trim());
    res.end('{}\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A hand-written object of catalog demo whose contentOmitted.url is `url`. */
function pointingTo(url: string, content?: AnyBlob): CatalogMetadata {
  const o = metadataObject(CATALOG, bundle(1), content ? 'lean' : 'absent');
  return { ...o, spec: { ...o.spec, contentOmitted: { ...o.spec.contentOmitted!, url } } };
}

describe("client: contentOmitted.url is followed only under the catalog's own status.urls.base", () => {
  const BASE = 'http://catalogd.test/catalogs/demo';

  it('isCatalogContentUrl: the metas endpoint under the base, exactly', () => {
    const ok = `${BASE}/api/v1/metas?schema=olm.bundle&package=demo&name=demo.v1.0.1`;
    expect(isCatalogContentUrl(ok, BASE)).to.equal(true);
    expect(isCatalogContentUrl(ok, `${BASE}/`)).to.equal(true);
    for (const bad of [
      'http://evil.test/catalogs/demo/api/v1/metas?schema=olm.bundle',
      'https://catalogd.test/catalogs/demo/api/v1/metas?schema=olm.bundle',
      'http://catalogd.test:8080/catalogs/demo/api/v1/metas',
      'http://catalogd.test/catalogs/other/api/v1/metas',
      'http://catalogd.test/catalogs/demo/../other/api/v1/metas',
      'http://catalogd.test/catalogs/demo/api/v1/%2e%2e/%2e%2e/%2e%2e/other/api/v1/metas',
      'http://catalogd.test/catalogs/demo/api/v1/metas/../../../../api/v1/secrets',
      'http://catalogd.test/catalogs/demo/api/v1/all',
      'http://user:pw@catalogd.test/catalogs/demo/api/v1/metas',
      'http://catalogd.test/catalogs/demo/api/v1/metas#x',
      'file:///catalogs/demo/api/v1/metas',
      'not a url',
    ])
      expect(isCatalogContentUrl(bad, BASE), bad).to.equal(false);
    expect(isCatalogContentUrl(ok, undefined)).to.equal(false);
  });

  it("isCatalogContentUrl: status.urls.base names a revision; objects name the catalog's URL", () => {
    const revision = revisionBaseUrl(BASE, `sha256:${'c'.repeat(64)}`);
    expect(revision).to.equal(`${BASE}/revisions/${'c'.repeat(16)}`);
    for (const path of [
      '/api/v1/metas?schema=olm.package',
      `/revisions/${'c'.repeat(16)}/api/v1/metas`,
    ])
      expect(isCatalogContentUrl(`${BASE}${path}`, revision), path).to.equal(true);
    expect(
      isCatalogContentUrl(`${BASE}/revisions/${'d'.repeat(16)}/api/v1/metas`, revision),
    ).to.equal(false);
    expect(
      isCatalogContentUrl(
        'http://catalogd.test/catalogs/api/v1/metas',
        'http://catalogd.test/catalogs/revisions/x',
      ),
    ).to.equal(false);
  });

  it('a URL to another host is not requested: the content is unavailable, said so', async () => {
    const other = await listener();
    try {
      // The global fetch, as kubectl catalog uses it: only the base check stands in the way.
      const c = new CatalogClient({ kube: catalogKube() });
      const url = `${other.url}/catalogs/demo/api/v1/metas?schema=olm.bundle&name=demo.v1.0.1`;
      for (const obj of [pointingTo(url), pointingTo(url, bundle(1))]) {
        const err = await c.blobOf(obj).catch((e: Error) => e);
        expect(err).to.be.instanceOf(ContentUrlRefusedError);
        expect(err).to.be.instanceOf(ContentOmittedError);
        expect((err as Error).message).to.equal(
          `the whole blob of olm.bundle "demo.v1.0.1" of catalog demo is unavailable: its contentOmitted.url ${JSON.stringify(url)} is not a content URL of ClusterCatalog "demo" (status.urls.base: "${BASE}/revisions/aaaaaaaaaaaaaaaa"), the only place its content is read from; nothing was requested`,
        );
      }
      // resolverContents (lists of packages, providers) refuses it too.
      const err = await c.resolverContents([pointingTo(url)]).catch((e: Error) => e);
      expect(err).to.be.instanceOf(ContentUrlRefusedError);
      expect(other.requests).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it("a URL under the apiserver's but not the base is not requested: no credentials leave", async () => {
    const apiserver = await listener();
    try {
      const proxied: string[] = [];
      const kube = Object.assign(catalogKube(), {
        server: new URL(apiserver.url),
        getResponse: (path: string) => {
          proxied.push(path);
          return Promise.resolve(new Response('{}\n'));
        },
      });
      const c = new CatalogClient({ kube });
      for (const url of [
        `${apiserver.url}/api/v1/namespaces/kube-system/secrets`,
        `${apiserver.url}/api/v1/namespaces/catalogd-system/services/https:catalogd-ts:443/proxy/catalogs/demo/api/v1/metas?schema=olm.bundle`,
      ]) {
        const err = await c.blobOf(pointingTo(url)).catch((e: Error) => e);
        expect(err, url).to.be.instanceOf(ContentUrlRefusedError);
      }
      expect(proxied).to.deep.equal([]);
      expect(apiserver.requests).to.deep.equal([]);
    } finally {
      await apiserver.close();
    }
  });

  it("a base under the apiserver's (its service proxy) is read there, with the kubeconfig's credentials", async () => {
    const proxy = '/api/v1/namespaces/catalogd-system/services/https:catalogd-ts:443/proxy';
    const server = contentServer(CATALOG, [bundle(1)]);
    const proxied: string[] = [];
    const kube = Object.assign(
      catalogKube((c) => `https://api.test${proxy}/catalogs/${c}`),
      {
        server: new URL('https://api.test'),
        getResponse: (path: string) => {
          proxied.push(path);
          // The content server's answer for the same blob.
          return server.fetch(`http://catalogd.test${path.slice(proxy.length)}`);
        },
      },
    );
    const c = new CatalogClient({ kube });
    const obj = metadataObject(CATALOG, bundle(1), 'absent');
    const url = obj.spec.contentOmitted!.url.replace(
      'http://catalogd.test',
      `https://api.test${proxy}`,
    );
    expect(await c.blobOf(pointingTo(url))).to.deep.equal(bundle(1));
    expect(proxied).to.deep.equal([url.slice('https://api.test'.length)]);
  });

  it('reads the catalog again when an object names another base (the base changed), once', async () => {
    let base = 'http://old.test/catalogs/demo';
    const kube = catalogKube(() => base);
    const server = contentServer(CATALOG, [bundle(1)]);
    const c = new CatalogClient({ kube, fetch: server.fetch });
    const obj = metadataObject(CATALOG, bundle(1), 'absent');
    const err = await c.blobOf(obj).catch((e: Error) => e);
    expect(err).to.be.instanceOf(ContentUrlRefusedError);
    expect(kube.gets).to.deep.equal(['demo', 'demo']);
    base = BASE;
    expect(await c.blobOf(obj)).to.deep.equal(bundle(1));
    expect(await c.blobOf(obj)).to.deep.equal(bundle(1));
    expect(kube.gets).to.deep.equal(['demo', 'demo', 'demo']);
    expect(server.requests).to.have.length(2);
  });

  it('a catalog without status.urls.base serves no content to read', async () => {
    const server = contentServer(CATALOG, [bundle(1)]);
    const c = new CatalogClient({ kube: catalogKube(() => undefined), fetch: server.fetch });
    const err = await c.blobOf(metadataObject(CATALOG, bundle(1), 'absent')).catch((e: Error) => e);
    expect(err).to.be.instanceOf(ContentUrlRefusedError);
    expect((err as Error).message).to.contain('(status.urls.base: none)');
    expect(server.requests).to.deep.equal([]);
  });
});
