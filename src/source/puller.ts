// Puller: resolves catalog image references to digests and pulls them into the digest-keyed
// cache. A tag costs one manifest request to resolve; a digest costs none; a cached digest costs
// no request at all. Mirrors from the registries config are tried before the registry itself.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DigestCache, type CacheMeta } from './cache.js';
import { newCounters, type SourceCounters } from './counters.js';
import { findCredentials, noPullSecrets, type PullSecretSource } from './docker-config.js';
import {
  findSourceError,
  networkErrorCode,
  retryable,
  SourceError,
  terminal,
  type SourceErrorCode,
} from './errors.js';
import { isTerminal, TerminalError } from '../util/errors.js';
import { NodeHttpClient, type HttpClient } from './http.js';
import { catalogDirFromConfig } from './labels.js';
import {
  defaultPlatform,
  formatPlatform,
  layerCompression,
  parseManifest,
  selectPlatform,
  type Manifest,
  type Platform,
} from './manifest.js';
import { formatReference, parseReference, withDigest, type ImageReference } from './reference.js';
import {
  emptyRegistriesConfig,
  endpointsFor,
  type Endpoint,
  type RegistriesConfig,
} from './registries-conf.js';
import { RegistryClient, type FetchedManifest } from './registry-client.js';
import type { RetryClock, RetryPolicy } from './retry.js';
import {
  catalogDirComponents,
  defaultUnpackLimits,
  LayerApplier,
  type UnpackLimits,
} from './unpack.js';

/** What the controller needs from the source. */
export interface Puller {
  /** The digest a reference points at now (no request for a digest reference). */
  resolve(ref: string): Promise<string>;
  /** Pulls (or finds in the cache) the image and returns where its catalog is on disk. */
  pull(ref: string): Promise<PullResult>;
}

export interface PullResult {
  /** `registry/repository@digest`. */
  ref: string;
  digest: string;
  /** The unpacked image filesystem (only the catalog subtree is present). Read-only. */
  dir: string;
  /** The catalog directory (the config label's path inside dir). */
  configsDir: string;
  /** Whether the cache had it (no registry request was made for content). */
  cached: boolean;
}

export interface ImagePullerOptions {
  cacheDir: string;
  registries?: RegistriesConfig;
  pullSecrets?: PullSecretSource;
  platform?: Platform;
  limits?: UnpackLimits;
  /** PEM CA bundle added to the system roots (ignored when `http` is given). */
  caBundle?: string | Buffer;
  http?: HttpClient;
  clock?: RetryClock;
  retry?: RetryPolicy;
  counters?: SourceCounters;
  maxConfigBytes?: number;
  maxLayers?: number;
}

/** Errors about the image's content: final for a digest, but a tag may be re-pushed. */
const contentErrors = new Set<SourceErrorCode>([
  'UnsafeLayer',
  'InvalidLayer',
  'LimitExceeded',
  'CatalogDirMissing',
  'NoMatchingPlatform',
  'UnsupportedMediaType',
]);

export class ImagePuller implements Puller {
  readonly counters: SourceCounters;
  readonly cache: DigestCache;
  private readonly client: RegistryClient;
  private readonly registries: RegistriesConfig;
  private readonly platform: Platform;
  private readonly limits: UnpackLimits;
  private readonly maxConfigBytes: number;
  private readonly maxLayers: number;
  private readonly inflight = new Map<string, Promise<PullResult>>();

  constructor(opts: ImagePullerOptions) {
    this.counters = opts.counters ?? newCounters();
    this.cache = new DigestCache(opts.cacheDir);
    this.registries = opts.registries ?? emptyRegistriesConfig;
    this.platform = opts.platform ?? defaultPlatform;
    this.limits = opts.limits ?? defaultUnpackLimits;
    this.maxConfigBytes = opts.maxConfigBytes ?? 8 * 1024 * 1024;
    this.maxLayers = opts.maxLayers ?? 256;
    const secrets = opts.pullSecrets ?? noPullSecrets;
    this.client = new RegistryClient({
      http: opts.http ?? new NodeHttpClient(opts.caBundle ? { ca: opts.caBundle } : {}),
      counters: this.counters,
      credentials: async (host, repo) => findCredentials(await secrets.dockerConfigs(), host, repo),
      ...(opts.clock && { clock: opts.clock }),
      ...(opts.retry && { retry: opts.retry }),
    });
  }

  /** Removes an image's unpacked content from the on-disk cache (a later pull fetches it again). */
  async evict(digest: string): Promise<void> {
    await this.cache.remove(DigestCache.key(digest, formatPlatform(this.platform)));
  }

  async resolve(input: string): Promise<string> {
    const ref = parseReference(input);
    if (ref.digest) return ref.digest;
    try {
      return (await this.fetchTop(ref, input)).manifest.digest;
    } catch (err) {
      throw wrap('resolve catalog image', input, err, false);
    }
  }

  async pull(input: string): Promise<PullResult> {
    const ref = parseReference(input);
    this.counters.pulls++;
    try {
      let top: { manifest: FetchedManifest; ep: Endpoint } | undefined;
      let digest = ref.digest;
      if (!digest) {
        top = await this.fetchTop(ref, input);
        digest = top.manifest.digest;
      }
      const key = DigestCache.key(digest, formatPlatform(this.platform));
      const hit = await this.cache.lookup(key);
      if (hit) {
        this.counters.cacheHits++;
        return this.result(ref, hit.dir, hit.meta, true);
      }
      let p = this.inflight.get(key);
      if (!p) {
        p = this.unpack(ref, input, digest, key, top).finally(() => this.inflight.delete(key));
        this.inflight.set(key, p);
      }
      return await p;
    } catch (err) {
      throw wrap('pull catalog image', input, err, ref.digest !== undefined);
    }
  }

