// Signing a pushed image as `cosign sign` does without a transparency log: a simple-signing
// payload for the repository and manifest digest, its signature in the layer's
// `dev.cosignproject.cosign/signature` annotation, in a manifest under the `sha256-<hex>.sig` tag.
// Signatures already under that tag are kept (as cosign appends), up to a bound.
import type { KeyObject } from 'node:crypto';
import { digestOf } from '../digest.js';
import { unlessNotFound } from '../errors.js';
import { MediaTypes, type Descriptor } from '../manifest.js';
import type { PushTarget } from '../registry-client.js';
import { signMessage } from './keys.js';
import {
  SIGNATURE_ANNOTATION,
  SIMPLE_SIGNING_MEDIA_TYPE,
  simpleSigningPayload,
} from './payload.js';

/** Signatures kept under one .sig tag when appending. */
const MAX_KEPT_SIGNATURES = 15;

/** Signs digest (an image of repository `dockerReference`) and pushes the signature. */
export async function pushSignature(
  t: PushTarget,
  dockerReference: string,
  digest: string,
  key: KeyObject,
): Promise<{ tag: string }> {
  const payload = simpleSigningPayload(dockerReference, digest);
  const signature = signMessage(key, payload).toString('base64');
  const tag = `${digest.replace(':', '-')}.sig`;
  const existing = await existingLayers(t, tag);
  const layer: Descriptor = {
    mediaType: SIMPLE_SIGNING_MEDIA_TYPE,
    digest: digestOf(payload),
    size: payload.length,
    annotations: { [SIGNATURE_ANNOTATION]: signature },
  };
  const layers = [
    ...existing
      .filter((l) => l.annotations?.[SIGNATURE_ANNOTATION] !== signature)
      .slice(-MAX_KEPT_SIGNATURES),
    layer,
  ];
  const config = Buffer.from(
    JSON.stringify({
      architecture: '',
      os: '',
      config: {},
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
    }),
  );
  await t.client.pushBlob(
    t.endpoint,
    layer.digest,
    layer.size,
    () => payload,
    `signature of ${t.what}`,
  );
  const configDigest = digestOf(config);
  await t.client.pushBlob(
    t.endpoint,
    configDigest,
    config.length,
    () => config,
    `signature of ${t.what}`,
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: { mediaType: MediaTypes.ociConfig, digest: configDigest, size: config.length },
      layers,
    }),
  );
  await t.client.putManifest(
    t.endpoint,
    tag,
    MediaTypes.ociManifest,
    manifest,
    `signature of ${t.what}`,
  );
  return { tag };
}

async function existingLayers(t: PushTarget, tag: string): Promise<Descriptor[]> {
  const m = await unlessNotFound(t.client.fetchManifest(t.endpoint, tag, `signature of ${t.what}`));
  if (!m) return [];
  const layers = (JSON.parse(m.bytes.toString('utf8')) as { layers?: unknown }).layers;
  return Array.isArray(layers)
    ? (layers as Descriptor[]).filter((l) => l?.mediaType === SIMPLE_SIGNING_MEDIA_TYPE)
    : [];
}
