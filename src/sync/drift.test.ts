import { expect } from 'chai';
import { isUpToDate, specEditedByOthers } from './drift.js';
import type { ExistingObject } from './plan.js';

describe('sync/drift: what counts as drift', () => {
  const have: ExistingObject = {
    name: 'a',
    uid: 'u',
    resourceVersion: '1',
    fingerprint: 'f',
    ownerUid: 'owner',
    deleting: false,
  };

  it('an owned object with the desired fingerprint and no hand edit is up to date', () => {
    expect(isUpToDate('f', have, 'owner')).to.equal(true);
    expect(isUpToDate('g', have, 'owner')).to.equal(false);
    expect(isUpToDate('f', have, 'other')).to.equal(false);
    expect(isUpToDate('f', { ...have, deleting: true }, 'owner')).to.equal(false);
    expect(isUpToDate('f', { ...have, specEditedByOthers: true }, 'owner')).to.equal(false);
  });

  it('a hand edit is spec fields owned by another field manager', () => {
    const spec = { 'f:spec': {} };
    expect(specEditedByOthers(undefined, 'me')).to.equal(false);
    expect(specEditedByOthers([{ manager: 'me', fieldsV1: spec }], 'me')).to.equal(false);
    expect(
      specEditedByOthers([{ manager: 'kubectl', fieldsV1: { 'f:metadata': {} } }], 'me'),
    ).to.equal(false);
    expect(specEditedByOthers([{ manager: 'kubectl', fieldsV1: spec }], 'me')).to.equal(true);
  });
});
