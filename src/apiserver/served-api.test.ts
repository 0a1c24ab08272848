// createServedApi over a real content store holding two revisions of a catalog, through real
// HTTP requests: list (selectors, pages, RV semantics, Table), get, dry-run patch and the 405s.
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { ownerReference, toCatalogMetadata } from '../fbc/index.js';
import { getText, send } from '../server/test-catalogs.test.js';
import { SERVED_API_VERSION } from './ports.js';
import { GZIP_THRESHOLD_BYTES } from './objects-response.js';
import { derivedUid } from './served-object.js';
import {
  blobUrlOf,
  catalogBlobs,
  CATALOG_UID,
  CREATED,
  parseBlobs,
  servedFixture,
  viewCatalog,
} from './test-served.test.js';
import type { ParsedRevision, ServedFixture } from './test-served.test.js';

const BASE = '/apis/content.olm.operatorframework.io/v1/catalogmetadata';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

interface Item {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels: Record<string, string>;
    resourceVersion: string;
    [k: string]: unknown;
  };
  spec: Record<string, unknown>;
}
interface List {
  kind: string;
  items: Item[];
  metadata: { resourceVersion: string; continue?: string };
}

async function getJson<T>(f: ServedFixture, target: string, headers: Record<string, string> = {}) {
  const r = await getText(f, target, headers);
  return { status: r.status, headers: r.headers, body: JSON.parse(r.body) as T };
}

/** What the CRD mode writes for a blob, as the served API shows it. */
function expectedObject(b: ParsedRevision['blobs'][number], profile: 'full' | 'lean' = 'full') {
  const crd = toCatalogMetadata(b, {
    ownerReference: ownerReference({ name: 'ops', uid: CATALOG_UID }),
    maxObjectBytes: 1 << 20,
    contentUrl: (blob) => blobUrlOf('ops', blob),
    profile,
  });
  return JSON.parse(JSON.stringify({ ...crd, apiVersion: SERVED_API_VERSION })) as Item;
}

function withoutServerFields(o: Item): Item {
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...metadata } = o.metadata;
  return { ...o, metadata: metadata as Item['metadata'] };
}

/** A fixture serving catalog `ops` of `blobs` blobs of about 2 KB each (a long list). */
async function servedPadded(blobs: number): Promise<ServedFixture> {
  const big = await parseBlobs(
    'ops',
    Array.from({ length: blobs }, (_, i) => ({
      schema: 's',
      package: 'p',
      name: `b${i}`,
      pad: 'x'.repeat(2000),
    })),
  );
  const g = await servedFixture('ops', [big]);
  g.source.set([viewCatalog('ops', big.key)]);
  return g;
}

