// The verifier against signatures written by an independent signer (test/support/signatures.ts):
// a good simple signature of each key kind, tampered payload, another key, another digest,
// another identity, sigstore bundles (DSSE, messageSignature) by referrers API and fallback tag,
// the policy's reject and accept, the bound on signatures and the memory of verified digests.
import { expect } from 'chai';
import {
  cosignSign,
  dsseBundle,
  FakeSignatureRegistry,
  messageBundle,
  payloadFor,
  sha256,
  testKey,
  type TestKey,
} from '../../../test/support/signatures.js';
import { findSourceError } from '../errors.js';
import { parseReference } from '../reference.js';
import { parseSignaturePolicy, type SignaturePolicy } from './policy.js';
import { SignatureRejected, SignatureVerifier } from './verifier.js';

const manifest = Buffer.from('{"schemaVersion":2,"layers":[]}');
const DIGEST = sha256(manifest);
const OTHER = sha256('another image');
const IMAGE = parseReference(`reg.example/team/cat@${DIGEST}`);

async function policyFor(key: TestKey, identity?: object): Promise<SignaturePolicy> {
  return parseSignaturePolicy(
    JSON.stringify({
      default: [{ type: 'reject' }],
      transports: {
        docker: {
          'reg.example/team': [
            {
              type: 'sigstoreSigned',
              keyData: Buffer.from(key.publicPem).toString('base64'),
              ...(identity && { signedIdentity: identity }),
            },
          ],
          'reg.example/open': [{ type: 'insecureAcceptAnything' }],
        },
      },
    }),
    () => Promise.reject(new Error('no files')),
  );
}

async function outcome(v: SignatureVerifier, reg: FakeSignatureRegistry, image = IMAGE) {
  try {
    await v.verify(image, image.digest ?? DIGEST, [reg]);
    return 'ok';
  } catch (err) {
    expect(err).to.be.instanceOf(SignatureRejected);
    return (err as SignatureRejected).message;
  }
}

