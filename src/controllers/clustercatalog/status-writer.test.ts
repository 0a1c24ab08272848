// The status writer alone, over a recorded patcher: what it sends, against which
// resourceVersion, and what it does after a refusal or a dropped field.
import { expect } from 'chai';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import { StatusWriter } from './status-writer.js';

const HASH = `sha256:${'b'.repeat(64)}`;

function catalogAt(resourceVersion: string, status?: ClusterCatalogStatus): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'ops', resourceVersion },
    spec: { source: { type: 'Image', image: { ref: 'r.example/ops:v1' } } },
    ...(status && { status }),
  };
}

/** Answers each patch with the next resourceVersion; `keeps` lists the fields its CRD has. */
function patcher(keeps?: string[]) {
  const sent: Array<{ patch: Record<string, unknown>; resourceVersion: string }> = [];
  let refuse: Error | undefined;
  return {
    sent,
    refuseWith: (err: Error) => (refuse = err),
    patchStatus: async (name: string, patch: Record<string, unknown>, resourceVersion: string) => {
      sent.push({ patch, resourceVersion });
      if (refuse) throw refuse;
      const stored = Object.fromEntries(
        Object.entries(patch).filter(([k, v]) => v !== null && (!keeps || keeps.includes(k))),
      );
      const updated = catalogAt(String(Number(resourceVersion) + 1), stored);
      return { ...updated, metadata: { ...updated.metadata, name } };
    },
  };
}

describe('StatusWriter', () => {
  it('sends only what changed, each write against the resourceVersion the last one returned', async () => {
    const api = patcher();
    const writer = new StatusWriter(api, catalogAt('7', { contentHash: HASH, objectCount: 3 }));
    await writer.write({ contentHash: HASH, objectCount: 3 });
    expect(api.sent).to.deep.equal([]);
    await writer.write({ contentHash: HASH, objectCount: 4, syncingTo: HASH });
    await writer.write({ contentHash: HASH, objectCount: 4 });
    expect(api.sent).to.deep.equal([
      { patch: { objectCount: 4, syncingTo: HASH }, resourceVersion: '7' },
      { patch: { syncingTo: null }, resourceVersion: '8' },
    ]);
    expect(writer.pruned).to.equal(false);
  });

  it('writes nothing more after a refused write, and says so to whoever asks', async () => {
    const api = patcher();
    const writer = new StatusWriter(api, catalogAt('7'));
    const conflict = new Error('409 Conflict');
    api.refuseWith(conflict);
    const first = await writer.write({ objectCount: 1 }).catch((e: unknown) => e);
    expect(first).to.equal(conflict);
    const second = await writer.write({ objectCount: 2 }).catch((e: unknown) => e);
    expect(second).to.equal(conflict);
    expect(() => writer.throwIfFailed()).to.throw(conflict.message);
    expect(api.sent).to.have.length(1);
  });

  it('tells when the apiserver dropped a field it was sent (another CRD)', async () => {
    const api = patcher(['conditions']);
    const writer = new StatusWriter(api, catalogAt('7'));
    await writer.write({ conditions: [], contentHash: HASH });
    expect(writer.pruned).to.equal(true);
  });
});
