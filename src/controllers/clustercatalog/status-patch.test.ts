import { expect } from 'chai';
import { statusPatch } from './status-patch.js';

describe('statusPatch', () => {
  it('is undefined when nothing changed, whatever the key order', () => {
    expect(
      statusPatch({ contentHash: 'a', objectCount: 1 }, { objectCount: 1, contentHash: 'a' }),
    ).to.equal(undefined);
  });

  it('sets changed fields and nulls removed ones', () => {
    expect(
      statusPatch({ syncingTo: 'x', objectCount: 1 }, { objectCount: 2, contentHash: 'c' }),
    ).to.deep.equal({ syncingTo: null, objectCount: 2, contentHash: 'c' });
  });
});
