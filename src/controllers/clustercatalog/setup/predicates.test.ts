import { expect } from 'chai';
import type { ClusterCatalog } from '../../../api/v1/index.js';
import type { CatalogMetadataMeta } from './predicates.js';
import {
  attemptMootBecause,
  catalogMetadataAdded,
  catalogMetadataChanged,
  catalogMetadataRef,
  catalogNeedsReconcile,
  owningCatalog,
} from './predicates.js';

const base: ClusterCatalog = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata: { name: 'ops', generation: 1, resourceVersion: '1' },
  spec: { source: { type: 'Image', image: { ref: 'r/x:y' } } },
};

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
  const meta: CatalogMetadataMeta = {
    name: 'ops-x',
    resourceVersion: '7',
    generation: 1,
    labels: { catalog: 'ops', schema: 'olm.package' },
    annotations: { 'olm.operatorframework.io/content-hash': 'sha256:a', note: 'x' },
    ownerReferences: [{ name: 'ops-owner', controller: true }],
    managedFields: [
      { manager: 'catalogd-ts', time: '2026-01-01T00:00:00Z' },
      { manager: 'kubectl-edit', time: '2026-01-01T00:00:05Z' },
    ],
  };
  const ref = (m: Partial<CatalogMetadataMeta>) =>
    catalogMetadataRef({ ...meta, ...m }, 'catalogd-ts');
  const obj = ref({});

  it('keeps only the name, owner, a fingerprint and who wrote last', () => {
    expect(Object.keys(obj).sort()).to.deep.equal([
      'catalog',
      'fingerprint',
      'generation',
      'metadata',
      'writtenByController',
    ]);
    expect(obj.metadata).to.deep.equal({ name: 'ops-x', resourceVersion: '7' });
    expect(obj.fingerprint).to.have.length(22);
    expect(obj.writtenByController).to.equal(false);
    expect(
      ref({ managedFields: [{ manager: 'catalogd-ts', time: 'z' }] }).writtenByController,
    ).to.equal(true);
    // Times are to the second: another manager's write in the controller's second is drift.
    const at = (a: string, b: string) =>
      ref({
        managedFields: [
          { manager: 'catalogd-ts', time: a },
          { manager: 'kubectl-patch', time: b },
        ],
      }).writtenByController;
    expect(at('2026-01-01T00:00:02Z', '2026-01-01T00:00:01Z')).to.equal(true);
    expect(at('2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z')).to.equal(false);
    expect(at('2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z')).to.equal(false);
  });

  it('maps an object to its controller owner, else to its catalog label (an orphan)', () => {
    expect(owningCatalog(obj)).to.equal('ops-owner');
    expect(owningCatalog(ref({ ownerReferences: [] }))).to.equal('ops');
    expect(owningCatalog(catalogMetadataRef({ name: 'x' }, 'catalogd-ts'))).to.equal(undefined);
  });

  it('reacts to spec, label, content-hash and owner changes, not to other annotations', () => {
    expect(catalogMetadataChanged(obj, ref({ generation: 2 }))).to.equal(true);
    expect(
      catalogMetadataChanged(obj, ref({ labels: { catalog: 'ops', schema: 'olm.channel' } })),
    ).to.equal(true);
    expect(catalogMetadataChanged(obj, ref({ annotations: {} }))).to.equal(true);
    expect(catalogMetadataChanged(obj, ref({ ownerReferences: [] }))).to.equal(true);
    expect(
      catalogMetadataChanged(obj, ref({ annotations: { ...meta.annotations, note: 'y' } })),
    ).to.equal(false);
    expect(catalogMetadataChanged(obj, ref({ resourceVersion: '8' }))).to.equal(false);
  });

  it('ignores objects the controller created, not others', () => {
    expect(catalogMetadataAdded(obj)).to.equal(true);
    expect(
      catalogMetadataAdded(ref({ managedFields: [{ manager: 'catalogd-ts', time: 'z' }] })),
    ).to.equal(false);
  });

  it('ignores the controller’s own writes', () => {
    const ours = ref({ generation: 2, managedFields: [{ manager: 'catalogd-ts', time: 'z' }] });
    expect(catalogMetadataChanged(obj, ours)).to.equal(false);
  });
});

describe('attemptMootBecause', () => {
  it('a new generation or a deletion makes the attempt in flight moot; other updates do not', () => {
    expect(attemptMootBecause(base, with_({ generation: 2 }))).to.equal('spec changed');
    expect(attemptMootBecause(base, with_({ deletionTimestamp: '2026-01-01T00:00:00Z' }))).to.equal(
      'being deleted',
    );
    expect(attemptMootBecause(base, with_({ resourceVersion: '2' }, { objectCount: 3 }))).to.equal(
      undefined,
    );
    expect(attemptMootBecause(base, with_({ annotations: { a: 'b' } }))).to.equal(undefined);
  });
});
