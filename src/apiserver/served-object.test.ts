import { expect } from 'chai';
import { blobHash, canonicalize } from '../fbc/index.js';
import { blobIdentity, derivedUid } from './served-object.js';

describe('served objects', () => {
  it('derives a version 5 UUID from the catalog uid and the name, the same on every call', () => {
    const uid = derivedUid('6f1c3c1e-8d0e-4a53-9c2f-0d7e5f2a9b11', 'ops-package-p');
    expect(uid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedUid('6f1c3c1e-8d0e-4a53-9c2f-0d7e5f2a9b11', 'ops-package-p')).to.equal(uid);
    expect(derivedUid('6f1c3c1e-8d0e-4a53-9c2f-0d7e5f2a9b12', 'ops-package-p')).to.not.equal(uid);
  });

  it('tells repeated identities of a custom schema apart by hash, the first keeping the plain one', () => {
    const a = { schema: 'custom', package: 'p', name: 'n', v: 1 };
    const hash = blobHash(canonicalize(a));
    const first = blobIdentity('ops', a, hash, undefined, undefined);
    expect(first).to.deep.equal({ catalog: 'ops', schema: 'custom', package: 'p', name: 'n' });
    expect(blobIdentity('ops', a, hash, first, undefined).disambiguator).to.equal(hash.slice(7));
    const anonymous = { schema: 'custom' };
    expect(blobIdentity('ops', anonymous, hash, undefined, undefined).disambiguator).to.equal(
      hash.slice(7),
    );
  });

  it('keeps the plain identity for the blob the revision records as the parser kept it plain', () => {
    const a = { schema: 'custom', package: 'p', name: 'n', v: 1 };
    const hash = blobHash(canonicalize(a));
    const plain = { catalog: 'ops', schema: 'custom', package: 'p', name: 'n' };
    // Recorded: whatever the blob before it.
    expect(blobIdentity('ops', a, hash, plain, true)).to.deep.equal(plain);
    expect(blobIdentity('ops', a, hash, undefined, false).disambiguator).to.equal(hash.slice(7));
    // A blob without package and name is told apart by its hash all the same.
    const anonymous = { schema: 'custom' };
    expect(blobIdentity('ops', anonymous, hash, undefined, true).disambiguator).to.equal(
      hash.slice(7),
    );
  });
});
