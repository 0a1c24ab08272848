// The object view a CatalogClient reads (object-view.ts): the decision from the two discovery
// documents, the requests it makes (once per client), the objectView option, and the served
// mode's consistent list, which waits while status.urls.base names another revision than
// contentHash. Over a fake KubeClient, as client.test.ts.
import { expect } from 'chai';
import type { ClusterCatalog } from '../api/v1/index.js';
import type { ObjectView } from '../api/v1/group.js';
import type { KubeClient, RequestOptions } from '../kube/index.js';
import { KubeApiError } from '../kube/index.js';
import { CatalogClient } from './client.js';
import type { DiscoveryProbe } from './object-view.js';
import { ObjectViewUnknownError, decideObjectView, servedObjectsLag } from './object-view.js';

const CRD_DOC = '/apis/olm.operatorframework.io/v1';
const SERVED_DOC = '/apis/content.olm.operatorframework.io/v1';
const H1 = `sha256:1111111111111111${'a'.repeat(48)}`;
const H2 = `sha256:2222222222222222${'b'.repeat(48)}`;
const base = (hash: string) =>
  `http://catalogd.test/catalogs/c/revisions/${hash.slice('sha256:'.length, 'sha256:'.length + 16)}`;

const listed: DiscoveryProbe = { state: 'listed' };
const absent: DiscoveryProbe = { state: 'absent', why: 'x is not served (404)' };
const failed: DiscoveryProbe = { state: 'failed', why: `${CRD_DOC}: get discovery: timeout` };

type Answer = unknown;
const notFound = () =>
  new KubeApiError(404, 'NotFound', 'the server could not find it', 'get', 'discovery');
const resources = (...names: string[]) => ({ resources: names.map((name) => ({ name })) });

function catalog(hash: string, servedHash = hash): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'c' },
    spec: { source: { type: 'Image', image: { ref: 'r/x:1' } } },
    status: {
      contentHash: hash,
      urls: { base: base(servedHash) },
      conditions: [
        {
          type: 'Serving',
          status: 'True',
          reason: 'Available',
          message: '',
          lastTransitionTime: '2024-01-01T00:00:00Z',
        },
      ],
    },
  };
}

/**
 * A KubeClient answering each path from `answers` (by path), ClusterCatalog GETs from `statuses`,
 * and a CatalogClient over it (with `objectView`, when given).
 */
function fake(
  answers: Record<string, Answer>,
  statuses: ClusterCatalog[] = [],
  objectView?: ObjectView,
) {
  const log: string[] = [];
  let i = 0;
  const kube = {
    request(path: string, opts: RequestOptions): Promise<unknown> {
      log.push(`${opts.verb} ${path}`);
      if (opts.resource === 'clustercatalogs')
        return Promise.resolve(statuses[Math.min(i++, statuses.length - 1)]);
      const a = answers[path];
      if (a === undefined || a instanceof Error) return Promise.reject(a ?? notFound());
      return Promise.resolve(a);
    },
    close() {},
  };
  const client = new CatalogClient({
    kube: kube as unknown as KubeClient,
    ...(objectView && { objectView }),
  });
  return { client, log };
}

