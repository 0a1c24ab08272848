// Builders of image layers for tests, hostile ones included: tar archives from entry lists,
// a tar.gz of a million tiny entries, and a gzip bomb, plus pushing them as images.
import { gzipSync, createGzip, constants as zc } from 'node:zlib';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { MediaTypes, type Descriptor, type Platform } from '../../src/source/manifest.js';
import {
  blobFromBuffer,
  catalogConfig,
  pushImage,
  pushIndex,
  pushTarget,
  type BlobSource,
} from '../../src/source/pusher.js';
import { digestOf } from '../../src/source/digest.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sampleDir } from './catalogs.js';

export type TarEntry = Partial<tar.Header> & { name: string; body?: string | Buffer };

/** The sample catalog's files as tar entries under configs/ (a good layer to start from). */
export async function sampleEntries(): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  for (const pkg of (await readdir(sampleDir)).sort())
    for (const f of (await readdir(path.join(sampleDir, pkg))).sort())
      entries.push({
        name: `configs/${pkg}/${f}`,
        body: await readFile(path.join(sampleDir, pkg, f)),
      });
  return entries;
}

export async function tarOf(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const collected = (async () => {
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  })();
  for (const { body, ...h } of entries) {
    await new Promise<void>((res, rej) =>
      pack.entry({ mode: 0o644, mtime: new Date(0), ...h }, body ?? '', (e) =>
        e ? rej(e) : res(),
      ),
    );
  }
  pack.finalize();
  return collected;
}

export async function gzipLayer(entries: TarEntry[]): Promise<BlobSource & { diffId: string }> {
  const t = await tarOf(entries);
  return { ...blobFromBuffer(MediaTypes.ociLayerGzip, gzipSync(t)), diffId: digestOf(t) };
}

/** A raw ustar header for an empty regular file (fast, for very many entries). */
function emptyFileHeader(name: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write('00000000000\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/** A gzip tar of n empty files under configs/ (n = 1e6 → ~0.5 GB of tar, a few MB gzipped). */
export async function manyEntriesLayer(n: number): Promise<BlobSource> {
  function* blocks() {
    const batch: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      batch.push(emptyFileHeader(`configs/f${i}.json`));
      if (batch.length === 2048) yield Buffer.concat(batch.splice(0));
    }
    batch.push(Buffer.alloc(1024));
    yield Buffer.concat(batch);
  }
  const chunks: Buffer[] = [];
  const gz = Readable.from(blocks()).pipe(createGzip({ level: 1 }));
  for await (const c of gz) chunks.push(c as Buffer);
  return blobFromBuffer(MediaTypes.ociLayerGzip, Buffer.concat(chunks));
}

/**
 * A gzip bomb: one file configs/bomb.json of `gib` GiB of zeros, as concatenated gzip members
 * (valid gzip; each 16 MiB member compresses to ~16 KB), so it is cheap to build and push.
 */
export function gzipBombLayer(gib: number): BlobSource {
  const member = 16 * 1024 * 1024;
  const total = gib * 1024 * 1024 * 1024;
  const h = emptyFileHeader('configs/bomb.json');
  h.write(total.toString(8).padStart(11, '0') + '\0', 124);
  h.write('        ', 148);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  const zeros = gzipSync(Buffer.alloc(member), { level: zc.Z_BEST_COMPRESSION });
  const parts = [gzipSync(h)];
  for (let i = 0; i < total / member; i++) parts.push(zeros);
  parts.push(gzipSync(Buffer.alloc(1024)));
  return blobFromBuffer(MediaTypes.ociLayerGzip, Buffer.concat(parts));
}

/**
 * `n` documents of about `each` bytes, YAML (a stream) or JSON (concatenated values): the red
 * team's large documents, each under the document cap.
 */
export function largeDocuments(kind: 'yaml' | 'json', n: number, each: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const filler = 'x'.repeat(each - 100);
    parts.push(
      kind === 'yaml'
        ? `---\nschema: io.example.big\nname: y${i}\ndata: ${filler}\n`
        : `{"schema":"io.example.big","name":"j${i}","data":"${filler}"}\n`,
    );
  }
  return Buffer.from(parts.join(''));
}

