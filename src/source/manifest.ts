// Image manifests and indexes (OCI and Docker v2 schema 2): parsing, and picking the manifest of
// one platform out of an index. Pure: no I/O. A manifest fetched by tag is whatever the registry
// (or a redirect's target) answered: its messages quote none of it but words of a fixed
// vocabulary (known media types, platforms).
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
  } catch {
    // Not the parser's error as a cause: its message quotes the body.
    throw retryable('BadResponse', `${what}: manifest is not valid JSON`);
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
  throw terminal(
    'UnsupportedMediaType',
    `${what}: unsupported manifest media type ${named(mediaType)}`,
  );
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
    const have = [...new Set(index.map((d) => knownPlatform(d.platform)))].join(', ');
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
        `${what}: unsupported layer media type ${named(mediaType)}`,
      );
  }
}

/** Media types a message may name: those a registry commonly answers that we do not take. */
const namedMediaTypes = new Set<string>([
  ...Object.values(MediaTypes),
  'application/vnd.docker.distribution.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v1+prettyjws',
  'application/vnd.oci.artifact.manifest.v1+json',
  'application/vnd.oci.empty.v1+json',
  'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip',
  'application/vnd.oci.image.layer.nondistributable.v1.tar',
  'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
  'application/vnd.oci.image.layer.nondistributable.v1.tar+zstd',
  'application/vnd.cncf.helm.config.v1+json',
  'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
  'application/json',
  'application/octet-stream',
  'text/plain',
  'text/html',
]);

/** A media type quoted when it is a known one; any other is text of the body, not said. */
function named(mediaType: string): string {
  return namedMediaTypes.has(mediaType)
    ? `"${mediaType}"`
    : '(not an OCI or Docker v2 schema 2 image manifest or index)';
}

// Go's GOOS and GOARCH values, and the variants of arm and amd64: the platforms a message names.
const knownOS = new Set(
  'aix android darwin dragonfly freebsd illumos ios js linux netbsd openbsd plan9 solaris wasip1 windows'.split(
    ' ',
  ),
);
const knownArch = new Set(
  '386 amd64 arm arm64 loong64 mips mips64 mips64le mipsle ppc64 ppc64le riscv64 s390x wasm'.split(
    ' ',
  ),
);
const knownVariant = new Set('v1 v2 v3 v4 v5 v6 v7 v8 v9'.split(' '));

/** An index entry's platform for a message: os/arch[/variant] when all are known, else "other". */
function knownPlatform(p: Platform | undefined): string {
  if (!p) return 'unknown';
  const ok =
    typeof p.os === 'string' &&
    knownOS.has(p.os) &&
    typeof p.architecture === 'string' &&
    knownArch.has(p.architecture) &&
    (p.variant === undefined || (typeof p.variant === 'string' && knownVariant.has(p.variant)));
  return ok ? formatPlatform(p) : 'other';
}
