// Pushing images: a catalog directory as a one-layer OCI image (the layer holds the directory
// under /configs, the config carries the configs label), plus the building blocks (push an image
// from layers, push an index) that tests and benchmarks use for other shapes of image.
import { createHash, type KeyObject } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { newCounters, type SourceCounters } from './counters.js';
import { digestOf } from './digest.js';
import { findCredentials, noPullSecrets, type PullSecretSource } from './docker-config.js';
import { terminal } from './errors.js';
import { NodeHttpClient, type HttpClient } from './http.js';
import { CONFIGS_LABEL, DEFAULT_CONFIGS_DIR } from './labels.js';
import { defaultPlatform, MediaTypes, type Descriptor, type Platform } from './manifest.js';
import { formatReference, parseReference, referenceName, withDigest } from './reference.js';
import { emptyRegistriesConfig, endpointsFor, type RegistriesConfig } from './registries-conf.js';
import { RegistryClient, type PushTarget } from './registry-client.js';
import { pushSignature } from './signature/sign.js';

export interface BlobSource {
  mediaType: string;
  digest: string;
  size: number;
  /** Opens the content (called again on retry). */
  open: () => Buffer | Readable;
}

export interface PushOptions {
  registries?: RegistriesConfig;
  pullSecrets?: PullSecretSource;
  caBundle?: string | Buffer;
  http?: HttpClient;
  counters?: SourceCounters;
}

/** The registry client and endpoint to push ref to (the registry's location, never a mirror). */
export function pushTarget(ref: string, opts: PushOptions = {}): PushTarget {
  const parsed = parseReference(ref);
  const eps = endpointsFor(opts.registries ?? emptyRegistriesConfig, parsed);
  const secrets = opts.pullSecrets ?? noPullSecrets;
  const client = new RegistryClient({
    http: opts.http ?? new NodeHttpClient(opts.caBundle ? { ca: opts.caBundle } : {}),
    counters: opts.counters ?? newCounters(),
    credentials: async (host, repo) => findCredentials(await secrets.dockerConfigs(), host, repo),
  });
  return { client, endpoint: eps.at(-1)!, what: ref };
}

export function blobFromBuffer(mediaType: string, bytes: Buffer): BlobSource {
  return { mediaType, digest: digestOf(bytes), size: bytes.length, open: () => bytes };
}

/** Pushes config + layers and the manifest; tags it when `tag` is given. Returns its descriptor. */
export async function pushImage(
  t: PushTarget,
  config: Buffer,
  layers: BlobSource[],
  tag?: string,
  configMediaType: string = MediaTypes.ociConfig,
): Promise<Descriptor> {
  const cfg = blobFromBuffer(configMediaType, config);
  for (const [i, b] of [cfg, ...layers].entries())
    await t.client.pushBlob(t.endpoint, b.digest, b.size, b.open, `blob ${i} of ${t.what}`);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: { mediaType: cfg.mediaType, digest: cfg.digest, size: cfg.size },
      layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.size })),
    }),
  );
  const digest = digestOf(manifest);
  await t.client.putManifest(
    t.endpoint,
    tag ?? digest,
    MediaTypes.ociManifest,
    manifest,
    `manifest of ${t.what}`,
  );
  return { mediaType: MediaTypes.ociManifest, digest, size: manifest.length };
}

/** Pushes an image index over already pushed manifests. */
export async function pushIndex(
  t: PushTarget,
  manifests: Descriptor[],
  tag: string,
): Promise<Descriptor> {
  const index = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests }),
  );
  const digest = await t.client.putManifest(
    t.endpoint,
    tag,
    MediaTypes.ociIndex,
    index,
    `index of ${t.what}`,
  );
  return { mediaType: MediaTypes.ociIndex, digest, size: index.length };
}

/** An image config with the configs label (and the given platform). */
export function catalogConfig(
  diffIds: string[],
  platform: Platform = defaultPlatform,
  configsDir = DEFAULT_CONFIGS_DIR,
): Buffer {
  return Buffer.from(
    JSON.stringify({
      architecture: platform.architecture,
      os: platform.os,
      ...(platform.variant && { variant: platform.variant }),
      config: { Labels: { [CONFIGS_LABEL]: configsDir } },
      rootfs: { type: 'layers', diff_ids: diffIds },
    }),
  );
}

