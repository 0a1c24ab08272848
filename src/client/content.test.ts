import { expect } from 'chai';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { KubeClient } from '../kube/index.js';
import { CatalogClient } from './client.js';
import {
  ContentHashMismatchError,
  ContentOmittedError,
  contentOf,
  fetchUrl,
  leftOut,
  resolverBlob,
} from './content.js';
import type { AnyBlob } from './fbc-types.js';
import { bundleCsvMetadata, bundleGvks, isBundleBlob } from './fbc-types.js';
import { contentServer, metadataObject } from '../../test/support/lean-objects.js';

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
    kube: { close() {} } as unknown as KubeClient,
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
      kube: { close() {} } as unknown as KubeClient,
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
      kube: { close() {} } as unknown as KubeClient,
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
      kube: { close() {} } as unknown as KubeClient,
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
