import { expect } from 'chai';
import path from 'node:path';
import type { CatalogMetadata } from '../api/v1/index.js';
import type { CatalogMetadataWriter, SyncTarget } from './engine.js';
import { applyPlan, ObjectTooLargeError, scanCatalog, SyncWriteError } from './engine.js';
import { planSync } from './plan.js';

const sample = path.resolve(import.meta.dirname, '..', '..', 'examples', 'catalog');
const target: SyncTarget = {
  catalog: { name: 'ops', uid: 'uid-ops' },
  dir: sample,
  maxObjectBytes: 1 << 20,
  contentUrl: (b) => `http://content/catalogs/ops/api/v1/metas?name=${b.name ?? ''}`,
};

/** A writer that keeps what it is sent, and refuses some objects whole as too large. */
function recordingWriter(tooLarge: (o: CatalogMetadata) => boolean) {
  const written: CatalogMetadata[] = [];
  const writer: CatalogMetadataWriter = {
    async *listExisting() {},
    async create(o) {
      if (tooLarge(o)) throw new ObjectTooLargeError(o.metadata.name, new Error('etcd'));
      written.push(o);
    },
    async update(o) {
      written.push(o);
    },
    async delete() {},
  };
  return { writer, written };
}

describe('applyPlan', () => {
  it('writes an object the apiserver refuses as too large again, with its content omitted', async () => {
    const scan = await scanCatalog(target);
    const plan = planSync(scan.desired, [], 'uid-ops');
    const refused = (o: CatalogMetadata) =>
      o.spec.name === 'utility-operator.v0.1.0' && o.spec.content !== undefined;
    const { writer, written } = recordingWriter(refused);
    const result = await applyPlan(target, plan, writer, { concurrency: 2 });
    expect(written).to.have.length(scan.blobs);
    expect(result.omitted).to.equal(1);
    const big = written.find((o) => o.spec.name === 'utility-operator.v0.1.0');
    expect(big?.spec.content).to.equal(undefined);
    expect(big?.spec.contentOmitted?.url).to.equal(
      'http://content/catalogs/ops/api/v1/metas?name=utility-operator.v0.1.0',
    );
    expect(big?.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
      'apiserver-limit',
    );
    expect(written.filter((o) => o.spec.content === undefined)).to.have.length(1);
  });

  it('fails naming the object when even the object without content is refused', async () => {
    const scan = await scanCatalog(target);
    const plan = planSync(scan.desired, [], 'uid-ops');
    const { writer } = recordingWriter((o) => o.spec.name === 'utility-operator.v0.1.0');
    const err = await applyPlan(target, plan, writer, { concurrency: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(SyncWriteError);
    expect((err as SyncWriteError).object).to.match(/utility-operator\.v0\.1\.0/);
  });
});
