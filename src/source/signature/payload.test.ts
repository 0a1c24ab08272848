// What a signed identity satisfies, for each signedIdentity type (containers/image semantics).
import { expect } from 'chai';
import { parseReference } from '../reference.js';
import { identityMatches, parseSimpleSigning } from './payload.js';
import { payloadFor } from '../../../test/support/signatures.js';

const D = `sha256:${'a'.repeat(64)}`;
const byDigest = parseReference(`quay.io/team/cat@${D}`);
const byTag = parseReference('quay.io/team/cat:v1');

describe('signed identity', () => {
  it('reads the claims of a cosign payload, and nothing from another document', () => {
    expect(parseSimpleSigning(payloadFor('quay.io/team/cat', D))).to.deep.equal({
      digest: D,
      dockerReference: 'quay.io/team/cat',
    });
    expect(parseSimpleSigning(Buffer.from('{"critical":{}}'))).to.equal(undefined);
    expect(parseSimpleSigning(Buffer.from('not json'))).to.equal(undefined);
  });

  it('matchRepoDigestOrExact: the repository for a digest, the exact tag for a tag', () => {
    const id = { type: 'matchRepoDigestOrExact' } as const;
    expect(identityMatches(id, byDigest, 'quay.io/team/cat')).to.equal(true);
    expect(identityMatches(id, byDigest, 'quay.io/team/dog')).to.equal(false);
    expect(identityMatches(id, byTag, 'quay.io/team/cat:v1')).to.equal(true);
    expect(identityMatches(id, byTag, 'quay.io/team/cat:v2')).to.equal(false);
    expect(identityMatches(id, byTag, 'quay.io/team/cat')).to.equal(false);
  });

  it('matchRepository ignores tags; matchExact wants the same tag or digest', () => {
    expect(identityMatches({ type: 'matchRepository' }, byTag, 'quay.io/team/cat:v9')).to.equal(
      true,
    );
    expect(identityMatches({ type: 'matchExact' }, byTag, 'quay.io/team/cat:v1')).to.equal(true);
    expect(identityMatches({ type: 'matchExact' }, byDigest, 'quay.io/team/cat')).to.equal(false);
  });

  it('exactReference and exactRepository compare with the policy, not the image', () => {
    const ref = { type: 'exactReference', dockerReference: 'upstream.io/cat:v1' } as const;
    expect(identityMatches(ref, byDigest, 'upstream.io/cat:v1')).to.equal(true);
    expect(identityMatches(ref, byDigest, 'upstream.io/cat:v2')).to.equal(false);
    const repo = { type: 'exactRepository', dockerRepository: 'upstream.io/cat' } as const;
    expect(identityMatches(repo, byDigest, 'upstream.io/cat')).to.equal(true);
    expect(identityMatches(repo, byDigest, 'quay.io/team/cat')).to.equal(false);
  });

  it('normalizes Docker Hub names as Docker does', () => {
    const hub = parseReference(`docker.io/library/busybox@${D}`);
    expect(identityMatches({ type: 'matchRepository' }, hub, 'busybox')).to.equal(true);
    expect(
      identityMatches({ type: 'matchRepository' }, hub, 'index.docker.io/library/busybox'),
    ).to.equal(true);
  });
});