describe('client/object-view: which view a cluster runs', () => {
  it('decides from the two discovery documents', () => {
    expect(decideObjectView(listed, absent)).to.include({ view: 'crd', both: false });
    expect(decideObjectView(listed, failed)).to.include({ view: 'crd', both: false });
    expect(decideObjectView(absent, listed)).to.include({
      view: 'served',
      group: 'content.olm.operatorframework.io',
      both: false,
    });
  });

  it('prefers the CRD when both serve catalogmetadata, and says why', () => {
    const both = decideObjectView(listed, listed);
    expect(both).to.include({ view: 'crd', group: 'olm.operatorframework.io', both: true });
    expect(both.reason).to.include('the served mode does not install that CRD');
    expect(both.reason).to.include('kubectl catalog --object-view served');
  });

  it('names both groups when neither serves catalogmetadata', () => {
    expect(() => decideObjectView(absent, absent)).to.throw(
      ObjectViewUnknownError,
      /^this cluster serves no CatalogMetadata: neither olm\.operatorframework\.io\/v1 \(the CRD mode's CatalogMetadata CRD\) nor content\.olm\.operatorframework\.io\/v1 \(the served mode's APIService\) lists catalogmetadata/,
    );
  });

  it('does not guess when the CRD group cannot be read', () => {
    // The CRD's objects may be there: reading the served view instead could show another state.
    expect(() => decideObjectView(failed, listed)).to.throw(
      ObjectViewUnknownError,
      /^cannot tell where the cluster's CatalogMetadata are: \/apis\/olm\.operatorframework\.io\/v1: get discovery: timeout; try again/,
    );
  });

  it('reads both documents once per client, then lists from the group found', async () => {
    const { client, log } = fake({
      [CRD_DOC]: resources('clustercatalogs', 'clustercatalogs/status'),
      [SERVED_DOC]: resources('catalogmetadata'),
      [`${SERVED_DOC}/catalogmetadata`]: { items: [], metadata: {} },
    });
    expect(client.foundObjectView).to.equal(undefined);
    for (let n = 0; n < 2; n++) for await (const o of client.listMetadata({ catalog: 'c' })) void o;
    expect(log).to.deep.equal([
      `get ${CRD_DOC}`,
      `get ${SERVED_DOC}`,
      `list ${SERVED_DOC}/catalogmetadata`,
      `list ${SERVED_DOC}/catalogmetadata`,
    ]);
    expect(client.foundObjectView).to.include({ view: 'served', both: false });
  });

  it('a CRD-mode cluster is read in olm.operatorframework.io', async () => {
    const { client, log } = fake({
      [CRD_DOC]: resources('clustercatalogs', 'catalogmetadata'),
      [`${CRD_DOC}/catalogmetadata`]: { items: [], metadata: {} },
    });
    expect((await client.objectView()).view).to.equal('crd');
    for await (const o of client.listMetadataLabels({ catalog: 'c' })) void o;
    expect(log.at(-1)).to.equal(`list ${CRD_DOC}/catalogmetadata`);
  });

  it('asks again after a failed discovery (the failure is not kept)', async () => {
    const answers: Record<string, Answer> = {
      [CRD_DOC]: new KubeApiError(403, 'Forbidden', 'no', 'get', 'discovery'),
    };
    const { client } = fake(answers);
    await client.objectView().then(
      () => expect.fail('no error'),
      // By name: the module is loaded dynamically by the client (a program may see another copy).
      (err: unknown) => expect(err).to.have.property('name', 'ObjectViewUnknownError'),
    );
    answers[CRD_DOC] = resources('catalogmetadata');
    expect((await client.objectView()).view).to.equal('crd');
  });

  it('the objectView option reads that view with no discovery', async () => {
    const { client, log } = fake(
      { [`${SERVED_DOC}/catalogmetadata`]: { items: [], metadata: {} } },
      [],
      'served',
    );
    for await (const o of client.listMetadata({ catalog: 'c' })) void o;
    expect(log).to.deep.equal([`list ${SERVED_DOC}/catalogmetadata`]);
    expect((await client.objectView()).reason).to.match(/^the served view was asked for/);
  });
});

describe('client/object-view: the served mode consistent list', () => {
  it('a status whose urls.base names another revision than contentHash lags', () => {
    expect(servedObjectsLag(catalog(H1).status)).to.equal(false);
    expect(servedObjectsLag(catalog(H1, H2).status)).to.equal(true);
    expect(servedObjectsLag(undefined)).to.equal(false);
    expect(servedObjectsLag({ contentHash: H1 })).to.equal(false); // no revision URL: contentHash
  });

  it('waits while the served revision is ahead of contentHash, then lists it', async () => {
    const { client, log } = fake(
      {
        [SERVED_DOC]: resources('catalogmetadata'),
        [`${SERVED_DOC}/catalogmetadata`]: { items: [], metadata: {} },
      },
      [catalog(H1, H2), catalog(H2), catalog(H2)],
    );
    const list = await client.consistentList({ catalog: 'c' }, { backoffMs: 1 });
    expect([list.contentHash, list.retries]).to.deep.equal([H2, 1]);
    expect(log.filter((l) => l.startsWith('list'))).to.have.length(1);
  });

  it('in the CRD mode the same status does not wait (urls.base leads while objects are written)', async () => {
    const { client } = fake(
      {
        [CRD_DOC]: resources('catalogmetadata'),
        [`${CRD_DOC}/catalogmetadata`]: { items: [], metadata: {} },
      },
      [catalog(H1, H2)],
    );
    const list = await client.consistentList({ catalog: 'c' }, { backoffMs: 1 });
    expect([list.contentHash, list.retries]).to.deep.equal([H1, 0]);
  });
});
