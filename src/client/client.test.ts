// CatalogClient over a fake KubeClient: the consistent-list protocol's decisions (retry while
// syncing or when the revision changed between the status reads, give up at the deadline,
// not found / not Serving errors, skipping syncing catalogs) and the exact spec re-check.
import { expect } from 'chai';
import type { CatalogMetadata, ClusterCatalog } from '../api/v1/index.js';
import type { KubeClient, RequestOptions } from '../kube/index.js';
import { KubeApiError } from '../kube/index.js';
import {
  CatalogClient,
  CatalogNotFoundError,
  CatalogNotServingError,
  InconsistentListError,
} from './client.js';

const H1 = `sha256:${'1'.repeat(64)}`;
const H2 = `sha256:${'2'.repeat(64)}`;

function catalog(name: string, hash?: string, syncingTo?: string): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref: 'r/x:1' } } },
    status: {
      ...(hash && { contentHash: hash }),
      ...(syncingTo && { syncingTo }),
      conditions: [
        {
          type: 'Serving',
          status: hash ? 'True' : 'False',
          reason: hash ? 'Available' : 'Unavailable',
          message: '',
          lastTransitionTime: '2024-01-01T00:00:00Z',
        },
      ],
    },
  };
}

function object(
  cat: string,
  schema: string,
  pkg: string | undefined,
  name: string,
): CatalogMetadata {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'CatalogMetadata',
    metadata: { name: `${cat}-${name}` },
    spec: {
      catalog: { name: cat },
      schema,
      ...(pkg !== undefined && { package: pkg }),
      name,
      content: { schema, name },
    },
  };
}

/** Answers GETs of one catalog from a script of statuses, and lists from a fixed set. */
function fake(
  statuses: Array<ClusterCatalog | ClusterCatalog[] | undefined>,
  items: CatalogMetadata[],
) {
  const log: string[] = [];
  let i = 0;
  const kube = {
    request(path: string, opts: RequestOptions): Promise<unknown> {
      // Discovery (object-view.test.ts tests it): the CRD mode, not logged.
      if (opts.resource === 'discovery')
        return path === '/apis/olm.operatorframework.io/v1'
          ? Promise.resolve({ resources: [{ name: 'catalogmetadata' }] })
          : Promise.reject(new KubeApiError(404, 'NotFound', '', 'get', 'discovery'));
      const selector = opts.query?.labelSelector;
      const fields = opts.query?.fieldSelector;
      log.push(
        `${opts.verb} ${opts.resource}${selector ? ` ${String(selector)}` : ''}${fields ? ` fields:${String(fields)}` : ''}`,
      );
      if (opts.resource === 'clustercatalogs') {
        const s = statuses[Math.min(i++, statuses.length - 1)];
        if (opts.verb === 'list') return Promise.resolve({ items: s, metadata: {} });
        if (!s) return Promise.reject(new KubeApiError(404, 'NotFound', 'nope', 'get', 'x'));
        return Promise.resolve(s);
      }
      return Promise.resolve({ items, metadata: { resourceVersion: '7' } });
    },
    close() {},
  };
  return { client: new CatalogClient({ kube: kube as unknown as KubeClient }), log };
}

