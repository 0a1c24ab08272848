import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { tempDirEach } from '../../test/support/temp-dir.js';
import type { CatalogMetadata } from '../api/v1/index.js';
import type { CatalogMetadataWriter, ObjectWrite, SyncTarget } from './index.js';
import {
  applyPlan,
  ObjectTooLargeError,
  planCatalogSync,
  scanCatalog,
  SyncWriteError,
} from './index.js';
import { specDigest } from './drift.js';
import type { ExistingObject } from './plan.js';
import { planSync } from './plan.js';

const sample = path.resolve(import.meta.dirname, '..', '..', 'examples', 'catalog');
const target: SyncTarget = {
  catalog: { name: 'ops', uid: 'uid-ops' },
  dir: sample,
  maxObjectBytes: 1 << 20,
  contentUrl: (b) => `http://content/catalogs/ops/api/v1/metas?name=${b.name ?? ''}`,
};

const parse = (o: ObjectWrite) => JSON.parse(o.body.toString()) as CatalogMetadata;

/** A writer that lists `existing`, keeps what it is sent, and refuses some objects as too large. */
function recordingWriter(
  tooLarge: (o: CatalogMetadata) => boolean = () => false,
  existing: ExistingObject[] = [],
) {
  const written: Array<{ verb: string; obj: CatalogMetadata }> = [];
  const writer: CatalogMetadataWriter = {
    async *listExisting() {
      yield* existing;
    },
    async create(w) {
      const o = parse(w);
      expect(o.metadata.name).to.equal(w.name);
      if (tooLarge(o)) throw new ObjectTooLargeError(o.metadata.name, new Error('etcd'));
      written.push({ verb: 'create', obj: o });
    },
    async update(w) {
      written.push({ verb: 'update', obj: parse(w) });
    },
    async delete(name) {
      written.push({ verb: 'delete', obj: { metadata: { name } } as CatalogMetadata });
    },
  };
  return { writer, written };
}

