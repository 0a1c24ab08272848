// catalogpackages over a real content store holding two revisions of a catalog, through real
// HTTP requests: list (objects, selectors, pages, Table, -o wide), get, watch across a change
// of revision, dry-run PATCH and 405, and that a package's object reads only that package's
// blobs.
import { expect } from 'chai';
import { getText, send } from '../../server/test-catalogs.test.js';
import {
  parseBlobs,
  servedFixture,
  viewCatalog,
  CATALOG_UID,
  WatchStream,
} from '../test-served.test.js';
import type { ParsedRevision, ServedFixture } from '../test-served.test.js';
import { packageObjectName } from './package-object.js';
import type { CatalogPackage } from './package-object.js';

const BASE = '/apis/content.olm.operatorframework.io/v1/catalogpackages';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const ICON = 'aWNvbi1ieXRlcw==';

const csv = (displayName: string, short: string) => ({
  type: 'olm.csv.metadata',
  value: {
    displayName,
    provider: { name: 'Acme', url: 'https://acme.example' },
    annotations: { description: short },
    description: 'a long description',
  },
});
const bundle = (pkg: string, version: string, props: object[] = []) => ({
  schema: 'olm.bundle',
  package: pkg,
  name: `${pkg}.v${version}`,
  image: `example.com/${pkg}:${version}`,
  properties: [{ type: 'olm.package', value: { packageName: pkg, version } }, ...props],
});

/** etcd (stable: 1.0.0 → 2.0.0, alpha deprecated), zk (one bundle, no CSV metadata). */
function blobs(newer: boolean): object[] {
  const stable = [{ name: 'etcd.v1.0.0' }, { name: 'etcd.v2.0.0', replaces: 'etcd.v1.0.0' }];
  if (newer) stable.push({ name: 'etcd.v2.1.0', replaces: 'etcd.v2.0.0' });
  return [
    {
      schema: 'olm.package',
      name: 'etcd',
      defaultChannel: 'stable',
      description: 'etcd readme',
      icon: { base64data: ICON, mediatype: 'image/png' },
    },
    { schema: 'olm.package', name: 'zk', defaultChannel: 'beta' },
    { schema: 'olm.channel', package: 'etcd', name: 'stable', entries: stable },
    { schema: 'olm.channel', package: 'etcd', name: 'alpha', entries: [{ name: 'etcd.v1.0.0' }] },
    { schema: 'olm.channel', package: 'zk', name: 'beta', entries: [{ name: 'zk.v0.1.0' }] },
    bundle('etcd', '1.0.0', [csv('etcd old', 'old')]),
    bundle('etcd', '2.0.0', [csv('etcd', 'A key-value store')]),
    ...(newer ? [bundle('etcd', '2.1.0', [csv('etcd', 'A key-value store')])] : []),
    bundle('zk', '0.1.0'),
    {
      schema: 'olm.deprecations',
      package: 'etcd',
      entries: [{ reference: { schema: 'olm.channel', name: 'alpha' }, message: 'alpha is gone' }],
    },
    {
      schema: 'olm.deprecations',
      package: 'zk',
      entries: [{ reference: { schema: 'olm.package' }, message: 'use etcd' }],
    },
    { schema: 'custom.notes', text: 'notes' },
  ];
}

interface List {
  kind: string;
  apiVersion: string;
  items: CatalogPackage[];
  metadata: { resourceVersion: string; continue?: string };
}

