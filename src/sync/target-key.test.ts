import { expect } from 'chai';
import type { SyncTarget } from './engine.js';
import { syncTargetKey } from './target-key.js';

const target: SyncTarget = {
  catalog: { name: 'ops', uid: 'uid-1' },
  dir: '/cache/a/configs',
  maxObjectBytes: 1000,
  contentUrl: (b) => `http://content/catalogs/ops/api/v1/metas?name=${b.name ?? ''}`,
};

describe('sync/target-key: syncTargetKey', () => {
  it('is the same for the same options wherever the catalog is unpacked', () => {
    expect(syncTargetKey({ ...target, dir: '/elsewhere' })).to.equal(syncTargetKey(target));
  });

  it('changes with the owner, the size limit and the content URL', () => {
    const key = syncTargetKey(target);
    expect(syncTargetKey({ ...target, catalog: { name: 'ops', uid: 'uid-2' } })).to.not.equal(key);
    expect(syncTargetKey({ ...target, maxObjectBytes: 2000 })).to.not.equal(key);
    expect(
      syncTargetKey({ ...target, contentUrl: (b) => `http://moved/${b.name ?? ''}` }),
    ).to.not.equal(key);
  });

  it('changes with a field it was never told about (an option added to SyncTarget later)', () => {
    const withProfile = { ...target, contentProfile: 'lean' } as SyncTarget;
    expect(syncTargetKey(withProfile)).to.not.equal(syncTargetKey(target));
  });
});
