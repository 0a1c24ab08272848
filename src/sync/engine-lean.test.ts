// The sync engine with the lean content profile: what it plans and writes, and that switching
// profiles rewrites only the objects the profile changes.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CatalogMetadata, ContentProfile } from '../api/v1/index.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import type { CatalogMetadataWriter, ObjectWrite, SyncTarget } from './index.js';
import { toExisting } from './catalogmetadata-writer.js';
import { applyPlan, ObjectTooLargeError, planCatalogSync, scanCatalog } from './index.js';
import { specDigest } from './drift.js';
import type { ExistingObject } from './plan.js';
import { metadataFingerprint, wholeContentOmitted } from './plan.js';

const parse = (o: ObjectWrite) => JSON.parse(o.body.toString()) as CatalogMetadata;

/** The objects of a catalog as a cluster holds them after a sync with `profile`. */
async function synced(target: SyncTarget): Promise<Map<string, CatalogMetadata>> {
  const objects = new Map<string, CatalogMetadata>();
  await scanCatalog(target, undefined, (obj) => void objects.set(obj.metadata.name, obj));
  return objects;
}

/** How a metadata-only list shows an object. */
function listed(obj: CatalogMetadata, i: number): ExistingObject {
  return {
    name: obj.metadata.name,
    uid: `u-${i}`,
    resourceVersion: String(i + 1),
    fingerprint: metadataFingerprint(obj.metadata),
    omitted: wholeContentOmitted(
      obj.metadata.annotations?.['olm.operatorframework.io/content-omitted'],
    ),
    ownerUid: 'uid-ops',
    deleting: false,
    generation: 1,
  };
}

function writerOver(
  existing: ExistingObject[],
  refuse: (o: CatalogMetadata) => boolean = () => false,
) {
  const written: Array<{ verb: string; obj: CatalogMetadata; omittedFlag: boolean }> = [];
  const writer: CatalogMetadataWriter = {
    async *listExisting() {
      yield* existing;
    },
    async create(w) {
      const o = parse(w);
      if (refuse(o)) throw new ObjectTooLargeError(o.metadata.name, new Error('etcd'));
      written.push({ verb: 'create', obj: o, omittedFlag: false });
    },
    async update(w) {
      written.push({ verb: 'update', obj: parse(w), omittedFlag: false });
    },
    async delete() {},
  };
  return { writer, written };
}