describe('served API catalogpackages (HTTP)', () => {
  let r1: ParsedRevision;
  let r2: ParsedRevision;
  let f: ServedFixture;

  before(async () => {
    r1 = await parseBlobs('ops', blobs(false));
    r2 = await parseBlobs('ops', blobs(true));
  });
  beforeEach(async () => {
    f = await servedFixture('ops', [r1, r2]);
    f.source.set([{ ...viewCatalog('ops', r1.key), priority: 7 }]);
  });
  afterEach(async () => {
    await f.source.leasesReleased();
    await f.close();
  });

  async function json<T>(target: string, headers: Record<string, string> = {}) {
    const r = await getText(f, target, headers);
    return { status: r.status, text: r.body, body: JSON.parse(r.body) as T };
  }
  const names = (l: List) => l.items.map((i) => i.status.packageName);

  it('lists one object per package with the package facts, named as its olm.package object, no icon', async () => {
    const { status, text, body } = await json<List>(BASE);
    expect(status).to.equal(200);
    expect(body.kind).to.equal('CatalogPackageList');
    expect(names(body)).to.deep.equal(['etcd', 'zk']);
    expect(text).not.to.include(ICON);
    const etcd = body.items[0]!;
    expect(etcd.apiVersion).to.equal('content.olm.operatorframework.io/v1');
    expect(etcd.kind).to.equal('CatalogPackage');
    expect(etcd.metadata.name).to.equal(packageObjectName('ops', 'etcd'));
    expect(etcd.metadata.name).to.match(/^ops-package-etcd-[0-9a-f]{16}$/);
    expect(etcd.metadata.labels).to.deep.equal({ catalog: 'ops', package: 'etcd' });
    expect(etcd.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        name: 'ops',
        uid: CATALOG_UID,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(etcd.metadata.resourceVersion).to.equal(body.metadata.resourceVersion);
    expect(etcd.status).to.deep.equal({
      catalog: { name: 'ops', priority: 7 },
      packageName: 'etcd',
      defaultChannel: 'stable',
      displayName: 'etcd',
      shortDescription: 'A key-value store',
      provider: { name: 'Acme', url: 'https://acme.example' },
      channels: [
        {
          name: 'alpha',
          currentCSV: 'etcd.v1.0.0',
          currentCSVDesc: { version: '1.0.0', displayName: 'etcd old' },
          deprecation: { message: 'alpha is gone' },
        },
        {
          name: 'stable',
          currentCSV: 'etcd.v2.0.0',
          currentCSVDesc: { version: '2.0.0', displayName: 'etcd' },
        },
      ],
    });
    expect(body.items[1]!.status).to.deep.equal({
      catalog: { name: 'ops', priority: 7 },
      packageName: 'zk',
      defaultChannel: 'beta',
      channels: [{ name: 'beta', currentCSV: 'zk.v0.1.0', currentCSVDesc: { version: '0.1.0' } }],
      deprecation: { message: 'use etcd' },
    });
  });

  it('selects by the catalog and package labels and the selectable fields', async () => {
    const list = async (q: string) => names((await json<List>(`${BASE}?${q}`)).body);
    expect(await list('labelSelector=package%3Dzk')).to.deep.equal(['zk']);
    expect(await list('labelSelector=package!%3Dzk')).to.deep.equal(['etcd']);
    expect(await list('labelSelector=package+in+(zk,etcd,nope)')).to.deep.equal(['etcd', 'zk']);
    expect(await list('labelSelector=package+notin+(etcd)')).to.deep.equal(['zk']);
    expect(await list('labelSelector=catalog%3Dops,package')).to.deep.equal(['etcd', 'zk']);
    expect(await list('labelSelector=catalog%3Dother')).to.deep.equal([]);
    expect(await list('labelSelector=!package')).to.deep.equal([]);
    expect(await list('fieldSelector=status.packageName%3Detcd')).to.deep.equal(['etcd']);
    expect(await list('fieldSelector=status.catalog.name!%3Dops')).to.deep.equal([]);
    expect(
      await list(`fieldSelector=metadata.name%3D${packageObjectName('ops', 'zk')}`),
    ).to.deep.equal(['zk']);
    const bad = await json<{ code: number; message: string }>(
      `${BASE}?fieldSelector=spec.schema%3Dx`,
    );
    expect(bad.body).to.deep.include({
      code: 400,
      message: 'field label not supported: spec.schema',
    });
  });

  it('answers a Table with the package columns, -o wide ones at priority 1', async () => {
    const { body } = await json<{
      columnDefinitions: Array<{ name: string; priority: number }>;
      rows: Array<{ cells: unknown[] }>;
    }>(`${BASE}?labelSelector=package%3Detcd`, { Accept: TABLE });
    expect(body.columnDefinitions.map((c) => `${c.name}/${c.priority}`)).to.deep.equal([
      'Name/0',
      'Catalog/0',
      'Package/0',
      'Display Name/0',
      'Default Channel/0',
      'Head Version/0',
      'Provider/0',
      'Age/0',
      'Priority/1',
      'Deprecated/1',
      'Channels/1',
    ]);
    expect(body.rows[0]!.cells).to.deep.equal([
      packageObjectName('ops', 'etcd'),
      'ops',
      'etcd',
      'etcd',
      'stable',
      '2.0.0',
      'Acme',
      '2d',
      7,
      false,
      'alpha,stable',
    ]);
  });

  it('is in discovery and in the OpenAPI documents (kubectl explain catalogpackage)', async () => {
    const gv = 'content.olm.operatorframework.io/v1';
    const resources = (
      await json<{ resources: Array<{ name: string; shortNames: string[] }> }>(`/apis/${gv}`)
    ).body.resources;
    expect(resources.find((r) => r.name === 'catalogpackages')?.shortNames).to.deep.equal(['cpkg']);
    const def = 'io.operatorframework.olm.content.v1.CatalogPackage';
    const v2 = (
      await json<{
        definitions: Record<string, Record<string, unknown>>;
        paths: Record<string, unknown>;
      }>('/openapi/v2')
    ).body;
    expect(v2.definitions[def]!['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'content.olm.operatorframework.io', kind: 'CatalogPackage', version: 'v1' },
    ]);
    expect(v2.definitions[`${def}List`]).to.be.an('object');
    expect(Object.keys(v2.paths)).to.include(`/apis/${gv}/catalogpackages/{name}`);
    const v3 = (
      await json<{
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      }>(`/openapi/v3/apis/${gv}`)
    ).body;
    expect(Object.keys(v3.components.schemas[def]!.properties)).to.include('status');
  });

  it('gets one package by name, 404 for another name', async () => {
    const name = packageObjectName('ops', 'zk');
    const { status, body } = await json<CatalogPackage>(`${BASE}/${name}`);
    expect(status).to.equal(200);
    expect(body.status.packageName).to.equal('zk');
    const missing = await json<{ code: number; reason: string }>(`${BASE}/ops-package-nope`);
    expect(missing.body).to.deep.include({ code: 404, reason: 'NotFound' });
  });

  it('pages with limit and continue', async () => {
    const first = (await json<List>(`${BASE}?limit=1`)).body;
    expect(names(first)).to.deep.equal(['etcd']);
    expect(first.metadata.continue).to.be.a('string');
    f.source.set([viewCatalog('ops', r2.key)]);
    const second = (await json<List>(`${BASE}?limit=1&continue=${first.metadata.continue!}`)).body;
    // The page reads the state of the first (r1), not the current one.
    expect(names(second)).to.deep.equal(['zk']);
    expect(second.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
    expect(second.metadata.continue).to.equal(undefined);
  });

  it('watches: a change of any blob of a package is MODIFIED with the new head; others send nothing', async () => {
    const rv1 = (await json<List>(BASE)).body.metadata.resourceVersion;
    f.source.set([{ ...viewCatalog('ops', r2.key), priority: 7 }]);
    const w = new WatchStream<{ type: string; object: CatalogPackage }>(
      f,
      BASE,
      `resourceVersion=${rv1}`,
    );
    try {
      await w.until(1);
      const { events } = w;
      const rv2 = (await json<List>(BASE)).body.metadata.resourceVersion;
      expect(events.map((e) => `${e.type} ${e.object.status.packageName}`)).to.deep.equal([
        'MODIFIED etcd',
      ]);
      const stable = events[0]!.object.status.channels.find((c) => c.name === 'stable');
      expect(stable?.currentCSVDesc?.version).to.equal('2.1.0');
      expect(events[0]!.object.metadata.resourceVersion).to.equal(rv2);
    } finally {
      w.close();
    }
  });

  it('sends watch events as Table rows (kubectl get -w); a small list stays identity when gzip is accepted', async () => {
    const w = new WatchStream<{
      type: string;
      object: {
        kind: string;
        columnDefinitions: Array<{ name: string }>;
        rows: Array<{ cells: unknown[] }>;
      };
    }>(f, BASE, 'labelSelector=package%3Dzk', { Accept: TABLE });
    try {
      const event = (await w.until(1))[0]!;
      expect(event.type).to.equal('ADDED');
      expect(event.object.kind).to.equal('Table');
      expect(event.object.columnDefinitions[5]!.name).to.equal('Head Version');
      expect(event.object.rows[0]!.cells.slice(1, 6)).to.deep.equal([
        'ops',
        'zk',
        null,
        'beta',
        '0.1.0',
      ]);
    } finally {
      w.close();
    }
    // Under 128 KiB a list is not gzipped, as the apiserver's (served-api.test.ts: past it, it is).
    const small = await send(f, BASE, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(small.headers['content-encoding']).to.equal(undefined);
    expect((JSON.parse(small.body.toString('utf8')) as List).items).to.have.length(2);
  });

  it('answers a dry-run PATCH with the object and refuses other writes with 405', async () => {
    const name = packageObjectName('ops', 'etcd');
    const patched = await send(f, `${BASE}/${name}?dryRun=All`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { labels: { extra: 'x' } } }),
    });
    expect(patched.status).to.equal(200);
    const obj = JSON.parse(patched.body.toString('utf8')) as CatalogPackage;
    expect(obj.metadata.labels).to.deep.equal({ catalog: 'ops', package: 'etcd', extra: 'x' });
    const del = await send(f, `${BASE}/${name}`, { method: 'DELETE' });
    expect(del.status).to.equal(405);
    expect(del.body.toString('utf8')).to.include(
      'delete is not allowed: catalogpackages.content.olm.operatorframework.io are read-only views',
    );
  });

  it("reads only the selected package's blobs, and of its bundles only the channel heads", async () => {
    const read: string[] = [];
    const acquire = f.source.acquire.bind(f.source);
    f.source.acquire = (catalog: string, revision: string) => {
      const lease = acquire(catalog, revision);
      if (!lease) return lease;
      return {
        ...lease,
        blobsIn: async function* (ranges: Array<[number, number]>) {
          for await (const b of lease.blobsIn(ranges)) {
            read.push(b.line);
            yield b;
          }
        },
      };
    };
    await json<List>(`${BASE}?labelSelector=package%3Dzk`);
    // zk's package blob, channel, deprecations and head bundle; nothing of etcd's.
    expect(read.map((l) => (JSON.parse(l) as { schema: string }).schema).sort()).to.deep.equal([
      'olm.bundle',
      'olm.channel',
      'olm.deprecations',
      'olm.package',
    ]);
    expect(read.filter((l) => l.includes('etcd.v'))).to.deep.equal([]);
    read.length = 0;
    await json<List>(`${BASE}?labelSelector=package%3Detcd`);
    // Of etcd's three bundles, the two channel heads only (1.0.0 heads alpha, 2.0.0 stable).
    expect(read.filter((l) => l.includes('"olm.bundle"')).length).to.equal(2);
    read.length = 0;
    await json<CatalogPackage>(`${BASE}/${packageObjectName('ops', 'zk')}`);
    // A get reads that package only.
    expect(
      read.filter((l) => l.includes('"package":"etcd"') || l.includes('"name":"etcd"')),
    ).to.deep.equal([]);
    expect(read).to.have.length(4);
  });
});