describe('served API over a content store (HTTP)', () => {
  let r1: ParsedRevision;
  let r2: ParsedRevision;
  let f: ServedFixture;

  before(async () => {
    r1 = await parseBlobs('ops', catalogBlobs(1));
    r2 = await parseBlobs('ops', catalogBlobs(2, { dropBundle: true }));
  });
  beforeEach(async () => {
    f = await servedFixture('ops', [r1, r2]);
    f.source.set([viewCatalog('ops', r2.key)]);
  });
  afterEach(async () => {
    // Every request released what it leased.
    await f.source.leasesReleased();
    await f.close();
  });

  describe('list', () => {
    it('answers every blob of the revision the status names as the CRD mode writes it', async () => {
      const { status, body } = await getJson<List>(f, BASE);
      expect(status).to.equal(200);
      expect(body.kind).to.equal('CatalogMetadataList');
      const byName = new Map(body.items.map((i) => [i.metadata.name, i]));
      expect(byName.size).to.equal(r2.blobs.length);
      for (const b of r2.blobs) {
        const want = expectedObject(b);
        const got = byName.get(want.metadata.name);
        expect(got, want.metadata.name).to.not.equal(undefined);
        expect(withoutServerFields(got!)).to.deep.equal(want);
        expect(got!.metadata.uid).to.equal(derivedUid(CATALOG_UID, want.metadata.name));
        expect(got!.metadata.creationTimestamp).to.equal(CREATED);
        expect(got!.metadata.resourceVersion).to.equal(body.metadata.resourceVersion);
      }
      expect(body.metadata.resourceVersion).to.equal(`1_ops~${r2.key}f`);
    });

    it('serves lean objects under the lean profile and none under none', async () => {
      f.source.set([viewCatalog('ops', r2.key, 'lean')]);
      const lean = await getJson<List>(f, BASE);
      const bundle = r2.blobs.find((b) => b.schema === 'olm.bundle')!;
      const got = lean.body.items.find((i) => i.spec.name === bundle.name)!;
      expect(withoutServerFields(got)).to.deep.equal(expectedObject(bundle, 'lean'));
      f.source.set([viewCatalog('ops', r2.key, 'none')]);
      expect((await getJson<List>(f, BASE)).body.items).to.deep.equal([]);
    });

    it('selects by label through the index: -l package=p1 reads only that package', async () => {
      const before = f.store.io.contentBytesRead;
      const { body } = await getJson<List>(f, `${BASE}?labelSelector=package%3Dp1`);
      const read = f.store.io.contentBytesRead - before;
      expect(body.items.map((i) => i.spec.package)).to.deep.equal(['p1', 'p1', 'p1']);
      const all = r2.blobs.reduce((n, b) => n + b.bytes + 1, 0);
      expect(read)
        .to.be.greaterThan(0)
        .and.lessThan(all / 2);
    });

    const selections: Array<[string, string, (i: Item) => boolean]> = [
      [
        'labelSelector=packageOrName%3Dp2',
        'packageOrName=p2',
        (i) => i.spec.package === 'p2' || i.spec.name === 'p2',
      ],
      [
        'labelSelector=schema+in+(olm.package,olm.channel)',
        'in',
        (i) => ['olm.package', 'olm.channel'].includes(i.spec.schema as string),
      ],
      [
        'labelSelector=schema+notin+(olm.bundle),package',
        'notin and exists',
        (i) => i.spec.schema !== 'olm.bundle' && i.spec.package !== undefined,
      ],
      ['labelSelector=!package', '!exists', (i) => i.spec.package === undefined],
      ['labelSelector=package!%3Dp1', '!=', (i) => i.spec.package !== 'p1'],
      [
        'fieldSelector=spec.package%3Dp2,spec.schema%3D%3Dolm.bundle',
        'fields',
        (i) => i.spec.package === 'p2' && i.spec.schema === 'olm.bundle',
      ],
      [
        'fieldSelector=spec.schema!%3Dolm.bundle',
        'field !=',
        (i) => i.spec.schema !== 'olm.bundle',
      ],
      ['fieldSelector=spec.catalog.name%3Dother', 'another catalog', () => false],
    ];
    for (const [query, what, want] of selections)
      it(`selects ${what}`, async () => {
        const all = (await getJson<List>(f, BASE)).body.items;
        const { status, body } = await getJson<List>(f, `${BASE}?${query}`);
        expect(status).to.equal(200);
        expect(body.items.map((i) => i.metadata.name)).to.deep.equal(
          all.filter(want).map((i) => i.metadata.name),
        );
      });

    it('selects by metadata.name', async () => {
      const all = (await getJson<List>(f, BASE)).body.items;
      const name = all[3]!.metadata.name;
      const { body } = await getJson<List>(f, `${BASE}?fieldSelector=metadata.name%3D${name}`);
      expect(body.items.map((i) => i.metadata.name)).to.deep.equal([name]);
    });

    const refused: Array<[string, number, string]> = [
      ['fieldSelector=spec.content%3Dx', 400, 'field label not supported: spec.content'],
      ['labelSelector=package%3D%3D', 200, ''],
      ['labelSelector=a+b', 400, "found 'b', expected: in, notin, =, ==, !=, gt, lt"],
      ['labelSelector=schema+in+olm', 400, "found 'olm', expected: '('"],
      ['limit=-1', 400, 'limit: Invalid value: "-1": must be a non-negative integer'],
      ['resourceVersion=junk', 400, 'invalid resource version "junk"'],
      [
        'resourceVersionMatch=Exact',
        400,
        'resourceVersionMatch is forbidden unless resourceVersion is provided',
      ],
      ['continue=bm90IGEgdG9rZW4', 400, 'continue key is not valid'],
    ];
    for (const [query, code, message] of refused)
      it(`answers ${query} with ${code}`, async () => {
        const { status, body } = await getJson<{ kind: string; message: string; code: number }>(
          f,
          `${BASE}?${query}`,
        );
        expect(status).to.equal(code);
        if (code !== 200) {
          expect(body).to.include({ kind: 'Status', code });
          expect(body.message).to.include(message);
        }
      });

    it('pages with limit and continue, the pages making up the whole list', async () => {
      const all = (await getJson<List>(f, BASE)).body.items.map((i) => i.metadata.name);
      const paged: string[] = [];
      let cont = '';
      let pages = 0;
      do {
        const { body } = await getJson<List>(
          f,
          `${BASE}?limit=2${cont ? `&continue=${cont}` : ''}`,
        );
        expect(body.items.length).to.be.at.most(2);
        paged.push(...body.items.map((i) => i.metadata.name));
        cont = body.metadata.continue ?? '';
        pages++;
      } while (cont !== '' && pages < 20);
      expect(paged).to.deep.equal(all);
      expect(pages).to.equal(Math.ceil(all.length / 2));
    });

    it('answers resourceVersion=0 with the whole list whatever the limit, as the watch cache does', async () => {
      const all = (await getJson<List>(f, BASE)).body.items.map((i) => i.metadata.name);
      const { body } = await getJson<List>(f, `${BASE}?limit=2&resourceVersion=0`);
      expect(body.items.map((i) => i.metadata.name)).to.deep.equal(all);
      expect(all.length).to.be.above(2);
      expect(body.metadata.continue).to.equal(undefined);
    });

    it('continues on the revision it started with, after the status moved on', async () => {
      const first = (await getJson<List>(f, `${BASE}?limit=2`)).body;
      f.source.set([viewCatalog('ops', r1.key)]);
      const next = (await getJson<List>(f, `${BASE}?limit=100&continue=${first.metadata.continue}`))
        .body;
      expect(next.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
      expect(first.items.length + next.items.length).to.equal(r2.blobs.length);
    });

    it('answers 410 Expired for a continue token whose revision is gone', async () => {
      const first = (await getJson<List>(f, `${BASE}?limit=2`)).body;
      f.source.set([viewCatalog('ops', r1.key)]);
      await f.store.remove('ops');
      const { status, body } = await getJson<{ reason: string; message: string }>(
        f,
        `${BASE}?continue=${first.metadata.continue}`,
      );
      expect(status).to.equal(410);
      expect(body.reason).to.equal('Expired');
      expect(body.message).to.include('continue parameter is too old');
    });

    it('reads an exact resourceVersion while its revision is held, and 410 after', async () => {
      const rv1 = `1_ops~${r1.key}f`;
      const exact = await getJson<List>(
        f,
        `${BASE}?resourceVersion=${rv1}&resourceVersionMatch=Exact`,
      );
      expect(exact.status).to.equal(200);
      expect(exact.body.items.length).to.equal(r1.blobs.length);
      const notOlder = await getJson<List>(
        f,
        `${BASE}?resourceVersion=${rv1}&resourceVersionMatch=NotOlderThan`,
      );
      expect(notOlder.body.metadata.resourceVersion).to.equal(`1_ops~${r2.key}f`);
      await f.store.remove('ops');
      f.source.set([viewCatalog('ops', r2.key)]);
      const gone = await getJson<{ code: number; reason: string }>(
        f,
        `${BASE}?resourceVersion=${rv1}&resourceVersionMatch=Exact`,
      );
      expect(gone.body).to.include({ code: 410, reason: 'Expired' });
    });

    it('waits for an exact resourceVersion naming the status revision not held yet, then 504', async () => {
      f.source.set([viewCatalog('ops', 'aaaaaaaaaaaaaaaa')]);
      const r = await getJson<{ code: number; reason: string; details: { causes: unknown[] } }>(
        f,
        `${BASE}?resourceVersion=1_ops~aaaaaaaaaaaaaaaaf&resourceVersionMatch=Exact`,
      );
      expect(r.body).to.include({ code: 504, reason: 'Timeout' });
      expect(r.body.details.causes).to.deep.equal([
        { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
      ]);
      expect(f.source.waits).to.equal(1);
    });

    it('never answers with an older revision: 503 with Retry-After when the named one is not held', async () => {
      f.source.set([viewCatalog('ops', 'aaaaaaaaaaaaaaaa')]);
      const r = await getJson<{ code: number; reason: string }>(f, BASE);
      expect(r.status).to.equal(503);
      expect(r.headers['retry-after']).to.equal('1');
      expect(f.source.waits).to.equal(1);
    });

    it('answers the Table with the CRD printer columns, wide ones at priority 1', async () => {
      const { body } = await getJson<{
        kind: string;
        columnDefinitions: Array<{ name: string; priority: number }>;
        rows: Array<{ cells: unknown[]; object: { kind: string; metadata: { name: string } } }>;
      }>(f, `${BASE}?labelSelector=schema%3Dolm.package`, { Accept: TABLE });
      expect(body.kind).to.equal('Table');
      expect(body.columnDefinitions.map((c) => [c.name, c.priority])).to.deep.equal([
        ['Name', 0],
        ['Catalog', 0],
        ['Schema', 0],
        ['Package', 0],
        ['Name', 0],
        ['Age', 0],
        ['ContentHash', 1],
        ['ContentOmitted', 1],
      ]);
      const p1 = r2.blobs.find((b) => b.schema === 'olm.package' && b.name === 'p1')!;
      expect(body.rows[0]!.cells).to.deep.equal([
        expectedObject(p1).metadata.name,
        'ops',
        'olm.package',
        null,
        'p1',
        '2d',
        p1.hash,
        null,
      ]);
      expect(body.rows[0]!.object.kind).to.equal('PartialObjectMetadata');
    });

    it('gzips a list past 128 KiB for a client that accepts gzip, as the apiserver does; a smaller one not', async () => {
      const small = await send(f, BASE, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(small.body.length).to.be.below(GZIP_THRESHOLD_BYTES);
      expect(small.headers['content-encoding']).to.equal(undefined);
      const g = await servedPadded(200);
      try {
        const plain = await getText(g, BASE);
        expect(plain.body.length).to.be.above(GZIP_THRESHOLD_BYTES);
        const r = await send(g, BASE, { headers: { 'Accept-Encoding': 'gzip' } });
        expect(r.headers['content-encoding']).to.equal('gzip');
        expect(gunzipSync(r.body).toString()).to.equal(plain.body);
        expect(plain.headers['content-encoding']).to.equal(undefined);
      } finally {
        await g.close();
      }
    });

    it('releases its leases when the client leaves in the middle of a long list', async () => {
      const g = await servedPadded(3000);
      try {
        const { port } = new URL(g.url);
        await new Promise<void>((resolve) => {
          const req = request({ hostname: '127.0.0.1', port, path: BASE }, (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          });
          req.end();
        });
        await g.source.leasesReleased();
        // The server still answers.
        expect((await getText(g, `${BASE}?limit=1`)).status).to.equal(200);
      } finally {
        await g.close();
      }
    });

    it('answers 406 to a client that accepts neither JSON nor the Table', async () => {
      const r = await getText(f, BASE, { Accept: 'application/vnd.kubernetes.protobuf' });
      expect(r.status).to.equal(406);
    });
  });

  describe('get', () => {
    it('answers the object by name, and 404 for an unknown name', async () => {
      const want = expectedObject(r2.blobs[0]!);
      const { status, body } = await getJson<Item>(f, `${BASE}/${want.metadata.name}`);
      expect(status).to.equal(200);
      expect(withoutServerFields(body)).to.deep.equal(want);
      const missing = await getJson<{ code: number; reason: string; message: string }>(
        f,
        `${BASE}/ops-nothing-0123456789abcdef`,
      );
      expect(missing.body).to.deep.include({
        code: 404,
        reason: 'NotFound',
        message:
          'catalogmetadata.content.olm.operatorframework.io "ops-nothing-0123456789abcdef" not found',
      });
    });
  });

  describe('writes', () => {
    it('answers a dry-run patch of the rendered object with the object unchanged', async () => {
      const want = expectedObject(r2.blobs[2]!);
      const { ownerReferences: _o, ...rendered } = want.metadata;
      const applied = JSON.stringify({
        ...want,
        metadata: {
          ...rendered,
          annotations: {
            ...(want.metadata.annotations as object),
            'kubectl.kubernetes.io/last-applied-configuration': '{}',
          },
        },
      });
      const live = (await getJson<Item>(f, `${BASE}/${want.metadata.name}`)).body;
      for (const type of [
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/apply-patch+yaml',
      ]) {
        const r = await send(f, `${BASE}/${want.metadata.name}?dryRun=All&fieldManager=kubectl`, {
          method: 'PATCH',
          headers: { 'Content-Type': type },
          body: applied,
        });
        expect(r.status, type).to.equal(200);
        expect(JSON.parse(r.body.toString())).to.deep.equal(live);
      }
      const changed = await send(f, `${BASE}/${want.metadata.name}?dryRun=All`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ metadata: { labels: { extra: 'x' } } }),
      });
      expect((JSON.parse(changed.body.toString()) as Item).metadata.labels.extra).to.equal('x');
    });

    const writes: Array<[string, string, string | undefined]> = [
      ['POST', BASE, '{}'],
      ['PUT', `${BASE}/ops-package-p1-0123456789abcdef`, '{}'],
      ['DELETE', `${BASE}/ops-package-p1-0123456789abcdef`, undefined],
      ['DELETE', BASE, undefined],
      ['PATCH', `${BASE}/ops-package-p1-0123456789abcdef`, '{}'],
    ];
    for (const [method, target, body] of writes)
      it(`answers ${method} ${target === BASE ? 'the collection' : 'an object'}${method === 'PATCH' ? ' without dryRun' : ''} with 405`, async () => {
        const r = await send(f, target, {
          method,
          headers: { 'Content-Type': 'application/merge-patch+json' },
          ...(body !== undefined && { body }),
        });
        expect(r.status).to.equal(405);
        const status = JSON.parse(r.body.toString()) as { reason: string; message: string };
        expect(status.reason).to.equal('MethodNotAllowed');
        expect(status.message).to.include('read-only views of their ClusterCatalog');
        if (target !== BASE) expect(status.message).to.include('ClusterCatalog ops)');
      });
  });
});