describe('sync engine: lean content profile', () => {
  let dir: string;
  let spoolDir: string;
  const target = (contentProfile?: ContentProfile): SyncTarget => ({
    catalog: { name: 'ops', uid: 'uid-ops' },
    dir: path.join(dir, 'catalog'),
    maxObjectBytes: 1 << 20,
    contentUrl: (b) => `http://content/catalogs/ops/api/v1/metas?name=${b.name ?? ''}`,
    ...(contentProfile && { contentProfile }),
  });
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'catalogd-lean-test-'));
    // Packages with an icon, bundles with olm.csv.metadata and olm.bundle.object properties,
    // channels and a custom schema (nothing to leave out).
    await generateCatalog(path.join(dir, 'catalog'), { seed: 3, sizeMB: 0.1 });
  });
  after(() => rm(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    spoolDir = await mkdtemp(path.join(dir, 'spool-'));
  });

  it('writes lean objects as objects with content: partial, never counted as omitted', async () => {
    const { writer, written } = writerOver([]);
    const planned = await planCatalogSync(target('lean'), writer, spoolDir);
    expect(planned.scan.omitted).to.equal(0);
    for await (const w of planned.writes!.read()) expect(w.omitted).to.equal(false);
    const result = await applyPlan(planned, writer, { concurrency: 4 });
    await planned.dispose();
    expect(result.omitted).to.equal(0);
    const lean = written.filter((w) => w.obj.spec.contentOmitted?.parts);
    expect(lean.length).to.be.greaterThan(0);
    for (const { obj } of lean) {
      expect(obj.spec.content).to.not.equal(undefined);
      expect(obj.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
        'lean',
      );
    }
    const schemas = new Set(lean.map((w) => w.obj.spec.schema));
    expect([...schemas].sort()).to.deep.equal(['olm.bundle', 'olm.package']);
  });

  it('the content hash of the catalog and of each object is the same in both profiles', async () => {
    const full = await scanCatalog(target());
    const lean = await scanCatalog(target('lean'));
    expect(lean.contentHash).to.equal(full.contentHash);
    expect(lean.bytes).to.equal(full.bytes);
    const hashes = (m: Map<string, CatalogMetadata>) =>
      [...m.values()].map((o) => o.metadata.annotations?.['olm.operatorframework.io/content-hash']);
    expect(hashes(await synced(target('lean')))).to.deep.equal(hashes(await synced(target())));
  });

  it('switching full → lean → full rewrites only the objects with something to leave out', async () => {
    const full = await synced(target());
    const lean = await synced(target('lean'));
    const reduced = [...lean.values()]
      .filter((o) => o.spec.contentOmitted?.parts)
      .map((o) => o.metadata.name)
      .sort();
    expect(reduced.length).to.be.below(lean.size);
    for (const [from, to, profile] of [
      [full, lean, 'lean'],
      [lean, full, undefined],
    ] as const) {
      const { writer, written } = writerOver([...from.values()].map(listed));
      const planned = await planCatalogSync(target(profile), writer, spoolDir);
      await applyPlan(planned, writer, { concurrency: 4 });
      await planned.dispose();
      expect(planned.plan.create).to.deep.equal([]);
      expect(planned.plan.delete).to.deep.equal([]);
      expect(written.map((w) => w.obj.metadata.name).sort()).to.deep.equal(reduced);
      for (const { obj } of written) {
        const { resourceVersion: _rv, ...metadata } = obj.metadata;
        expect({ ...obj, metadata }).to.deep.equal(to.get(obj.metadata.name));
      }
      // And once there, nothing more.
      const again = await planCatalogSync(
        target(profile),
        writerOver([...to.values()].map(listed)).writer,
        spoolDir,
      );
      await again.dispose();
      expect(again.plan.update).to.deep.equal([]);
    }
  });

  it('profile none: the same content hash, no objects, every existing one deleted', async () => {
    const full = await synced(target());
    const none = await scanCatalog(target('none'));
    expect(none.contentHash).to.equal((await scanCatalog(target())).contentHash);
    expect([none.blobs, none.desired.size, none.storedBytes, none.omitted]).to.deep.equal([
      0, 0, 0, 0,
    ]);
    const { writer, written } = writerOver([...full.values()].map(listed));
    const planned = await planCatalogSync(target('none'), writer, spoolDir);
    await applyPlan(planned, writer, { concurrency: 4 });
    await planned.dispose();
    expect(written).to.deep.equal([]);
    expect(planned.plan.create).to.deep.equal([]);
    expect(planned.plan.delete.map((d) => d.name).sort()).to.deep.equal([...full.keys()].sort());
  });

  it('a co-owned lean spec is compared by its projected content (GitOps drift)', async () => {
    const lean = await synced(target('lean'));
    const full = await synced(target());
    const name = [...lean.values()].find((o) => o.spec.schema === 'olm.bundle')!.metadata.name;
    const plan = async (liveSpec: CatalogMetadata['spec']) => {
      const existing = [...lean.values()].map((o, i) => ({
        ...listed(o, i),
        specCoOwned: o.metadata.name === name,
      }));
      const { writer } = writerOver(existing);
      writer.liveSpecDigest = async () => specDigest(structuredClone(liveSpec));
      const planned = await planCatalogSync(target('lean'), writer, spoolDir);
      await planned.dispose();
      return planned.plan.update.map((u) => u.name);
    };
    // As the controller (or `catalogd render --content-profile lean`) wrote it: no drift.
    expect(await plan(lean.get(name)!.spec)).to.deep.equal([]);
    // The full content under a lean object's annotations: drift, rewritten.
    expect(
      await plan({ ...lean.get(name)!.spec, content: full.get(name)!.spec.content }),
    ).to.deep.equal([name]);
  });

  it('a lean object the apiserver refuses is written with the whole blob omitted', async () => {
    const refused = (o: CatalogMetadata) =>
      o.spec.schema === 'olm.bundle' && o.spec.content !== undefined;
    const { writer, written } = writerOver([], refused);
    const planned = await planCatalogSync(target('lean'), writer, spoolDir);
    const result = await applyPlan(planned, writer, { concurrency: 4 });
    await planned.dispose();
    const full = await synced(target());
    const bundles = written.filter((w) => w.obj.spec.schema === 'olm.bundle');
    expect(result.omitted).to.equal(bundles.length);
    for (const { obj } of bundles) {
      expect(obj.spec.content).to.equal(undefined);
      expect(obj.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
        'apiserver-limit',
      );
      // The whole blob's size, not the partial content's; no parts.
      const blobBytes = full.get(obj.metadata.name)!.spec.content;
      expect(obj.spec.contentOmitted?.bytes).to.equal(Buffer.byteLength(JSON.stringify(blobBytes)));
      expect(obj.spec.contentOmitted).to.not.have.property('parts');
    }

    // Listed afterwards, the refused objects are up to date in the lean profile (not rewritten,
    // and refused again, on every sync) and in the full one; a lean object listed as full is not.
    const stored = written.map((w, i) =>
      toExisting(
        {
          metadata: {
            ...w.obj.metadata,
            uid: `u-${i}`,
            resourceVersion: '1',
            ownerReferences: [{ uid: 'uid-ops', controller: true }],
          },
        },
        'catalogd-ts',
      ),
    );
    for (const profile of ['lean', 'full'] as const) {
      const again = await planCatalogSync(target(profile), writerOver(stored).writer, spoolDir);
      await again.dispose();
      const updated = again.plan.update.map((u) => u.name);
      const leanStored = written.filter((w) => w.obj.spec.contentOmitted?.parts);
      expect(leanStored.length).to.be.greaterThan(0); // the packages, which were not refused
      expect(updated.sort(), profile).to.deep.equal(
        profile === 'lean' ? [] : leanStored.map((w) => w.obj.metadata.name).sort(),
      );
    }
  });
});
