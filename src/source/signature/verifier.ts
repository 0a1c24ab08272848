// Verifying an image's signatures against the policy, on its resolved digest, before any of its
// layers (or its config) is fetched: the requirements of the most specific scope; for
// sigstoreSigned, cosign signatures looked up at the `sha256-<hex>.sig` tag (simple signing) and
// in the digest's OCI 1.1 referrers (sigstore bundles; the `sha256-<hex>` tag when the registry
// has no referrers API). Every signature found is bounded in count and size. A digest verified
// under the current policy is remembered (bounded), so a poll that finds the same digest costs
// no request; a new policy forgets them all.
import { digestOf } from '../digest.js';
import type { Descriptor } from '../manifest.js';
import { referenceName, withDigest, type ImageReference } from '../reference.js';
import { findSourceError, SourceError, unlessNotFound } from '../errors.js';
import { isBundleMediaType, parseBundle } from './bundle.js';
import { verifySignature } from './keys.js';
import {
  describeIdentity,
  identityMatches,
  parseSimpleSigning,
  SIGNATURE_ANNOTATION,
} from './payload.js';
import {
  requirementsFor,
  type PolicyKey,
  type Requirement,
  type SignaturePolicy,
} from './policy.js';

/** Where an image's signatures are read from: one registry endpoint (the puller's). */
export interface SignatureSource {
  /** The manifest under tag (undefined when the tag does not exist). */
  taggedManifest(tag: string, what: string): Promise<{ bytes: Buffer } | undefined>;
  /** The digest's referrers index (undefined when the registry has no referrers API). */
  referrers(digest: string, what: string): Promise<Buffer | undefined>;
  /** A manifest's bytes by digest (verified against it). */
  manifest(digest: string, what: string): Promise<Buffer>;
  /** A blob's bytes, verified against desc, at most limit bytes. */
  blob(desc: Descriptor, what: string, limit: number): Promise<Buffer>;
}

export interface SignatureLimits {
  /** Signatures (layers of the .sig manifest, bundles among the referrers) looked at per image. */
  maxSignatures: number;
  /** Size of one simple-signing payload. */
  maxPayloadBytes: number;
  /** Size of one sigstore bundle. */
  maxBundleBytes: number;
  /** Digests remembered as verified under the current policy. */
  maxVerifiedDigests: number;
}

const defaultSignatureLimits: SignatureLimits = {
  maxSignatures: 16,
  maxPayloadBytes: 64 * 1024,
  maxBundleBytes: 1024 * 1024,
  maxVerifiedDigests: 4096,
};

export const verificationResults = [
  'verified',
  'cached',
  'accepted',
  'rejected',
  'no-signature',
  'wrong-key',
  'digest-mismatch',
  'identity-mismatch',
  'error',
] as const;

export type VerificationResult = (typeof verificationResults)[number];

/** One signature found: what it signs, the bytes signed, and the signature. */
interface Candidate {
  /** Bytes the signature is over. */
  signed: Buffer;
  signatures: Buffer[];
  /** The manifest digest it claims (undefined: a message signature over the manifest). */
  digest: string;
  /** The docker reference it names (undefined: it names none, e.g. a bundle's subject). */
  dockerReference: string | undefined;
  /** A signature over bytes not at hand (a message signature of another manifest). */
  unverifiable?: true;
}

/** Failure kinds, weakest first: the strongest found is the one reported. */
const failureRank: VerificationResult[] = [
  'no-signature',
  'wrong-key',
  'digest-mismatch',
  'identity-mismatch',
];

export class SignatureRejected extends SourceError {
  constructor(
    readonly result: VerificationResult,
    message: string,
  ) {
    super('SignatureRejected', message);
  }
}

export class SignatureVerifier {
  readonly counts: Record<VerificationResult, number> = Object.fromEntries(
    verificationResults.map((r) => [r, 0]),
  ) as Record<VerificationResult, number>;
  private readonly limits: SignatureLimits;
  private verified = new Set<string>();
  private verifiedUnder: SignaturePolicy | undefined;

  constructor(
    private readonly policy: () => SignaturePolicy,
    limits: Partial<SignatureLimits> = {},
  ) {
    this.limits = { ...defaultSignatureLimits, ...limits };
  }