describe('sync engine', () => {
  const spoolDir = tempDirEach('catalogd-sync-test-');

  describe('planCatalogSync', () => {
    it('spools every object of a cold sync, in catalog order, as the scan built it', async () => {
      const { writer } = recordingWriter();
      const planned = await planCatalogSync(target, writer, spoolDir());
      const scan = await scanCatalog(target);
      expect(planned.plan).to.deep.equal(planSync(scan.desired, [], 'uid-ops'));
      const spooled = [];
      for await (const w of planned.writes!.read()) spooled.push(w);
      expect(spooled.map((w) => w.verb)).to.deep.equal(spooled.map(() => 'create'));
      expect(new Set(spooled.map((w) => w.name))).to.deep.equal(new Set(scan.desired.keys()));
      for (const w of spooled)
        expect(parse(w).metadata.ownerReferences?.[0]?.uid).to.equal('uid-ops');
      await planned.dispose();
      expect(await readdir(spoolDir())).to.deep.equal([]);
    });

    it('spools only what differs; an update carries the listed resourceVersion', async () => {
      const scan = await scanCatalog(target);
      const [same, changed] = [...scan.desired.keys()];
      const existing: ExistingObject[] = [
        {
          name: same!,
          uid: 'u1',
          resourceVersion: '7',
          fingerprint: scan.desired.get(same!)!,
          ownerUid: 'uid-ops',
          deleting: false,
        },
        {
          name: changed!,
          uid: 'u2',
          resourceVersion: '8',
          fingerprint: 'stale',
          ownerUid: 'uid-ops',
          deleting: false,
        },
        { name: 'gone', uid: 'u3', resourceVersion: '9', fingerprint: 'x', deleting: false },
      ];
      const { writer, written } = recordingWriter(undefined, existing);
      const planned = await planCatalogSync(target, writer, spoolDir());
      expect(planned.plan.update).to.deep.equal([{ name: changed, resourceVersion: '8' }]);
      expect(planned.plan.delete).to.deep.equal([{ name: 'gone', uid: 'u3' }]);
      expect(planned.writes!.count).to.equal(scan.blobs - 1);
      await applyPlan(planned, writer, { concurrency: 3 });
      await planned.dispose();
      const updates = written.filter((w) => w.verb === 'update');
      expect(
        updates.map((w) => [w.obj.metadata.name, w.obj.metadata.resourceVersion]),
      ).to.deep.equal([[changed, '8']]);
      expect(written.map((w) => w.obj.metadata.name)).to.not.include(same);
      expect(written.at(-1)).to.deep.include({ verb: 'delete' });
      expect(written.filter((w) => w.verb === 'create')).to.have.length(scan.blobs - 2);
    });

    it('reads co-owned specs and rewrites only those whose content differs', async () => {
      const scan = await scanCatalog(target);
      const [same, edited, ours] = [...scan.desired.keys()];
      const objects = new Map<string, CatalogMetadata>();
      await scanCatalog(target, undefined, (obj) => {
        objects.set(obj.metadata.name, obj);
      });
      const listed = (name: string, specCoOwned: boolean): ExistingObject => ({
        name,
        uid: `uid-${name}`,
        resourceVersion: '3',
        fingerprint: scan.desired.get(name)!,
        ownerUid: 'uid-ops',
        deleting: false,
        generation: 2,
        specCoOwned,
      });
      const { writer, written } = recordingWriter(
        undefined,
        [...scan.desired.keys()].map((n) => listed(n, n !== ours)),
      );
      const reads: string[] = [];
      writer.liveSpecDigest = async (have) => {
        reads.push(have.name);
        const spec = structuredClone(objects.get(have.name)!.spec);
        if (have.name === edited) spec.content = { ...(spec.content as object), edited: true };
        return specDigest(spec);
      };
      const planned = await planCatalogSync(target, writer, spoolDir());
      expect(reads).to.not.include(ours); // only the controller owns its spec: nothing to read
      expect(reads).to.include(same);
      expect(planned.plan.update).to.deep.equal([{ name: edited, resourceVersion: '3' }]);
      expect(planned.plan.create).to.deep.equal([]);
      await applyPlan(planned, writer, { concurrency: 2 });
      await planned.dispose();
      expect(written.map((w) => `${w.verb} ${w.obj.metadata.name}`)).to.deep.equal([
        `update ${edited}`,
      ]);
    });

    it('writes nothing to disk that outlives a failed scan', async () => {
      const { writer } = recordingWriter();
      const bad = { ...target, dir: path.join(spoolDir(), 'missing') };
      const err = await planCatalogSync(bad, writer, spoolDir()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(Error);
      expect(await readdir(spoolDir())).to.deep.equal([]);
    });
  });

  describe('applyPlan', () => {
    it("releases a spooled body once its write was answered, never a failed write's", async () => {
      const failing = 'utility-operator.v0.1.0';
      const released: string[] = [];
      let failed: string | undefined;
      const writer: CatalogMetadataWriter = {
        async *listExisting() {},
        async create(w) {
          if (parse(w).spec.name !== failing) return;
          failed = w.name;
          throw new Error('connection reset');
        },
        async update() {},
        async delete() {},
      };
      const planned = await planCatalogSync(target, writer, spoolDir());
      const spool = planned.writes!;
      const read = spool.read.bind(spool);
      // Each record's release noted by name.
      spool.read = async function* () {
        for await (const w of read()) yield { ...w, release: () => released.push(w.name) };
      };
      const err = await applyPlan(planned, writer, { concurrency: 1 }).catch((e: unknown) => e);
      await planned.dispose();
      expect(err).to.be.instanceOf(SyncWriteError);
      expect(failed).to.be.a('string');
      expect(released).to.not.include(failed);
      expect(released).to.have.length.greaterThan(0);
      expect(new Set(released).size).to.equal(released.length);
    });

    it('writes an object the apiserver refuses as too large again, with its content omitted', async () => {
      const refused = (o: CatalogMetadata) =>
        o.spec.name === 'utility-operator.v0.1.0' && o.spec.content !== undefined;
      const { writer, written } = recordingWriter(refused);
      const planned = await planCatalogSync(target, writer, spoolDir());
      const result = await applyPlan(planned, writer, { concurrency: 2 });
      await planned.dispose();
      expect(written).to.have.length(planned.scan.blobs);
      expect(result.omitted).to.equal(1);
      const big = written.find((w) => w.obj.spec.name === 'utility-operator.v0.1.0')?.obj;
      expect(big?.spec.content).to.equal(undefined);
      expect(big?.spec.contentOmitted?.url).to.equal(
        'http://content/catalogs/ops/api/v1/metas?name=utility-operator.v0.1.0',
      );
      expect(big?.spec.contentOmitted?.bytes).to.be.greaterThan(100);
      expect(big?.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
        'apiserver-limit',
      );
      expect(written.filter((w) => w.obj.spec.content === undefined)).to.have.length(1);
    });

    it('counts storedBytes as the bytes of the objects as written, content omitted or not', async () => {
      const big = 'utility-operator.v0.1.0';
      const sizes = new Map<string, number>();
      const writer: CatalogMetadataWriter = {
        async *listExisting() {},
        async create(w) {
          const o = parse(w);
          if (o.spec.name === big && o.spec.content !== undefined)
            throw new ObjectTooLargeError(w.name, new Error('etcd'));
          sizes.set(w.name, Buffer.byteLength(w.body));
        },
        update: async () => {},
        delete: async () => {},
      };
      const sum = () => [...sizes.values()].reduce((a, b) => a + b, 0);
      // A cold sync: one object the apiserver refuses whole is written with its content omitted.
      const planned = await planCatalogSync(target, writer, spoolDir());
      const result = await applyPlan(planned, writer, { concurrency: 2 });
      await planned.dispose();
      expect(result.storedBytesDelta).to.be.lessThan(0);
      expect(planned.scan.storedBytes + result.storedBytesDelta).to.equal(sum());
      // The same objects listed, unchanged: that object is counted at its stored (omitted) size.
      const existing: ExistingObject[] = [...planned.scan.desired].map(([name, fingerprint]) => ({
        name,
        uid: name,
        resourceVersion: '1',
        fingerprint,
        ownerUid: 'uid-ops',
        deleting: false,
        omitted: name === [...sizes.keys()].find((n) => n.includes('utility-operator.v0.1.0')),
      }));
      const again = await planCatalogSync(
        target,
        {
          ...writer,
          listExisting: async function* () {
            yield* existing;
          },
        },
        spoolDir(),
      );
      await again.dispose();
      expect(again.plan.unchanged).to.equal(existing.length);
      expect(again.scan.storedBytes).to.equal(sum());
      // --max-object-bytes omits the content of the larger objects: counted as written too.
      sizes.clear();
      const small = { ...target, maxObjectBytes: 900 };
      const omitted = await planCatalogSync(
        small,
        { ...writer, create: async (w) => void sizes.set(w.name, Buffer.byteLength(w.body)) },
        spoolDir(),
      );
      await applyPlan(omitted, writer, { concurrency: 2 }).catch(() => undefined);
      await omitted.dispose();
      expect(omitted.scan.omitted).to.be.greaterThan(0);
      expect(omitted.scan.storedBytes).to.equal(sum());
    });

    it('fails naming the object when even the object without content is refused', async () => {
      const { writer } = recordingWriter((o) => o.spec.name === 'utility-operator.v0.1.0');
      const planned = await planCatalogSync(target, writer, spoolDir());
      const err = await applyPlan(planned, writer, { concurrency: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      await planned.dispose();
      expect(existsSync(planned.writes!.file)).to.equal(false);
      expect(err).to.be.instanceOf(SyncWriteError);
      expect((err as SyncWriteError).object).to.match(/utility-operator\.v0\.1\.0/);
    });
  });
});
