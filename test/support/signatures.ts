// Test data for the signature tests, made independently of the code under test: key pairs from
// node:crypto, cosign's simple-signing payload and sigstore bundles written out by hand, and an
// in-memory registry of signature artifacts (the .sig tag, referrers, blobs) as a SignatureSource.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { SourceError } from '../../src/source/errors.js';
import type { Descriptor } from '../../src/source/manifest.js';
import type { SignatureSource } from '../../src/source/signature/verifier.js';

export interface TestKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicPem: string;
}

export function testKey(kind: 'p256' | 'rsa' | 'ed25519' = 'p256'): TestKey {
  const pair =
    kind === 'p256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : kind === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  return {
    ...pair,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export const sha256 = (b: Buffer | string) =>
  `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** Signs as cosign: SHA-256 (ECDSA DER, RSA PKCS#1 v1.5), Ed25519 over the message. */
export function cosignSign(key: TestKey, message: Buffer): string {
  const alg = key.privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
  return sign(alg, message, key.privateKey).toString('base64');
}

/** The payload `cosign sign` writes, byte for byte in its field order. */
export function payloadFor(dockerReference: string, digest: string): Buffer {
  return Buffer.from(
    `{"critical":{"identity":{"docker-reference":"${dockerReference}"},"image":{"docker-manifest-digest":"${digest}"},"type":"cosign container image signature"},"optional":null}`,
  );
}

/** A DSSE bundle over an in-toto statement with digest as its subject, as cosign 2.6 writes. */
export function dsseBundle(key: TestKey, digest: string): Buffer {
  const statement = Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ digest: { sha256: digest.slice('sha256:'.length) } }],
      predicateType: 'https://sigstore.dev/cosign/sign/v1',
    }),
  );
  const type = 'application/vnd.in-toto+json';
  const pae = Buffer.from(
    `DSSEv1 ${type.length} ${type} ${statement.length} ${statement.toString('utf8')}`,
  );
  return Buffer.from(
    JSON.stringify({
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: { publicKey: { hint: 'x' } },
      dsseEnvelope: {
        payload: statement.toString('base64'),
        payloadType: type,
        signatures: [{ sig: cosignSign(key, pae) }],
      },
    }),
  );
}

/** A messageSignature bundle over the manifest bytes. */
export function messageBundle(key: TestKey, manifest: Buffer): Buffer {
  return Buffer.from(
    JSON.stringify({
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: { publicKey: { hint: 'x' } },
      messageSignature: {
        messageDigest: {
          algorithm: 'SHA2_256',
          digest: createHash('sha256').update(manifest).digest('base64'),
        },
        signature: cosignSign(key, manifest),
      },
    }),
  );
}

/** An in-memory registry of one repository's manifests (by tag and digest) and blobs. */
export class FakeSignatureRegistry implements SignatureSource {
  readonly manifests = new Map<string, Buffer>();
  readonly blobs = new Map<string, Buffer>();
  /** undefined: no referrers API (the fallback tag is used). */
  referrersApi: Map<string, Buffer> | undefined;
  requests: string[] = [];

  addBlob(b: Buffer): Descriptor {
    this.blobs.set(sha256(b), b);
    return { mediaType: 'application/octet-stream', digest: sha256(b), size: b.length };
  }

  /** Adds a .sig tag for digest with one simple-signing layer per (payload, signature). */
  addSimpleSignatures(digest: string, sigs: { payload: Buffer; signature: string }[]): void {
    const layers = sigs.map((s) => ({
      ...this.addBlob(s.payload),
      mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json',
      annotations: { 'dev.cosignproject.cosign/signature': s.signature },
    }));
    const config = this.addBlob(Buffer.from('{}'));
    this.manifests.set(
      `${digest.replace(':', '-')}.sig`,
      Buffer.from(JSON.stringify({ schemaVersion: 2, config, layers })),
    );
  }

  /** Adds a bundle as a referrer of digest (in the API or under the fallback tag). */
  addBundle(digest: string, bundle: Buffer, listedArtifactType: string): void {
    const layer = {
      ...this.addBlob(bundle),
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    };
    const m = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        config: this.addBlob(Buffer.from('{}')),
        layers: [layer],
      }),
    );
    this.manifests.set(sha256(m), m);
    const entry = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: sha256(m),
      size: m.length,
      artifactType: listedArtifactType,
    };
    const where = this.referrersApi ?? this.manifests;
    const key = this.referrersApi ? digest : digest.replace(':', '-');
    const index = JSON.parse(
      (where.get(key) ?? Buffer.from('{"schemaVersion":2,"manifests":[]}')).toString(),
    ) as { manifests: unknown[] };
    index.manifests.push(entry);
    where.set(key, Buffer.from(JSON.stringify(index)));
  }

  async taggedManifest(tag: string): Promise<{ bytes: Buffer } | undefined> {
    this.requests.push(`manifest ${tag}`);
    const bytes = this.manifests.get(tag);
    return bytes && { bytes };
  }

  async referrers(digest: string): Promise<Buffer | undefined> {
    this.requests.push(`referrers ${digest}`);
    if (!this.referrersApi) return undefined;
    return this.referrersApi.get(digest) ?? Buffer.from('{"schemaVersion":2,"manifests":[]}');
  }

  async manifest(digest: string): Promise<Buffer> {
    this.requests.push(`manifest ${digest}`);
    const m = this.manifests.get(digest);
    if (!m) throw new SourceError('NotFound', `no manifest ${digest}`);
    return m;
  }

  async blob(desc: Descriptor, _what: string, limit: number): Promise<Buffer> {
    this.requests.push(`blob ${desc.digest}`);
    const b = this.blobs.get(desc.digest);
    if (!b) throw new SourceError('NotFound', `no blob ${desc.digest}`);
    if (b.length > limit) throw new Error('over the limit');
    return b;
  }
}
