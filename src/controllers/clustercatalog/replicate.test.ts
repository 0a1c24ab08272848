import { expect } from 'chai';
import type { ClusterCatalog } from '../../api/v1/index.js';
import type { ReplicaContent } from './replicate.js';
import { replicateContent } from './replicate.js';

const HASH = `sha256:${'c'.repeat(64)}`;
const REF = `registry.example/ops/catalog@sha256:${'d'.repeat(64)}`;

function catalog(over: Partial<ClusterCatalog> = {}): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'ops' },
    spec: { source: { type: 'Image', image: { ref: 'registry.example/ops/catalog:latest' } } },
    status: {
      contentHash: HASH,
      resolvedSource: { type: 'Image', image: { ref: REF } },
      lastUnpacked: '2026-01-01T00:00:00Z',
    },
    ...over,
  };
}

function replica(served?: string) {
  const calls: string[] = [];
  const content: ReplicaContent = {
    served: () => served,
    baseUrl: () => '',
    blobUrl: () => '',
    prepare: async () => void calls.push('prepare'),
    publish: async (c, h, dir, lm) =>
      void calls.push(`publish ${c} ${h} ${dir} ${lm.toISOString()}`),
    remove: async (c) => void calls.push(`remove ${c}`),
  };
  const puller = {
    pull: async (ref: string) => (
      calls.push(`pull ${ref}`),
      { ref, digest: '', dir: '/', configsDir: '/d', cached: true }
    ),
  };
  return { calls, deps: { content, puller } };
}

describe('replicateContent', () => {
  it('pulls the digest in status and serves its content', async () => {
    const r = replica();
    await replicateContent('ops', catalog(), r.deps);
    expect(r.calls).to.deep.equal([
      `pull ${REF}`,
      `publish ops ${HASH} /d 2026-01-01T00:00:00.000Z`,
    ]);
  });

  it('does nothing when the replica already serves that content', async () => {
    const r = replica(HASH);
    await replicateContent('ops', catalog(), r.deps);
    expect(r.calls).to.deep.equal([]);
  });

  it('waits for the leader when nothing was synced yet', async () => {
    const r = replica();
    await replicateContent('ops', catalog({ status: {} }), r.deps);
    expect(r.calls).to.deep.equal([]);
  });

  it('stops serving a deleted or Unavailable catalog', async () => {
    const r = replica(HASH);
    await replicateContent('ops', undefined, r.deps);
    await replicateContent(
      'ops',
      catalog({
        spec: { source: { type: 'Image', image: { ref: 'x:y' } }, availabilityMode: 'Unavailable' },
      }),
      r.deps,
    );
    expect(r.calls).to.deep.equal(['remove ops', 'remove ops']);
  });
});
