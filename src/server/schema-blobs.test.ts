import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ContentStore } from './store.js';
import { generatedCatalog, inBlobOrder, streamOf } from './test-catalogs.test.js';
import type { TestCatalog } from './test-catalogs.test.js';

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('server: a lease reads one schema’s blobs (the GraphQL read port)', function () {
  let root: string;
  let store: ContentStore;
  let gen: TestCatalog;

  before(async () => {
    gen = await generatedCatalog(7, 0.5);
    root = await mkdtemp(path.join(tmpdir(), 'schema-blobs-'));
    store = new ContentStore(path.join(root, 'store'), { graceMs: 0 });
    await store.ensureServed('gen', gen.contentHash, new Date(), () => streamOf(gen.blobs));
  });

  after(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists the schemas in blob order with their counts, and pages through each', async () => {
    const ordered = inBlobOrder(gen.blobs);
    const lease = store.acquire('gen')!;
    try {
      const schemas = lease.schemas();
      expect(schemas.map((s) => s.schema)).to.deep.equal([
        ...new Set(ordered.map((b) => b.schema)),
      ]);
      for (const { schema, blobs } of schemas) {
        const want = ordered.filter((b) => b.schema === schema).map((b) => b.canonical);
        expect(blobs, schema).to.equal(want.length);
        expect(await collect(lease.schemaBlobs(schema, 0, Infinity)), schema).to.deep.equal(want);
        for (const [skip, take] of [
          [0, 1],
          [1, 2],
          [want.length - 1, 5],
          [want.length, 1],
          [-3, 2],
          [3, 0],
        ] as const)
          expect(
            await collect(lease.schemaBlobs(schema, skip, take)),
            `${skip},${take}`,
          ).to.deep.equal(want.slice(Math.max(0, skip), Math.max(0, skip) + take));
      }
      expect(await collect(lease.schemaBlobs('no.such.schema', 0, 10))).to.deep.equal([]);
    } finally {
      lease.release();
    }
  });

  it('reads only the pages asked for', async () => {
    const lease = store.acquire('gen')!;
    try {
      const { schema } = lease.schemas().find((s) => s.blobs > 3)!;
      const before = store.io.contentBytesRead;
      const page = await collect(lease.schemaBlobs(schema, 2, 1));
      expect(store.io.contentBytesRead - before).to.equal(Buffer.byteLength(page[0]!) + 1);
    } finally {
      lease.release();
    }
  });

  it('reads the blobs a metas query selects, paged, reading only them', async () => {
    const ordered = inBlobOrder(gen.blobs);
    const lease = store.acquire('gen')!;
    try {
      const pkg = ordered.find((b) => typeof b.package === 'string')!.package as string;
      const want = ordered.filter((b) => b.package === pkg).map((b) => b.canonical);
      const before = store.io.contentBytesRead;
      expect(await collect(lease.selectedBlobs({ package: pkg }))).to.deep.equal(want);
      expect(store.io.contentBytesRead - before).to.equal(
        want.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0),
      );
      expect(await collect(lease.selectedBlobs({ package: pkg }, 1, 2))).to.deep.equal(
        want.slice(1, 3),
      );
      const bundle = ordered.find((b) => b.schema === 'olm.bundle')!;
      expect(
        await collect(lease.selectedBlobs({ schema: 'olm.bundle', name: bundle.name })),
      ).to.deep.equal([bundle.canonical]);
      expect(await collect(lease.selectedBlobs({ package: 'no-such-package' }))).to.deep.equal([]);
    } finally {
      lease.release();
    }
  });
});