function hashing(onDone: (hex: string, n: number) => void): Transform {
  const h = createHash('sha256');
  let n = 0;
  return new Transform({
    transform(chunk: Buffer, _e, cb) {
      h.update(chunk);
      n += chunk.length;
      cb(null, chunk);
    },
    flush(cb) {
      onDone(h.digest('hex'), n);
      cb();
    },
  });
}

async function listFiles(root: string, rel = ''): Promise<{ rel: string; dir: boolean }[]> {
  const out: { rel: string; dir: boolean }[] = [];
  const entries = (await readdir(path.join(root, rel), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push({ rel: r, dir: true }, ...(await listFiles(root, r)));
    else if (e.isFile()) out.push({ rel: r, dir: false });
  }
  return out;
}

export interface BuiltLayer extends BlobSource {
  diffId: string;
  /** Removes the temp file. */
  dispose(): Promise<void>;
}

/**
 * Builds a gzip layer holding `dir` under `configs/` in a temp file, deterministically (sorted
 * entries, zero mtimes and owners, modes 0644/0755), so the same directory gives the same digest.
 */
async function buildCatalogLayer(dir: string, prefix = 'configs'): Promise<BuiltLayer> {
  const tmp = await mkdtemp(path.join(tmpdir(), 'catalogd-push-'));
  const file = path.join(tmp, 'layer.tar.gz');
  const files = await listFiles(dir);
  const pack = tar.pack();
  let diffId = '';
  let digest = '';
  let size = 0;
  const writing = pipeline(
    pack as unknown as Readable,
    hashing((hex) => (diffId = `sha256:${hex}`)),
    createGzip(),
    hashing((hex, n) => ((digest = `sha256:${hex}`), (size = n))),
    createWriteStream(file),
  );
  const common = { mtime: new Date(0), uid: 0, gid: 0, uname: '', gname: '' };
  const entry = (h: tar.Header | (Partial<tar.Header> & { name: string }), body?: Readable) =>
    new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null) => (err ? reject(err) : resolve());
      if (!body) return void pack.entry({ ...common, ...h }, Buffer.alloc(0), done);
      const sink = pack.entry({ ...common, ...h }, done);
      body.on('error', reject);
      body.pipe(sink);
    });
  try {
    await entry({ name: `${prefix}/`, type: 'directory', mode: 0o755 });
    for (const f of files) {
      const abs = path.join(dir, f.rel);
      if (f.dir) await entry({ name: `${prefix}/${f.rel}/`, type: 'directory', mode: 0o755 });
      else {
        const { size: fsize } = await stat(abs);
        await entry(
          { name: `${prefix}/${f.rel}`, type: 'file', mode: 0o644, size: fsize },
          createReadStream(abs),
        );
      }
    }
    pack.finalize();
    await writing;
  } catch (err) {
    pack.destroy();
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  return {
    mediaType: MediaTypes.ociLayerGzip,
    digest,
    size,
    diffId,
    open: () => createReadStream(file),
    dispose: () => rm(tmp, { recursive: true, force: true }),
  };
}

/** `catalogd push`: packages dir as a catalog image and pushes it; returns the digest reference. */
export async function pushCatalog(
  dir: string,
  ref: string,
  opts: PushOptions & { platform?: Platform; signKey?: KeyObject } = {},
): Promise<{ digest: string; ref: string }> {
  const parsed = parseReference(ref);
  const layer = await buildCatalogLayer(dir);
  try {
    if (layer.size === 0) throw terminal('InvalidConfig', 'empty layer');
    const t = pushTarget(ref, opts);
    const tag = parsed.digest ? undefined : parsed.tag;
    const desc = await pushImage(t, catalogConfig([layer.diffId], opts.platform), [layer], tag);
    if (parsed.digest && parsed.digest !== desc.digest)
      throw terminal(
        'DigestMismatch',
        `push ${ref}: the image's digest is ${desc.digest}, not the one in the reference`,
      );
    // Signed as `cosign sign` signs a digest: the repository and the manifest digest.
    if (opts.signKey) await pushSignature(t, referenceName(parsed), desc.digest, opts.signKey);
    return { digest: desc.digest, ref: formatReference(withDigest(parsed, desc.digest)) };
  } finally {
    await layer.dispose();
  }
}