describe('signature verifier', () => {
  const key = testKey('p256');
  const other = testKey('p256');

  for (const kind of ['p256', 'rsa', 'ed25519'] as const)
    it(`accepts a simple signature by the policy's ${kind} key`, async () => {
      const k = kind === 'p256' ? key : testKey(kind);
      const reg = new FakeSignatureRegistry();
      const payload = payloadFor('reg.example/team/cat', DIGEST);
      reg.addSimpleSignatures(DIGEST, [{ payload, signature: cosignSign(k, payload) }]);
      const v = new SignatureVerifier(
        await (
          async (p) => () =>
            p
        )(await policyFor(k)),
      );
      expect(await outcome(v, reg)).to.equal('ok');
      expect(v.counts.verified).to.equal(1);
    });

  it('refuses a tampered payload as signed by another key', async () => {
    const reg = new FakeSignatureRegistry();
    const payload = payloadFor('reg.example/team/cat', DIGEST);
    const signature = cosignSign(key, payloadFor('reg.example/team/cat', OTHER));
    reg.addSimpleSignatures(DIGEST, [{ payload, signature }]);
    const policy = await policyFor(key);
    const v = new SignatureVerifier(() => policy);
    expect(await outcome(v, reg)).to.equal(
      `signed by another key: none of the 1 signature(s) of ${DIGEST} verifies with the key(s) of scope reg.example/team`,
    );
    expect(v.counts['wrong-key']).to.equal(1);
  });

  it('refuses a signature by another key', async () => {
    const reg = new FakeSignatureRegistry();
    const payload = payloadFor('reg.example/team/cat', DIGEST);
    reg.addSimpleSignatures(DIGEST, [{ payload, signature: cosignSign(other, payload) }]);
    const policy = await policyFor(key);
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.match(
      /^signed by another key: /,
    );
  });

  it('refuses a payload for another digest, even when correctly signed', async () => {
    const reg = new FakeSignatureRegistry();
    const payload = payloadFor('reg.example/team/cat', OTHER);
    reg.addSimpleSignatures(DIGEST, [{ payload, signature: cosignSign(key, payload) }]);
    const policy = await policyFor(key);
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal(
      `payload digest mismatch: the signature by keyData is for ${OTHER}, not ${DIGEST}`,
    );
  });

  it('refuses a payload naming another repository (matchRepoDigestOrExact by default)', async () => {
    const reg = new FakeSignatureRegistry();
    const payload = payloadFor('reg.example/team/elsewhere', DIGEST);
    reg.addSimpleSignatures(DIGEST, [{ payload, signature: cosignSign(key, payload) }]);
    const policy = await policyFor(key);
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal(
      'identity mismatch: the signature by keyData names reg.example/team/elsewhere, the policy ' +
        'requires repository reg.example/team/cat (matchRepoDigestOrExact)',
    );
  });

  it('accepts another repository when the policy names it (exactRepository)', async () => {
    const reg = new FakeSignatureRegistry();
    const payload = payloadFor('upstream.example/cat', DIGEST);
    reg.addSimpleSignatures(DIGEST, [{ payload, signature: cosignSign(key, payload) }]);
    const policy = await policyFor(key, {
      type: 'exactRepository',
      dockerRepository: 'upstream.example/cat',
    });
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal('ok');
  });

  it('reports the strongest failure among several signatures, and accepts when one is good', async () => {
    const reg = new FakeSignatureRegistry();
    const wrongDigest = payloadFor('reg.example/team/cat', OTHER);
    const byOther = payloadFor('reg.example/team/cat', DIGEST);
    reg.addSimpleSignatures(DIGEST, [
      { payload: byOther, signature: cosignSign(other, byOther) },
      { payload: wrongDigest, signature: cosignSign(key, wrongDigest) },
    ]);
    const policy = await policyFor(key);
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.match(
      /^payload digest mismatch/,
    );
    const good = payloadFor('reg.example/team/cat', DIGEST);
    reg.addSimpleSignatures(DIGEST, [
      { payload: byOther, signature: cosignSign(other, byOther) },
      { payload: good, signature: cosignSign(key, good) },
    ]);
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal('ok');
  });

  it('skips a signature whose payload blob is gone, and uses the others', async () => {
    const reg = new FakeSignatureRegistry();
    const gone = payloadFor('reg.example/team/gone', DIGEST);
    const payload = payloadFor('reg.example/team/cat', DIGEST);
    reg.addSimpleSignatures(DIGEST, [
      { payload: gone, signature: cosignSign(key, gone) },
      { payload, signature: cosignSign(key, payload) },
    ]);
    reg.blobs.delete(sha256(gone));
    const policy = await policyFor(key);
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal('ok');
  });

  it('refuses an unsigned digest, naming what it looked for', async () => {
    const policy = await policyFor(key);
    const v = new SignatureVerifier(() => policy);
    expect(await outcome(v, new FakeSignatureRegistry())).to.equal(
      `no signature found for ${DIGEST} (scope reg.example/team requires sigstoreSigned; looked ` +
        'for the sha256-<hex>.sig tag and OCI referrers)',
    );
    expect(v.counts['no-signature']).to.equal(1);
  });

  it('refuses what the policy rejects without a request, and accepts insecureAcceptAnything', async () => {
    const policy = await policyFor(key);
    const v = new SignatureVerifier(() => policy);
    const reg = new FakeSignatureRegistry();
    const elsewhere = parseReference(`other.example/x@${DIGEST}`);
    expect(await outcome(v, reg, elsewhere)).to.equal(
      'rejected by the signature policy (scope default requires "reject")',
    );
    expect(await outcome(v, reg, parseReference(`reg.example/open/x@${DIGEST}`))).to.equal('ok');
    expect(reg.requests).to.deep.equal([]);
    expect(v.counts).to.include({ rejected: 1, accepted: 1 });
  });

  for (const api of [true, false])
    it(`accepts a DSSE bundle by the key ${api ? 'in the referrers API' : 'under the referrers tag'}`, async () => {
      const reg = new FakeSignatureRegistry();
      if (api) reg.referrersApi = new Map();
      // cosign 2.6 lists its bundles with the empty config's artifact type.
      reg.addBundle(DIGEST, dsseBundle(key, DIGEST), 'application/vnd.oci.empty.v1+json');
      const policy = await policyFor(key);
      expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal('ok');
      expect(reg.requests.some((r) => r === `manifest ${DIGEST.replace(':', '-')}`)).to.equal(!api);
    });

  it('refuses a DSSE bundle for another digest, and one by another key', async () => {
    const policy = await policyFor(key);
    const reg = new FakeSignatureRegistry();
    reg.addBundle(DIGEST, dsseBundle(key, OTHER), 'application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.match(
      /^payload digest mismatch: /,
    );
    const reg2 = new FakeSignatureRegistry();
    reg2.addBundle(
      DIGEST,
      dsseBundle(other, DIGEST),
      'application/vnd.dev.sigstore.bundle.v0.3+json',
    );
    expect(await outcome(new SignatureVerifier(() => policy), reg2)).to.match(
      /^signed by another key: /,
    );
  });

  it('accepts a messageSignature bundle over the manifest, refuses one over another', async () => {
    const policy = await policyFor(key);
    const reg = new FakeSignatureRegistry();
    reg.manifests.set(DIGEST, manifest);
    reg.addBundle(
      DIGEST,
      messageBundle(key, manifest),
      'application/vnd.dev.sigstore.bundle.v0.3+json',
    );
    expect(await outcome(new SignatureVerifier(() => policy), reg)).to.equal('ok');
    const reg2 = new FakeSignatureRegistry();
    reg2.manifests.set(DIGEST, manifest);
    reg2.addBundle(
      DIGEST,
      messageBundle(key, Buffer.from('{}')),
      'application/vnd.dev.sigstore.bundle.v0.3+json',
    );
    expect(await outcome(new SignatureVerifier(() => policy), reg2)).to.match(
      /^payload digest mismatch: /,
    );
  });

  it('remembers a verified digest until the policy changes', async () => {
    const reg = new FakeSignatureRegistry();
    const payload = payloadFor('reg.example/team/cat', DIGEST);
    reg.addSimpleSignatures(DIGEST, [{ payload, signature: cosignSign(key, payload) }]);
    let policy = await policyFor(key);
    const v = new SignatureVerifier(() => policy);
    expect(await outcome(v, reg)).to.equal('ok');
    const first = reg.requests.length;
    expect(await outcome(v, reg)).to.equal('ok');
    expect(reg.requests.length).to.equal(first);
    expect(v.counts.cached).to.equal(1);
    policy = await policyFor(other);
    expect(await outcome(v, reg)).to.match(/^signed by another key/);
  });

  it('looks at no more than maxSignatures signatures', async () => {
    const reg = new FakeSignatureRegistry();
    const bad = payloadFor('reg.example/team/cat', DIGEST);
    const sigs = Array.from({ length: 5 }, () => ({
      payload: bad,
      signature: cosignSign(other, bad),
    }));
    sigs.push({ payload: bad, signature: cosignSign(key, bad) });
    reg.addSimpleSignatures(DIGEST, sigs);
    const policy = await policyFor(key);
    expect(await outcome(new SignatureVerifier(() => policy, { maxSignatures: 4 }), reg)).to.match(
      /^signed by another key: none of the 4 signature/,
    );
    expect(reg.requests.filter((r) => r.startsWith('blob')).length).to.be.at.most(4);
  });

  it('is an image content error: final under a digest, retryable under a tag', async () => {
    const policy = await policyFor(key);
    const err = await new SignatureVerifier(() => policy)
      .verify(IMAGE, DIGEST, [new FakeSignatureRegistry()])
      .catch((e: unknown) => e);
    expect(findSourceError(err)?.code).to.equal('SignatureRejected');
  });
});
