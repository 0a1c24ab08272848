// One image fetched and unpacked into the cache: its manifest (the platform's, under an index),
// its config (for the catalog directory label), then each layer downloaded to disk (digest and
// size verified as it streams) before its names and caps are checked and only then applied. The
// image's declared sizes, its layers' count and the cache's bound are checked before the bytes
// they would cost are fetched.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { removeTree } from '../util/remove-tree.js';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestCache, type CacheEntry, type CacheMeta } from './cache.js';
import { findSourceError, networkCause, networkErrorCode, retryable, terminal } from './errors.js';
import { formatBytes, type Activity as PullActivity } from '../util/deadline.js';
import { firstEndpoint } from './first-endpoint.js';
import { catalogDirFromConfig } from './labels.js';
import {
  layerCompression,
  parseManifest,
  selectPlatform,
  type Manifest,
  type Platform,
} from './manifest.js';
import type { ImageReference } from './reference.js';
import type { Endpoint, RegistriesConfig } from './registries-conf.js';
import type { FetchedManifest, RegistryClient } from './registry-client.js';
import { catalogDirComponents, LayerApplier, type UnpackLimits } from './unpack.js';

export interface ImageUnpackerOptions {
  client: RegistryClient;
  cache: DigestCache;
  registries: RegistriesConfig;
  platform: Platform;
  limits: UnpackLimits;
  maxConfigBytes: number;
  maxLayers: number;
  /** Bytes the cache's unpacked images may hold together. */
  maxCacheBytes: number;
}

export class ImageUnpacker {
  private readonly client: RegistryClient;
  private readonly cache: DigestCache;
  private readonly registries: RegistriesConfig;
  private readonly platform: Platform;
  private readonly limits: UnpackLimits;
  private readonly maxConfigBytes: number;
  private readonly maxLayers: number;
  private readonly maxCacheBytes: number;
  /** Appliers unpacking now, whose bytes count against the cache's bound. */
  private readonly unpacking = new Set<LayerApplier>();

  constructor(opts: ImageUnpackerOptions) {
    this.client = opts.client;
    this.cache = opts.cache;
    this.registries = opts.registries;
    this.platform = opts.platform;
    this.limits = opts.limits;
    this.maxConfigBytes = opts.maxConfigBytes;
    this.maxLayers = opts.maxLayers;
    this.maxCacheBytes = opts.maxCacheBytes;
  }