/** Pushes an image of the given layers (config with the configs label) to ref (a tag ref). */
export async function pushLayers(
  ref: string,
  layers: BlobSource[],
  opts: { platform?: Platform; configsDir?: string; diffIds?: string[] } = {},
): Promise<Descriptor> {
  const t = pushTarget(ref);
  const tag = ref.slice(ref.lastIndexOf(':') + 1);
  const diffIds = opts.diffIds ?? layers.map((l) => l.digest);
  return pushImage(t, catalogConfig(diffIds, opts.platform, opts.configsDir), layers, tag);
}

/** One platform's image of a multi-platform one: its platform and its layers. */
interface PlatformImage {
  platform: Platform;
  layers: BlobSource[];
}

/** The image config of one platform's image (the configs label, its layers' diff IDs). */
const platformConfig = (p: PlatformImage) =>
  catalogConfig(
    p.layers.map((l) => l.digest),
    p.platform,
  );

/** Pushes one image per platform (untagged) and an index over them under ref's tag. */
export async function pushMultiArch(
  ref: string,
  perPlatform: PlatformImage[],
): Promise<Descriptor> {
  const t = pushTarget(ref);
  const manifests: Descriptor[] = [];
  for (const p of perPlatform) {
    const d = await pushImage(t, platformConfig(p), p.layers);
    manifests.push({ ...d, platform: p.platform });
  }
  return pushIndex(t, manifests, ref.slice(ref.lastIndexOf(':') + 1));
}

/** Pushes Docker v2 schema 2 images (Docker media types) and a Docker manifest list over them. */
export async function pushDockerManifestList(
  ref: string,
  perPlatform: PlatformImage[],
): Promise<string> {
  const t = pushTarget(ref);
  const manifests: Descriptor[] = [];
  for (const p of perPlatform) {
    const config = blobFromBuffer(MediaTypes.dockerConfig, platformConfig(p));
    for (const b of [config, ...p.layers])
      await t.client.pushBlob(t.endpoint, b.digest, b.size, b.open, 'blob');
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaTypes.dockerManifest,
        config: { mediaType: config.mediaType, digest: config.digest, size: config.size },
        layers: p.layers.map((l) => ({
          mediaType: MediaTypes.dockerLayerGzip,
          digest: l.digest,
          size: l.size,
        })),
      }),
    );
    const digest = await t.client.putManifest(
      t.endpoint,
      digestOf(manifest),
      MediaTypes.dockerManifest,
      manifest,
      'manifest',
    );
    manifests.push({
      mediaType: MediaTypes.dockerManifest,
      digest,
      size: manifest.length,
      platform: p.platform,
    });
  }
  const list = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.dockerList, manifests }),
  );
  return t.client.putManifest(
    t.endpoint,
    ref.slice(ref.lastIndexOf(':') + 1),
    MediaTypes.dockerList,
    list,
    'list',
  );
}

/**
 * Puts under `tag` the OCI manifest of `digest` in the repository at `repoUrl`
 * (http://host/v2/name) with its first layer's size changed to `size`: the same image, with a
 * manifest that lies about what its layer costs. Returns the registry's answer to the PUT.
 */
export async function putManifestDeclaring(
  repoUrl: string,
  digest: string,
  size: number,
  tag: string,
): Promise<Response> {
  const manifest = JSON.parse(
    await (
      await fetch(`${repoUrl}/manifests/${digest}`, {
        headers: { accept: MediaTypes.ociManifest },
      })
    ).text(),
  ) as { layers: { size: number }[] };
  manifest.layers[0]!.size = size;
  return fetch(`${repoUrl}/manifests/${tag}`, {
    method: 'PUT',
    headers: { 'content-type': MediaTypes.ociManifest },
    body: Buffer.from(JSON.stringify(manifest)),
  });
}
