import { expect } from 'chai';
import type { ClusterCatalog } from '../../api/v1/index.js';
import type { ReplicaContent } from './replicate.js';
import { revisionBaseUrl } from '../../api/v1/index.js';
import { replicateContent } from './replicate.js';

const HASH = `sha256:${'c'.repeat(64)}`;
const NEW_HASH = `sha256:${'e'.repeat(64)}`;
const BASE = 'http://catalogd.example/catalogs/ops';
const REF = `registry.example/ops/catalog@sha256:${'d'.repeat(64)}`;

function catalog(over: Partial<ClusterCatalog> = {}): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'ops' },
    spec: { source: { type: 'Image', image: { ref: 'registry.example/ops/catalog:latest' } } },
    status: {
      contentHash: HASH,
      urls: { base: revisionBaseUrl(BASE, HASH) },
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
    prepare: async () => {
      calls.push('prepare');
      return HASH;
    },
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
      `publish ops ${'c'.repeat(16)} /d 2026-01-01T00:00:00.000Z`,
    ]);
  });

  it("learns the revision from status.urls.base, which upstream's CRD keeps", async () => {
    // What survives upstream's ClusterCatalog CRD: no contentHash, a newer revision in urls.base.
    const pruned = catalog();
    pruned.status = {
      urls: { base: revisionBaseUrl(BASE, NEW_HASH) },
      resolvedSource: { type: 'Image', image: { ref: REF } },
      lastUnpacked: '2026-01-01T00:00:00Z',
    };
    const r = replica(HASH);
    await replicateContent('ops', pruned, r.deps);
    expect(r.calls).to.deep.equal([
      `pull ${REF}`,
      `publish ops ${'e'.repeat(16)} /d 2026-01-01T00:00:00.000Z`,
    ]);
    // A stale contentHash beside it (our CRD, written before the URL) does not win either.
    const both = catalog();
    both.status!.urls = { base: revisionBaseUrl(BASE, NEW_HASH) };
    const again = replica(HASH);
    await replicateContent('ops', both, again.deps);
    expect(again.calls[1]).to.equal(`publish ops ${'e'.repeat(16)} /d 2026-01-01T00:00:00.000Z`);
    // Served already: nothing to do.
    const done = replica(NEW_HASH);
    await replicateContent('ops', pruned, done.deps);
    expect(done.calls).to.deep.equal([]);
  });

  it('a status written before revision URLs: its contentHash', async () => {
    const legacy = catalog();
    legacy.status!.urls = { base: BASE };
    const r = replica();
    await replicateContent('ops', legacy, r.deps);
    expect(r.calls[1]).to.equal(`publish ops ${HASH} /d 2026-01-01T00:00:00.000Z`);
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
