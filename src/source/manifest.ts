// Image manifests and indexes (OCI and Docker v2 schema 2): parsing, and picking the manifest of
// one platform out of an index. Pure: no I/O.
import { retryable, terminal } from './errors.js';

export const MediaTypes = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayerZstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

export const manifestAccept = [
  MediaTypes.ociIndex,
  MediaTypes.ociManifest,
  MediaTypes.dockerList,
  MediaTypes.dockerManifest,
].join(', ');

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: Platform;
  annotations?: Record<string, string>;
}

export type Manifest =
  | { kind: 'index'; mediaType: string; manifests: Descriptor[] }
  | { kind: 'manifest'; mediaType: string; config: Descriptor; layers: Descriptor[] };

export type Compression = 'none' | 'gzip' | 'zstd';

export const defaultPlatform: Platform = { os: 'linux', architecture: 'amd64' };

export function parsePlatform(s: string): Platform {
  const [os, architecture, variant, ...rest] = s.split('/');
  if (!os || !architecture || rest.length > 0)
    throw terminal('InvalidConfig', `invalid platform "${s}": want os/arch[/variant]`);
  return { os, architecture, ...(variant && { variant }) };
}

export function formatPlatform(p: Platform): string {
  return [p.os, p.architecture, p.variant].filter(Boolean).join('/');
}

function descriptor(v: unknown, what: string): Descriptor {
  const d = v as Partial<Descriptor> | null;
  if (
    !d ||
    typeof d.digest !== 'string' ||
    typeof d.size !== 'number' ||
    !Number.isSafeInteger(d.size) ||
    d.size < 0
  )
    throw retryable('BadResponse', `${what}: malformed descriptor`);
  if (!/^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(d.digest))
    throw retryable('BadResponse', `${what}: malformed digest`);
  return d as Descriptor;
}

/** Parses manifest bytes; `contentType` is the response's Content-Type (may be absent). */
export function parseManifest(
  bytes: Buffer,
  contentType: string | undefined,
  what: string,
): Manifest {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch (err) {
    throw retryable('BadResponse', `${what}: manifest is not valid JSON`, err);
  }
  if (typeof doc !== 'object' || doc === null)
    throw retryable('BadResponse', `${what}: manifest is not an object`);
  const declared = typeof doc.mediaType === 'string' ? doc.mediaType : undefined;
  const header = contentType?.split(';')[0]?.trim();
  const mediaType =
    declared ??
    (header && header !== 'application/json' && header !== 'application/octet-stream'
      ? header
      : Array.isArray(doc.manifests)
        ? MediaTypes.ociIndex
        : MediaTypes.ociManifest);
  if (mediaType === MediaTypes.ociIndex || mediaType === MediaTypes.dockerList) {
    if (!Array.isArray(doc.manifests))
      throw retryable('BadResponse', `${what}: index without manifests`);
    return { kind: 'index', mediaType, manifests: doc.manifests.map((m) => descriptor(m, what)) };
  }
  if (mediaType === MediaTypes.ociManifest || mediaType === MediaTypes.dockerManifest) {
    if (!Array.isArray(doc.layers))
      throw retryable('BadResponse', `${what}: manifest without layers`);
    return {
      kind: 'manifest',
      mediaType,
      config: descriptor(doc.config, what),
      layers: doc.layers.map((l) => descriptor(l, what)),
    };
  }
  throw terminal('UnsupportedMediaType', `${what}: unsupported manifest media type "${mediaType}"`);
}

function normalizeArch(p: Platform): Platform {
  // As containerd does: arm64 means arm64/v8, arm means arm/v7 unless stated.
  if (p.architecture === 'arm64' && !p.variant) return { ...p, variant: 'v8' };
  if (p.architecture === 'arm' && !p.variant) return { ...p, variant: 'v7' };
  return p;
}

/** The index entry for the wanted platform (exact os/arch, and variant when the wanted one has it). */
export function selectPlatform(index: Descriptor[], want: Platform, what: string): Descriptor {
  const w = normalizeArch(want);
  const match = index.find((d) => {
    if (!d.platform) return false;
    const p = normalizeArch(d.platform);
    return (
      p.os === w.os && p.architecture === w.architecture && (!w.variant || p.variant === w.variant)
    );
  });
  if (!match) {
    const have = index.map((d) => (d.platform ? formatPlatform(d.platform) : 'unknown')).join(', ');
    throw terminal(
      'NoMatchingPlatform',
      `${what}: no manifest for platform ${formatPlatform(want)} (index has: ${have})`,
    );
  }
  return match;
}

/** The compression of a layer media type; unknown types are refused. */
export function layerCompression(mediaType: string, what: string): Compression {
  switch (mediaType) {
    case MediaTypes.ociLayer:
    case 'application/vnd.docker.image.rootfs.diff.tar':
      return 'none';
    case MediaTypes.ociLayerGzip:
    case MediaTypes.dockerLayerGzip:
      return 'gzip';
    case MediaTypes.ociLayerZstd:
    case 'application/vnd.docker.image.rootfs.diff.tar.zstd':
      return 'zstd';
    default:
      throw terminal(
        'UnsupportedMediaType',
        `${what}: unsupported layer media type "${mediaType}"`,
      );
  }
}
