import { expect } from 'chai';
import type { ClusterCatalog } from '../../../api/v1/index.js';
import { digestToEvict, servedDigests } from './image-cache.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const cat = (name: string, specRef: string, resolved?: string): ClusterCatalog =>
  ({
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref: specRef } } },
    ...(resolved && { status: { resolvedSource: { type: 'Image', image: { ref: resolved } } } }),
  }) as ClusterCatalog;

describe('digestToEvict', () => {
  it('evicts the deleted catalog’s digest when no other catalog uses it', () => {
    expect(
      digestToEvict('a', [cat('a', 'r/x:1', `r/x@${D1}`), cat('b', 'r/y:1', `r/y@${D2}`)]),
    ).to.equal(D1);
  });

  it('keeps a digest another catalog resolved to or names', () => {
    expect(
      digestToEvict('a', [cat('a', 'r/x:1', `r/x@${D1}`), cat('b', 'r/x:2', `r/x@${D1}`)]),
    ).to.equal(undefined);
    expect(digestToEvict('a', [cat('a', 'r/x:1', `r/x@${D1}`), cat('b', `r/x@${D1}`)])).to.equal(
      undefined,
    );
  });

  it('reads digests as references, not as text after an @', () => {
    const tagged = `r/x:1@${D1}`;
    expect(digestToEvict('a', [cat('a', 'r/x:1', tagged), cat('b', 'r/z:1')])).to.equal(D1);
    expect(digestToEvict('a', [cat('a', 'r/x:1', 'r/x@not-a-digest')])).to.equal(undefined);
  });

  it('has nothing to evict for a catalog that never synced', () => {
    expect(digestToEvict('a', [cat('a', 'r/x:1')])).to.equal(undefined);
  });
});

describe('servedDigests', () => {
  it('keeps every catalog’s resolved digest and the latest this process resolved', () => {
    const deleting = { ...cat('c', 'r/z:1', `r/z@${D2}`) };
    deleting.metadata = { name: 'c', deletionTimestamp: '2026-01-01T00:00:00Z' };
    expect([...servedDigests([cat('a', 'r/x:1', `r/x@${D1}`), deleting], new Map())]).to.deep.equal(
      [D1],
    );
    expect([
      ...servedDigests([cat('a', 'r/x:1', `r/x@${D1}`)], new Map([['b', `r/y@${D2}`]])),
    ]).to.deep.equal([D1, D2]);
  });

  it('keeps the digest of the objects too, while HTTP serves a newer one (what a rollback pulls)', () => {
    const ahead = cat('a', 'r/x:2', `r/x@${D2}`);
    ahead.status = { ...ahead.status, objectSourceRef: `r/x@${D1}` };
    expect([...servedDigests([ahead], new Map())].sort()).to.deep.equal([D1, D2]);
  });
});
