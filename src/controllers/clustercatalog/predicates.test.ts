import { expect } from 'chai';
import type { ClusterCatalog } from '../../api/v1/index.js';
import type { CatalogMetadataRef } from './predicates.js';
import { catalogMetadataChanged, catalogNeedsReconcile, owningCatalog } from './predicates.js';

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
    expect(catalogNeedsReconcile(base, with_({ annotations: { resync: 'now' } }))).to.equal(true);
  });
});

describe('drift watch mapping', () => {
  const obj: CatalogMetadataRef = {
    metadata: {
      name: 'ops-x',
      generation: 1,
      labels: { catalog: 'ops' },
      annotations: { 'olm.operatorframework.io/content-hash': 'sha256:a' },
      ownerReferences: [{ name: 'ops-owner', controller: true }],
    },
  };

  it('maps an object to its controller owner, else to its catalog label (an orphan)', () => {
    expect(owningCatalog(obj)).to.equal('ops-owner');
    expect(owningCatalog({ metadata: { name: 'x', labels: { catalog: 'ops' } } })).to.equal('ops');
    expect(owningCatalog({ metadata: { name: 'x' } })).to.equal(undefined);
  });

  it('reacts to spec, label and content-hash changes, not to other annotations', () => {
    const edit = (m: Partial<CatalogMetadataRef['metadata']>) => ({
      metadata: { ...obj.metadata, ...m },
    });
    expect(catalogMetadataChanged(obj, edit({ generation: 2 }))).to.equal(true);
    expect(
      catalogMetadataChanged(obj, edit({ labels: { catalog: 'ops', package: 'x' } })),
    ).to.equal(true);
    expect(catalogMetadataChanged(obj, edit({ annotations: {} }))).to.equal(true);
    expect(catalogMetadataChanged(obj, edit({ name: 'ops-x' }))).to.equal(false);
  });

  it('ignores the controller’s own writes', () => {
    const ours = {
      ...obj,
      metadata: { ...obj.metadata, generation: 2 },
      writtenByController: true,
    };
    expect(catalogMetadataChanged(obj, ours)).to.equal(false);
  });
});