  private result(ref: ImageReference, dir: string, meta: CacheMeta, cached: boolean): PullResult {
    return {
      ref: formatReference(withDigest(ref, meta.digest)),
      digest: meta.digest,
      dir,
      configsDir: path.join(dir, ...catalogDirComponents(meta.catalogDir)),
      cached,
    };
  }

  /** GETs the reference's manifest from the first endpoint that has it. */
  private async fetchTop(
    ref: ImageReference,
    input: string,
  ): Promise<{ manifest: FetchedManifest; ep: Endpoint }> {
    const reference = ref.digest ?? ref.tag ?? 'latest';
    return this.firstEndpoint(ref, input, (ep, what) =>
      this.client.fetchManifest(ep, reference, `manifest of ${what}`),
    ).then(({ value, ep }) => ({ manifest: value, ep }));
  }

  /** Runs op against each endpoint in order until one succeeds; mirrors' failures fall through. */
  private async firstEndpoint<T>(
    ref: ImageReference,
    input: string,
    op: (ep: Endpoint, what: string) => Promise<T>,
  ): Promise<{ value: T; ep: Endpoint }> {
    const eps = endpointsFor(this.registries, ref);
    const failures: { err: unknown; source: SourceError }[] = [];
    let mirrorNo = 0;
    for (const ep of eps) {
      const what = ep.mirror ? `${input} (mirror ${++mirrorNo})` : input;
      try {
        return { value: await op(ep, what), ep };
      } catch (err) {
        const source = findSourceError(err);
        if (!source) throw err;
        failures.push({ err, source });
      }
    }
    const last = failures.at(-1)!;
    if (failures.length === 1) throw last.err;
    // Terminal only if every endpoint said so: a mirror that is merely down may come back.
    const joined = new SourceError(
      last.source.code,
      failures.map((f) => f.source.message).join('; '),
      { cause: last.source },
    );
    throw failures.every((f) => isTerminal(f.err)) ? TerminalError.wrap(joined) : joined;
  }

  private async unpack(
    ref: ImageReference,
    input: string,
    digest: string,
    key: string,
    top: { manifest: FetchedManifest; ep: Endpoint } | undefined,
  ): Promise<PullResult> {
    const { value: fetched, ep } = top
      ? { value: top.manifest, ep: top.ep }
      : await this.firstEndpoint(ref, input, (e, what) =>
          this.client.fetchManifest(e, digest, `manifest of ${what}`),
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
      const m = await this.client.fetchManifest(ep, d.digest, `platform manifest of ${what}`);
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
    const compressions = manifest.layers.map((l, i) =>
      layerCompression(l.mediaType, `layer ${i + 1} of ${what}`),
    );
    const config = await this.client.fetchBlobBytes(
      ep,
      manifest.config,
      `config of ${what}`,
      this.maxConfigBytes,
    );
    const catalogDir = catalogDirFromConfig(config, `config of ${what}`);
    const tmp = await this.cache.tempDir();
    try {
      const fsDir = DigestCache.fsDir(tmp);
      const applier = new LayerApplier(fsDir, catalogDirComponents(catalogDir), this.limits);
      const blobFile = path.join(tmp, 'layer.blob');
      for (const [i, layer] of manifest.layers.entries()) {
        const lwhat = `layer ${i + 1} of ${what}`;
        // Download (verifying digest and size as it streams) before a byte reaches the tar reader.
        await pipeline(
          await this.client.fetchBlob(ep, layer, lwhat),
          createWriteStream(blobFile),
        ).catch((err: unknown) => {
          throw findSourceError(err)
            ? err
            : retryable('Unavailable', `${lwhat}: ${networkErrorCode(err)}`, err);
        });
        const unreadable = (err: unknown) => {
          throw findSourceError(err)
            ? err
            : terminal(
                'InvalidLayer',
                `${lwhat}: unreadable layer (${networkErrorCode(err)})`,
                err,
              );
        };
        // Check names and caps first, so that a hostile layer fails before any of it is written.
        await applier.check(createReadStream(blobFile), compressions[i]!, lwhat).catch(unreadable);
        await applier.apply(createReadStream(blobFile), compressions[i]!, lwhat).catch(unreadable);
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
      };
      const entry = await this.cache.commit(tmp, key, meta);
      return this.result(ref, entry.dir, entry.meta, false);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }
}

/**
 * Wraps err for the caller, adjusting whether it is terminal: content errors of a tag are not
 * (the tag may be re-pushed), so they lose their TerminalError.
 */
function wrap(action: string, input: string, err: unknown, byDigest: boolean): Error {
  const se = findSourceError(err);
  if (!se) return new Error(`${action} ${input}`, { cause: err });
  const stillTerminal = isTerminal(err) && (byDigest || !contentErrors.has(se.code));
  const cause = stillTerminal ? TerminalError.wrap(se) : se;
  return new Error(`${action} ${input}: ${se.message}`, { cause });
}
