import { expect } from 'chai';
import type { ClusterCatalog } from '../../api/v1/index.js';
import { catalogNeedsReconcile } from './predicates.js';

const base: ClusterCatalog = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata: { name: 'ops', generation: 1, resourceVersion: '1' },
  spec: { source: { type: 'Image', image: { ref: 'r/x:y' } } },
} as ClusterCatalog;

const with_ = (meta: Partial<ClusterCatalog['metadata']>, status?: ClusterCatalog['status']) =>
  ({
    ...base,
    metadata: { ...base.metadata, ...meta },
    ...(status && { status }),
  }) as ClusterCatalog;

describe('catalogNeedsReconcile', () => {
  it('ignores status-only updates (the controller’s own writes)', () => {
    expect(
      catalogNeedsReconcile(base, with_({ resourceVersion: '2' }, { objectCount: 3 })),
    ).to.equal(false);
  });

  it('reconciles spec changes, deletion, and lost label or finalizer', () => {
    expect(catalogNeedsReconcile(base, with_({ generation: 2 }))).to.equal(true);
    expect(
      catalogNeedsReconcile(base, with_({ deletionTimestamp: '2026-01-01T00:00:00Z' })),
    ).to.equal(true);
    expect(
      catalogNeedsReconcile(
        with_({ labels: { 'olm.operatorframework.io/metadata.name': 'ops' } }),
        base,
      ),
    ).to.equal(true);
    expect(catalogNeedsReconcile(base, with_({ finalizers: ['f'] }))).to.equal(true);
  });
});