  /**
   * Checks image@digest against the policy; throws SignatureRejected (or a source error when no
   * endpoint could be read). sources: the endpoints to read signatures from, in order.
   */
  async verify(image: ImageReference, digest: string, sources: SignatureSource[]): Promise<void> {
    const result = await this.check(image, digest, sources).catch((err: unknown) => {
      this.counts[err instanceof SignatureRejected ? err.result : 'error']++;
      throw err;
    });
    this.counts[result]++;
  }

  private async check(
    image: ImageReference,
    digest: string,
    sources: SignatureSource[],
  ): Promise<VerificationResult> {
    const policy = this.policy();
    if (policy !== this.verifiedUnder) {
      this.verified = new Set();
      this.verifiedUnder = policy;
    }
    const pinned = withDigest(image, digest);
    const { scope, requirements } = requirementsFor(policy, pinned);
    if (requirements.some((r) => r.type === 'reject'))
      throw new SignatureRejected(
        'rejected',
        `rejected by the signature policy (scope ${scope} requires "reject")`,
      );
    const signed = requirements.filter(
      (r): r is Extract<Requirement, { type: 'sigstoreSigned' }> => r.type === 'sigstoreSigned',
    );
    if (signed.length === 0) return 'accepted';
    const key = `${referenceName(image)}@${digest}`;
    if (this.verified.has(key)) return 'cached';

    let best: { result: VerificationResult; message: string } | undefined;
    let lastError: Error | undefined;
    let answered = false;
    for (const source of sources) {
      let candidates: Candidate[];
      try {
        candidates = await this.find(source, digest);
      } catch (err) {
        if (!findSourceError(err)) throw err;
        lastError = err as Error;
        continue;
      }
      answered = true;
      const failure = this.evaluate(signed, candidates, pinned, digest, scope);
      if (!failure) {
        this.remember(key);
        return 'verified';
      }
      if (!best || failureRank.indexOf(failure.result) > failureRank.indexOf(best.result))
        best = failure;
    }
    if (!answered && lastError) throw lastError;
    const failure = best ?? this.evaluate(signed, [], pinned, digest, scope)!;
    throw new SignatureRejected(failure.result, failure.message);
  }