  /**
   * Fetches and unpacks the image of digest into the cache under key (top: its manifest, when
   * resolving a tag fetched it already); returns the cache's entry.
   */
  async unpack(
    ref: ImageReference,
    input: string,
    digest: string,
    key: string,
    top: { manifest: FetchedManifest; ep: Endpoint } | undefined,
    { signal, activity }: { signal: AbortSignal; activity: PullActivity },
  ): Promise<CacheEntry> {
    activity.doing(`fetching the manifest of ${input}`);
    const { value: fetched, ep } = top
      ? { value: top.manifest, ep: top.ep }
      : await firstEndpoint(this.registries, ref, input, signal, (e, what) =>
          this.client.fetchManifest(e, digest, `manifest of ${what}`, signal),
        );
    const what = ep.mirror ? `${input} (mirror)` : input;
    let manifestDigest = fetched.digest;
    let manifest: Manifest = parseManifest(
      fetched.bytes,
      fetched.contentType,
      `manifest of ${what}`,
    );
    if (manifest.kind === 'index') {
      const d = selectPlatform(manifest.manifests, this.platform, `image index of ${what}`);
      activity.doing(`fetching the platform manifest of ${what}`);
      const m = await this.client.fetchManifest(
        ep,
        d.digest,
        `platform manifest of ${what}`,
        signal,
      );
      manifestDigest = m.digest;
      manifest = parseManifest(m.bytes, m.contentType, `platform manifest of ${what}`);
      if (manifest.kind !== 'manifest')
        throw terminal('UnsupportedMediaType', `${what}: nested image index`);
    }
    if (manifest.layers.length > this.maxLayers)
      throw terminal(
        'LimitExceeded',
        `${what}: ${manifest.layers.length} layers, over the limit of ${this.maxLayers}`,
      );
    // Declared sizes, before any byte is fetched: a compressed layer is not smaller than the
    // uncompressed content it holds at these sizes, so layers declaring more than the bound on
    // uncompressed bytes can only be refused after their download.
    const declared = manifest.layers.reduce((sum, l) => sum + l.size, 0);
    if (declared > this.limits.maxBytes)
      throw terminal(
        'LimitExceeded',
        `${what}: its layers declare ${declared} bytes, over the limit of ${this.limits.maxBytes} bytes of uncompressed content`,
      );
    const compressions = manifest.layers.map((l, i) =>
      layerCompression(l.mediaType, `layer ${i + 1} of ${what}`),
    );
    activity.doing(`fetching the config of ${what}`);
    const config = await this.client.fetchBlobBytes(
      ep,
      manifest.config,
      `config of ${what}`,
      this.maxConfigBytes,
      signal,
    );
    const catalogDir = catalogDirFromConfig(config, `config of ${what}`);
    const tmp = await this.cache.tempDir();
    const fsDir = DigestCache.fsDir(tmp);
    const applier = new LayerApplier(fsDir, catalogDirComponents(catalogDir), this.limits);
    this.unpacking.add(applier);
    try {
      const blobFile = path.join(tmp, 'layer.blob');
      const cacheFull = () =>
        retryable(
          'CacheFull',
          `${what}: unpacking it would pass the image cache's limit of ${this.maxCacheBytes} bytes (--max-image-cache-bytes); the images catalogs serve are kept`,
        );
      for (const [i, layer] of manifest.layers.entries()) {
        const lwhat = `layer ${i + 1} of ${what}`;
        // The downloaded layer and the files unpacked so far must fit beside the other images.
        const room = (await this.roomBeside(applier)) - applier.stats.diskBytes;
        if (layer.size > room) throw cacheFull();
        applier.limitDisk(applier.stats.diskBytes + room - layer.size, cacheFull);
        // Download (verifying digest and size as it streams) before a byte reaches the tar reader.
        activity.doing(`fetching ${lwhat}`);
        const blob = await this.client.fetchBlob(ep, layer, lwhat, signal);
        activity.doing(
          `fetching ${lwhat}`,
          () => `${formatBytes(blob.bytes)} of ${formatBytes(layer.size)}`,
        );
        await pipeline(blob, createWriteStream(blobFile), { signal }).catch((err: unknown) => {
          if (signal.aborted) throw signal.reason;
          throw findSourceError(err)
            ? err
            : retryable('Unavailable', `${lwhat}: ${networkErrorCode(err)}`, networkCause(err));
        });
        activity.doing(`unpacking ${lwhat}`);
        const unreadable = (err: unknown) => {
          // An abort destroys the layer's read stream: its reason, not the tar reader's error.
          if (signal.aborted) throw signal.reason;
          throw findSourceError(err)
            ? err
            : terminal(
                'InvalidLayer',
                `${lwhat}: unreadable layer (${networkErrorCode(err)})`,
                err,
              );
        };
        // Check names and caps first, so that a hostile layer fails before any of it is written.
        await applier
          .check(abortable(createReadStream(blobFile), signal), compressions[i]!, lwhat)
          .catch(unreadable);
        await applier
          .apply(abortable(createReadStream(blobFile), signal), compressions[i]!, lwhat)
          .catch(unreadable);
        await rm(blobFile, { force: true });
      }
      const st = await stat(applier.catalogPath).catch(() => undefined);
      if (!st?.isDirectory())
        throw terminal(
          'CatalogDirMissing',
          `${what}: the image has no catalog directory ${catalogDir}`,
        );
      const meta: CacheMeta = {
        digest,
        manifestDigest,
        catalogDir,
        files: applier.stats.files,
        bytes: applier.stats.bytes,
        diskBytes: applier.stats.diskBytes,
      };
      return await this.cache.commit(tmp, key, meta);
    } catch (err) {
      await removeTree(tmp);
      throw err;
    } finally {
      this.unpacking.delete(applier);
    }
  }

  /** Bytes the cache's bound leaves for `applier`: the complete images and other unpacks count. */
  private async roomBeside(applier: LayerApplier): Promise<number> {
    let used = await this.cache.usedBytes();
    for (const other of this.unpacking) if (other !== applier) used += other.stats.diskBytes;
    return this.maxCacheBytes - used;
  }
}

/** Destroys stream when signal aborts: the unpacker reading it stops at its next chunk. */
function abortable<S extends Readable>(stream: S, signal: AbortSignal): S {
  if (signal.aborted) stream.destroy(signal.reason as Error);
  const onAbort = () => stream.destroy(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  stream.once('close', () => signal.removeEventListener('abort', onAbort));
  return stream;
}
