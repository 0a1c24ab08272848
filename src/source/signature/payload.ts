// cosign's simple-signing payload (`application/vnd.dev.cosign.simplesigning.v1+json`), what it
// says (the manifest digest and the docker reference signed), and whether that identity is one a
// policy's signedIdentity accepts for the image being pulled. Pure.
import { parseReference, referenceName, type ImageReference } from '../reference.js';
import type { SignedIdentity } from './policy.js';

export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';
const COSIGN_SIGNATURE_TYPE = 'cosign container image signature';

export interface SignedClaims {
  /** critical.image.docker-manifest-digest */
  digest: string;
  /** critical.identity.docker-reference, as written. */
  dockerReference: string;
}

/** The claims of a payload, or undefined when it is not a cosign simple-signing payload. */
export function parseSimpleSigning(bytes: Buffer): SignedClaims | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const critical = (doc as { critical?: unknown } | null)?.critical as
    | {
        identity?: { 'docker-reference'?: unknown };
        image?: { 'docker-manifest-digest'?: unknown };
        type?: unknown;
      }
    | undefined;
  const digest = critical?.image?.['docker-manifest-digest'];
  const ref = critical?.identity?.['docker-reference'];
  if (typeof digest !== 'string' || typeof ref !== 'string') return undefined;
  if (typeof critical?.type === 'string' && critical.type.toLowerCase() !== COSIGN_SIGNATURE_TYPE)
    return undefined;
  return { digest, dockerReference: ref };
}

/** The payload cosign writes for an image: the repository (no tag) and the manifest digest. */
export function simpleSigningPayload(dockerReference: string, digest: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': dockerReference },
        image: { 'docker-manifest-digest': digest },
        type: COSIGN_SIGNATURE_TYPE,
      },
      optional: null,
    }),
  );
}

function parseOrUndefined(s: string): ImageReference | undefined {
  try {
    return parseReference(s);
  } catch {
    return undefined;
  }
}

/** A reference without tag/digest as the repository name alone (parseReference adds :latest). */
function repositoryOf(s: string): string | undefined {
  const r = parseOrUndefined(s);
  return r && referenceName(r);
}

function exact(r: ImageReference): string {
  return r.digest ? `${referenceName(r)}@${r.digest}` : `${referenceName(r)}:${r.tag ?? 'latest'}`;
}

/**
 * Whether the signed docker reference satisfies the policy's signedIdentity for image (the
 * reference pulled). Mirrors containers/image's PolicyReferenceMatch semantics.
 */
export function identityMatches(
  identity: SignedIdentity,
  image: ImageReference,
  signedReference: string,
): boolean {
  const signed = parseOrUndefined(signedReference);
  if (!signed) return false;
  const signedHasTagOrDigest = /[:@][^/]*$/.test(signedReference.replace(/^[^/]*\//, ''));
  switch (identity.type) {
    case 'matchRepository':
      return referenceName(signed) === referenceName(image);
    case 'matchRepoDigestOrExact':
      if (image.digest) return referenceName(signed) === referenceName(image);
      return signedHasTagOrDigest && exact(signed) === exact(image);
    case 'matchExact':
      return signedHasTagOrDigest && exact(signed) === exact(image);
    case 'exactReference':
      return (
        signedHasTagOrDigest && exact(signed) === exact(parseReference(identity.dockerReference))
      );
    case 'exactRepository':
      return referenceName(signed) === repositoryOf(identity.dockerRepository);
  }
}

/** What the identity requirement asks for, for messages. */
export function describeIdentity(identity: SignedIdentity, image: ImageReference): string {
  switch (identity.type) {
    case 'matchRepository':
      return `repository ${referenceName(image)} (matchRepository)`;
    case 'matchRepoDigestOrExact':
      return image.digest
        ? `repository ${referenceName(image)} (matchRepoDigestOrExact)`
        : `${exact(image)} (matchRepoDigestOrExact)`;
    case 'matchExact':
      return `${exact(image)} (matchExact)`;
    case 'exactReference':
      return `${identity.dockerReference} (exactReference)`;
    case 'exactRepository':
      return `repository ${identity.dockerRepository} (exactRepository)`;
  }
}