  private remember(key: string): void {
    if (this.verified.size >= this.limits.maxVerifiedDigests) {
      const oldest = this.verified.values().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.add(key);
  }

  /** The first requirement no candidate satisfies, as the failure to report; undefined: all are. */
  private evaluate(
    requirements: Extract<Requirement, { type: 'sigstoreSigned' }>[],
    candidates: Candidate[],
    image: ImageReference,
    digest: string,
    scope: string,
  ): { result: VerificationResult; message: string } | undefined {
    for (const req of requirements) {
      let failure: { result: VerificationResult; message: string } = {
        result: 'no-signature',
        message:
          `no signature found for ${digest} (scope ${scope} requires sigstoreSigned; looked for ` +
          `the sha256-<hex>.sig tag and OCI referrers)`,
      };
      let satisfied = false;
      for (const c of candidates) {
        const key = signingKey(req.keys, c);
        let f: { result: VerificationResult; message: string };
        if (c.unverifiable)
          f = {
            result: 'digest-mismatch',
            message: `payload digest mismatch: a signature bundle is for ${c.digest}, not ${digest}`,
          };
        else if (!key)
          f = {
            result: 'wrong-key',
            message:
              `signed by another key: none of the ${candidates.length} signature(s) of ${digest} ` +
              `verifies with the key(s) of scope ${scope}`,
          };
        else if (c.digest !== digest)
          f = {
            result: 'digest-mismatch',
            message: `payload digest mismatch: the signature by ${key.source} is for ${c.digest}, not ${digest}`,
          };
        else if (
          c.dockerReference !== undefined &&
          !identityMatches(req.signedIdentity, image, c.dockerReference)
        )
          f = {
            result: 'identity-mismatch',
            message:
              `identity mismatch: the signature by ${key.source} names ${c.dockerReference}, the ` +
              `policy requires ${describeIdentity(req.signedIdentity, image)}`,
          };
        else {
          satisfied = true;
          break;
        }
        if (failureRank.indexOf(f.result) > failureRank.indexOf(failure.result)) failure = f;
      }
      if (!satisfied) return failure;
    }
    return undefined;
  }

  /** The signatures of digest at one endpoint (.sig tag, then referrers), bounded. */
  private async find(source: SignatureSource, digest: string): Promise<Candidate[]> {
    const tag = digest.replace(':', '-');
    const out: Candidate[] = [];
    const sig = await source.taggedManifest(`${tag}.sig`, `signatures of ${digest}`);
    if (sig) {
      for (const layer of layersOf(sig.bytes).slice(0, this.limits.maxSignatures)) {
        const annotation = layer.annotations?.[SIGNATURE_ANNOTATION];
        if (typeof annotation !== 'string') continue;
        const payload = await unlessNotFound(
          source.blob(layer, `signature payload of ${digest}`, this.limits.maxPayloadBytes),
        );
        const claims = payload && parseSimpleSigning(payload);
        if (!payload || !claims) continue;
        out.push({
          signed: payload,
          signatures: [Buffer.from(annotation, 'base64')],
          digest: claims.digest,
          dockerReference: claims.dockerReference,
        });
      }
    }
    const index =
      (await source.referrers(digest, `referrers of ${digest}`)) ??
      (await source.taggedManifest(tag, `referrers tag of ${digest}`))?.bytes;
    if (index) {
      const bundles = manifestsOf(index)
        // cosign 2.6 lists its bundles with the artifactType of their (empty) config: the
        // manifest's layer says what it is.
        .filter(
          (d) =>
            d.artifactType === undefined ||
            d.artifactType === EMPTY_CONFIG ||
            isBundleMediaType(d.artifactType),
        )
        .slice(0, this.limits.maxSignatures);
      for (const d of bundles) {
        const m = await unlessNotFound(source.manifest(d.digest, `signature bundle of ${digest}`));
        const layer = m && layersOf(m).find((l) => isBundleMediaType(l.mediaType));
        if (!layer) continue;
        const bytes = await unlessNotFound(
          source.blob(layer, `signature bundle of ${digest}`, this.limits.maxBundleBytes),
        );
        const bundle = bytes && parseBundle(bytes);
        if (bundle?.kind === 'dsse') {
          const subject =
            bundle.subjects.find((s) => `sha256:${s.sha256}` === digest) ?? bundle.subjects[0];
          out.push({
            signed: bundle.signed,
            signatures: bundle.signatures,
            digest: subject?.sha256 ? `sha256:${subject.sha256}` : 'no subject digest',
            dockerReference: undefined,
          });
        } else if (bundle?.kind === 'message') {
          // Signed over the manifest itself: only this image's manifest can be checked against
          // the key; a bundle for another digest is a digest mismatch whoever signed it.
          const matches = bundle.digest === digest;
          const manifest = matches
            ? await source.manifest(digest, `manifest of ${digest}`)
            : undefined;
          out.push({
            signed: manifest ?? Buffer.alloc(0),
            signatures: [bundle.signature],
            digest: manifest ? digestOf(manifest) : bundle.digest,
            dockerReference: undefined,
            ...(!matches && { unverifiable: true }),
          });
        }
      }
    }
    return out;
  }
}

function signingKey(keys: PolicyKey[], c: Candidate): PolicyKey | undefined {
  return keys.find((k) => c.signatures.some((s) => verifySignature(k.key, c.signed, s)));
}

type ArtifactDescriptor = Descriptor & { artifactType?: string };

const EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';

function parseJson(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function descriptors(v: unknown): ArtifactDescriptor[] {
  if (!Array.isArray(v)) return [];
  return v.filter(
    (d): d is ArtifactDescriptor =>
      typeof d === 'object' &&
      d !== null &&
      typeof (d as Descriptor).digest === 'string' &&
      /^sha256:[a-f0-9]{64}$/.test((d as Descriptor).digest) &&
      typeof (d as Descriptor).size === 'number',
  );
}

function layersOf(manifest: Buffer): ArtifactDescriptor[] {
  return descriptors(parseJson(manifest)?.layers);
}

function manifestsOf(index: Buffer): ArtifactDescriptor[] {
  return descriptors(parseJson(index)?.manifests);
}