describe('client/CatalogClient: consistent lists', () => {
  const items = [
    object('c', 'olm.channel', 'p', 'stable'),
    object('c', 'olm.channel', 'q', 'stable'), // label collision stand-in: wrong package
    object('c', 'olm.package', undefined, 'p'),
  ];

  it('one round when the status is the same before and after', async () => {
    const { client, log } = fake([catalog('c', H1)], items);
    const r = await client.consistentList({ catalog: 'c', packageOrName: 'p' });
    expect(r.contentHash).to.equal(H1);
    expect(r.retries).to.equal(0);
    expect(r.items.map((o) => o.metadata.name)).to.deep.equal(['c-stable', 'c-p']);
    expect(log).to.deep.equal([
      'get clustercatalogs',
      'list catalogmetadata catalog=c,packageOrName=p',
      'get clustercatalogs',
    ]);
  });

  it('retries while syncing and when the revision changed during the list', async () => {
    const { client } = fake(
      [catalog('c', H1, H2), catalog('c', H1), catalog('c', H2), catalog('c', H2)],
      items,
    );
    const r = await client.consistentList({ catalog: 'c' }, { backoffMs: 1 });
    expect(r.contentHash).to.equal(H2);
    expect(r.retries).to.equal(2);
  });

  it('gives up at the deadline', async () => {
    const { client } = fake([catalog('c', H1, H2)], items);
    try {
      await client.consistentList({ catalog: 'c' }, { backoffMs: 5, timeoutMs: 50 });
      expect.fail('no error');
    } catch (err) {
      expect(err).to.be.instanceOf(InconsistentListError);
      expect((err as Error).message).to.match(/catalog c is syncing; try again later$/);
    }
  });

  it('names a missing or not Serving catalog', async () => {
    const missing = fake([undefined], items).client;
    await missing.consistentList({ catalog: 'c' }).then(
      () => expect.fail('no error'),
      (err: unknown) => expect(err).to.be.instanceOf(CatalogNotFoundError),
    );
    const notServing = fake([catalog('c')], items).client;
    await notServing.consistentList({ catalog: 'c' }).then(
      () => expect.fail('no error'),
      (err: unknown) => {
        expect(err).to.be.instanceOf(CatalogNotServingError);
        expect((err as Error).message).to.include('Serving=False/Unavailable');
        expect((err as Error).message).to.include(
          'kubectl wait --for=condition=Serving clustercatalog/c',
        );
      },
    );
    // Served over HTTP with no revision of objects (its first one was refused): said so.
    const refused = catalog('c');
    refused.status!.conditions![0] = { ...refused.status!.conditions![0]!, status: 'True' };
    await fake([refused], items)
      .client.consistentList({ catalog: 'c' })
      .then(
        () => expect.fail('no error'),
        (err: unknown) => {
          expect(err).to.be.instanceOf(CatalogNotServingError);
          expect((err as Error).message).to.equal(
            'ClusterCatalog "c" is served over HTTP (status.urls.base) but has no revision of CatalogMetadata objects (no status.contentHash: see its Progressing condition)',
          );
        },
      );
  });

  it('waits for the first revision of objects of a catalog Serving over HTTP', async () => {
    const first = catalog('c', undefined, H2);
    first.status!.conditions![0] = { ...first.status!.conditions![0]!, status: 'True' };
    const { client } = fake([first, catalog('c', H2)], items);
    const list = await client.consistentList({ catalog: 'c' }, { backoffMs: 1 });
    expect([list.contentHash, list.retries]).to.deep.equal([H2, 1]);
  });

  it('across catalogs: skips syncing catalogs when asked, and keeps only kept objects', async () => {
    const both = [
      object('c', 'olm.package', undefined, 'p'),
      object('d', 'olm.package', undefined, 'p'),
    ];
    const { client, log } = fake([[catalog('c', H1), catalog('d', H1, H2)]], both);
    const r = await client.consistentList(
      { schema: 'olm.package' },
      { skipSyncing: true, keep: (o) => o.spec.name === 'p' },
    );
    expect(r.skipped).to.deep.equal(['d']);
    expect(r.revisions).to.deep.equal({ c: H1 });
    expect(r.items.map((o) => o.spec.catalog.name)).to.deep.equal(['c']);
    expect(log).to.deep.equal([
      'list clustercatalogs',
      'list catalogmetadata schema=olm.package',
      'list clustercatalogs',
    ]);
  });

  it('selects a value whose label would be encoded by a field selector on its spec field', async () => {
    const long = `${'a'.repeat(60)}-operator-x`; // 71 characters: its label is hash-encoded
    const { client, log } = fake([catalog('c', H1)], [object('c', 'olm.channel', long, 'stable')]);
    const r = await client.consistentList({ catalog: 'c', schema: 'olm.channel', package: long });
    expect(r.items).to.have.length(1);
    expect(log[1]).to.equal(
      `list catalogmetadata catalog=c,schema=olm.channel fields:spec.package=${long}`,
    );
    const labels: string[] = [];
    for await (const o of client.listMetadataLabels({ package: long }))
      labels.push(o.metadata.name);
    expect(log[3]).to.equal(`list catalogmetadata fields:spec.package=${long}`);
  });
});
