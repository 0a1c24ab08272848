// Sigstore bundles (`application/vnd.dev.sigstore.bundle.v0.3+json` and earlier), as newer cosign
// attaches them with OCI 1.1 referrers: a DSSE envelope over an in-toto statement whose subject is
// the image's manifest digest, or a messageSignature over the manifest itself. Pure: parsing, and
// what a bundle binds the signature to; the transparency-log entries are not checked (see
// docs/source.md).

const BUNDLE_MEDIA_TYPES = [
  'application/vnd.dev.sigstore.bundle.v0.3+json',
  'application/vnd.dev.sigstore.bundle+json;version=0.3',
  'application/vnd.dev.sigstore.bundle+json;version=0.2',
  'application/vnd.dev.sigstore.bundle+json;version=0.1',
];

export function isBundleMediaType(t: string | undefined): boolean {
  return t !== undefined && BUNDLE_MEDIA_TYPES.includes(t.replace(/\s+/g, ''));
}

/** What a bundle's signature covers, once the envelope is unpacked. */
export type BundleContent =
  | {
      kind: 'dsse';
      /** The bytes the signatures are over (DSSE's pre-authentication encoding). */
      signed: Buffer;
      signatures: Buffer[];
      /** sha256 hex digests of the statement's subjects, with their names. */
      subjects: { name: string | undefined; sha256: string | undefined }[];
    }
  | {
      kind: 'message';
      /** `sha256:<hex>` the signature is over (the image manifest's digest). */
      digest: string;
      signature: Buffer;
    };

/** DSSE's PAE: "DSSEv1 <len(type)> <type> <len(body)> <body>". */
function dssePae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType);
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
}

const b64 = (v: unknown): Buffer | undefined =>
  typeof v === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(v)
    ? Buffer.from(v, 'base64')
    : undefined;

/** The content of a bundle, or undefined when it is not one this verifier understands. */
export function parseBundle(bytes: Buffer): BundleContent | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const env = doc?.dsseEnvelope as
    { payload?: unknown; payloadType?: unknown; signatures?: { sig?: unknown }[] } | undefined;
  if (env) {
    const payload = b64(env.payload);
    if (!payload || typeof env.payloadType !== 'string' || !Array.isArray(env.signatures))
      return undefined;
    const signatures = env.signatures
      .slice(0, 8)
      .map((s) => b64(s?.sig))
      .filter((s): s is Buffer => s !== undefined);
    let statement: { subject?: { name?: unknown; digest?: { sha256?: unknown } }[] };
    try {
      statement = JSON.parse(payload.toString('utf8')) as typeof statement;
    } catch {
      return undefined;
    }
    const subjects = (Array.isArray(statement?.subject) ? statement.subject : [])
      .slice(0, 64)
      .map((s) => ({
        name: typeof s?.name === 'string' ? s.name : undefined,
        sha256: typeof s?.digest?.sha256 === 'string' ? s.digest.sha256 : undefined,
      }));
    return { kind: 'dsse', signed: dssePae(env.payloadType, payload), signatures, subjects };
  }
  const ms = doc?.messageSignature as
    { messageDigest?: { algorithm?: unknown; digest?: unknown }; signature?: unknown } | undefined;
  if (ms) {
    const digest = b64(ms.messageDigest?.digest);
    const signature = b64(ms.signature);
    if (ms.messageDigest?.algorithm !== 'SHA2_256' || !digest || digest.length !== 32 || !signature)
      return undefined;
    return { kind: 'message', digest: `sha256:${digest.toString('hex')}`, signature };
  }
  return undefined;
}
