// Puller: resolves catalog image references to digests and pulls them into the digest-keyed
// cache. A tag costs one manifest request to resolve; a digest costs none; a cached digest costs
// no request at all. Mirrors from the registries config are tried before the registry itself.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { removeTree } from '../util/remove-tree.js';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestCache, type CacheMeta } from './cache.js';
import type { Resolver } from './destinations.js';
import { newCounters, type SourceCounters } from './counters.js';
import { findCredentials, noPullSecrets, type PullSecretSource } from './docker-config.js';
import {
  findSourceError,
  networkCause,
  networkErrorCode,
  retryable,
  SourceError,
  terminal,
  unlessNotFound,
} from './errors.js';
import type { Clock } from '../util/clock.js';
import { findInChain, isTerminal, TerminalError, withContentFinality } from '../util/errors.js';
import {
  DeadlineExceeded,
  formatBytes,
  noActivity,
  type Activity as PullActivity,
} from '../util/deadline.js';
import { NodeHttpClient, type HttpClient, type MinimumRate } from './http.js';
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
import type { SignatureSource } from './signature/verifier.js';
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
  resolve(ref: string, opts?: PullOptions): Promise<string>;
  /** Pulls (or finds in the cache) the image and returns where its catalog is on disk. */
  pull(ref: string, opts?: PullOptions): Promise<PullResult>;
}

export interface PullOptions {
  /**
   * Keep the image in the cache, whatever prune() is told, until the result's release() is
   * called (an attempt that parses it holds it until it ends).
   */
  hold?: boolean;
  /**
   * Aborting ends the attempt with the signal's reason: requests and response bodies are
   * destroyed, the unpack stops, nothing is cached.
   */
  signal?: AbortSignal | undefined;
  /** Told what the pull is doing (for the message of a timeout). */
  activity?: PullActivity | undefined;
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
  /** Ends the hold asked for with PullOptions.hold (idempotent). */
  release?: () => void;
}

/** The image cache's total bound by default: the size of the largest image it unpacks. */
export const DEFAULT_MAX_CACHE_BYTES = 1024 * 1024 * 1024;

/** Digests whose refusal for a size bound is remembered (oldest forgotten first). */
const REFUSALS_REMEMBERED = 1024;

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
  /**
   * Bytes the cache's unpacked images may hold together (default 1 GiB); an image that would
   * pass it is refused (CacheFull, retried with backoff), the images other catalogs use kept.
   */
  maxCacheBytes?: number;
  /** Blob transfers slower than this fail (default 1 kB/s over 30 s). */
  minimumRate?: MinimumRate;
  /** The timers of the rate check (default the real clock). */
  timers?: Pick<Clock, 'setTimer'>;
  /** Checks each resolved digest's signatures before anything of the image is fetched. */
  signatures?: ImageSignatureCheck;
  /**
   * Hosts (names or addresses) no redirect or Bearer token realm may send a request to unless
   * the registry is on one of them: the apiserver's (docs/source.md, "Redirects and token realms").
   */
  forbiddenHosts?: readonly string[];
  /** Resolves redirect targets' and token realms' names before they are judged (default DNS). */
  resolver?: Resolver;
}

/** What the puller needs from a signature verifier (src/source/signature). */
export interface ImageSignatureCheck {
  /** Resolves when the policy accepts image@digest; throws (a SourceError) when it does not. */
  verify(image: ImageReference, digest: string, sources: SignatureSource[]): Promise<void>;
}

/**
 * A pull of one image shared by every attempt that wants it: it is aborted only when every
 * attempt waiting for it has aborted, and tells each of them what it is doing.
 */
interface SharedPull {
  promise: Promise<PullResult>;
  controller: AbortController;
  waiters: number;
  activities: Set<PullActivity>;
}

export class ImagePuller implements Puller {
  readonly counters: SourceCounters;
  readonly cache: DigestCache;
  private readonly client: RegistryClient;
  private readonly registries: RegistriesConfig;
  private readonly platform: Platform;
  private readonly limits: UnpackLimits;
  private readonly maxConfigBytes: number;
  private readonly maxLayers: number;
  private readonly inflight = new Map<string, SharedPull>();
  private readonly signatures: ImageSignatureCheck | undefined;
  private readonly maxCacheBytes: number;
  /** Cache keys held by attempts (PullOptions.hold), with how many hold each. */
  private readonly holds = new Map<string, number>();
  /** Appliers unpacking now, whose bytes count against the cache's bound. */
  private readonly unpacking = new Set<LayerApplier>();
  /**
   * Digests refused for a size bound, with the error: a digest's content never changes, so the
   * same refusal is given again at once, without a byte fetched (a tag's retry, a poll).
   */
  private readonly refusals = new Map<string, Error>();

  constructor(opts: ImagePullerOptions) {
    this.counters = opts.counters ?? newCounters();
    this.cache = new DigestCache(opts.cacheDir);
    this.registries = opts.registries ?? emptyRegistriesConfig;
    this.platform = opts.platform ?? defaultPlatform;
    this.limits = opts.limits ?? defaultUnpackLimits;
    this.maxConfigBytes = opts.maxConfigBytes ?? 8 * 1024 * 1024;
    this.maxLayers = opts.maxLayers ?? 256;
    this.maxCacheBytes = opts.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES;
    this.signatures = opts.signatures;
    const secrets = opts.pullSecrets ?? noPullSecrets;
    this.client = new RegistryClient({
      http: opts.http ?? new NodeHttpClient(opts.caBundle ? { ca: opts.caBundle } : {}),
      counters: this.counters,
      credentials: async (host, repo) => findCredentials(await secrets.dockerConfigs(), host, repo),
      ...(opts.clock && { clock: opts.clock }),
      ...(opts.retry && { retry: opts.retry }),
      ...(opts.minimumRate && { minimumRate: opts.minimumRate }),
      ...(opts.timers && { timers: opts.timers }),
      destinations: {
        ...(opts.forbiddenHosts && { forbiddenHosts: opts.forbiddenHosts }),
        ...(opts.resolver && { resolve: opts.resolver }),
      },
    });
  }

  /** Removes an image's unpacked content from the on-disk cache (a later pull fetches it again). */
  async evict(digest: string): Promise<void> {
    await this.cache.remove(DigestCache.key(digest, formatPlatform(this.platform)));
  }

  /**
   * Removes every unpacked image but those of `keep` (the digests catalogs serve), those that
   * attempts hold and those being pulled; leftover temp dirs too when no pull runs. Returns the
   * digests removed.
   */
  async prune(keep: Iterable<string>): Promise<string[]> {
    const platform = formatPlatform(this.platform);
    const kept = new Set([...keep].map((d) => DigestCache.key(d, platform)));
    const removed = await this.cache.prune(
      (key) => kept.has(key) || this.holds.has(key) || this.inflight.has(key),
      { temps: this.inflight.size === 0 },
    );
    const suffix = `_${platform.replaceAll('/', '-')}`;
    return removed.map((k) => k.slice(0, -suffix.length).replace('-', ':'));
  }

  private hold(key: string): () => void {
    this.holds.set(key, (this.holds.get(key) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const n = (this.holds.get(key) ?? 1) - 1;
      if (n > 0) this.holds.set(key, n);
      else this.holds.delete(key);
    };
  }

  async resolve(input: string, opts: PullOptions = {}): Promise<string> {
    const ref = parseReference(input);
    if (ref.digest) return ref.digest;
    const { signal } = opts;
    try {
      (opts.activity ?? noActivity).doing(`resolving ${input}`);
      return (await this.fetchTop(ref, input, signal)).manifest.digest;
    } catch (err) {
      throw wrap('resolve catalog image', input, signal?.aborted ? signal.reason : err, false);
    }
  }

  async pull(input: string, opts: PullOptions = {}): Promise<PullResult> {
    const ref = parseReference(input);
    const { signal } = opts;
    const activity = opts.activity ?? noActivity;
    this.counters.pulls++;
    try {
      let top: { manifest: FetchedManifest; ep: Endpoint } | undefined;
      let digest = ref.digest;
      if (!digest) {
        activity.doing(`resolving ${input}`);
        top = await this.fetchTop(ref, input, signal);
        digest = top.manifest.digest;
      }
      if (this.signatures) {
        // On the digest, before the config or a layer is fetched, and before a cached copy is
        // used: the policy may have changed since it was pulled.
        activity.doing(`verifying the signatures of ${input}`);
        await this.signatures.verify(ref, digest, this.signatureSources(ref, signal));
      }
      const key = DigestCache.key(digest, formatPlatform(this.platform));
      const release = opts.hold ? this.hold(key) : undefined;
      try {
        const hit = await this.cache.lookup(key);
        if (hit) {
          this.counters.cacheHits++;
          return { ...this.result(ref, hit.dir, hit.meta, true), ...(release && { release }) };
        }
        const refused = this.refusals.get(key);
        if (refused) throw refused;
        const pulled = await this.join(key, activity, signal, (shared) =>
          this.unpack(ref, input, digest, key, top, shared).catch((err: unknown) => {
            this.rememberRefusal(key, err);
            throw err;
          }),
        );
        return { ...pulled, ...(release && { release }) };
      } catch (err) {
        release?.();
        throw err;
      }
    } catch (err) {
      throw wrap(
        'pull catalog image',
        input,
        signal?.aborted ? signal.reason : err,
        ref.digest !== undefined,
      );
    }
  }

  /** Remembers a size bound's refusal of key's image: it would be the same every time. */
  private rememberRefusal(key: string, err: unknown): void {
    if (findSourceError(err)?.code !== 'LimitExceeded' || !isTerminal(err)) return;
    this.refusals.delete(key);
    this.refusals.set(key, err as Error);
    if (this.refusals.size > REFUSALS_REMEMBERED)
      this.refusals.delete(this.refusals.keys().next().value!);
  }

  /** Waits for the shared pull of key (starting it if none runs) until it settles or signal aborts. */
  private async join(
    key: string,
    activity: PullActivity,
    signal: AbortSignal | undefined,
    start: (shared: { signal: AbortSignal; activity: PullActivity }) => Promise<PullResult>,
  ): Promise<PullResult> {
    signal?.throwIfAborted();
    let shared = this.inflight.get(key);
    if (!shared) {
      const controller = new AbortController();
      const activities = new Set<PullActivity>();
      const fanOut: PullActivity = {
        doing: (what, detail) => {
          for (const a of activities) a.doing(what, detail);
        },
      };
      const s: SharedPull = {
        controller,
        activities,
        waiters: 0,
        promise: start({ signal: controller.signal, activity: fanOut }).finally(() => {
          if (this.inflight.get(key) === s) this.inflight.delete(key);
        }),
      };
      shared = s;
      this.inflight.set(key, s);
    }
    const s = shared;
    s.waiters++;
    s.activities.add(activity);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        s.activities.delete(activity);
        const reason = signal!.reason as Error;
        if (--s.waiters > 0) {
          // The others still want the image: the transfer goes on for them.
          reject(reason);
          return;
        }
        // The last one out stops the transfer, and returns once its temp dir is removed.
        s.controller.abort(reason);
        if (this.inflight.get(key) === s) this.inflight.delete(key);
        s.promise.then(
          () => reject(reason),
          () => reject(reason),
        );
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([s.promise, aborted]);
    } finally {
      if (!signal?.aborted) {
        s.waiters--;
        s.activities.delete(activity);
      }
      if (onAbort) signal?.removeEventListener('abort', onAbort);
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

  /** Each endpoint of ref (mirrors first), as a place to read signatures from. */
  private signatureSources(
    ref: ImageReference,
    signal: AbortSignal | undefined,
  ): SignatureSource[] {
    return endpointsFor(this.registries, ref).map((ep) => ({
      taggedManifest: (tag, what) =>
        unlessNotFound(this.client.fetchManifest(ep, tag, what, signal)),
      referrers: (digest, what) => this.client.fetchReferrers(ep, digest, what, signal),
      manifest: async (digest, what) =>
        (await this.client.fetchManifest(ep, digest, what, signal)).bytes,
      blob: (desc, what, limit) => this.client.fetchBlobBytes(ep, desc, what, limit, signal),
    }));
  }

  /** GETs the reference's manifest from the first endpoint that has it. */
  private async fetchTop(
    ref: ImageReference,
    input: string,
    signal: AbortSignal | undefined,
  ): Promise<{ manifest: FetchedManifest; ep: Endpoint }> {
    const reference = ref.digest ?? ref.tag ?? 'latest';
    return this.firstEndpoint(ref, input, signal, (ep, what) =>
      this.client.fetchManifest(ep, reference, `manifest of ${what}`, signal),
    ).then(({ value, ep }) => ({ manifest: value, ep }));
  }

  /** Runs op against each endpoint in order until one succeeds; mirrors' failures fall through. */
  private async firstEndpoint<T>(
    ref: ImageReference,
    input: string,
    signal: AbortSignal | undefined,
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
        // Aborted: no other endpoint is tried.
        if (signal?.aborted) throw signal.reason;
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
    { signal, activity }: { signal: AbortSignal; activity: PullActivity },
  ): Promise<PullResult> {
    activity.doing(`fetching the manifest of ${input}`);
    const { value: fetched, ep } = top
      ? { value: top.manifest, ep: top.ep }
      : await this.firstEndpoint(ref, input, signal, (e, what) =>
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
      const entry = await this.cache.commit(tmp, key, meta);
      return this.result(ref, entry.dir, entry.meta, false);
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

/** The attempt's time ran out (its signal's reason): a retryable Timeout of the source. */
function timeout(err: unknown): SourceError | undefined {
  const d = findInChain(err, DeadlineExceeded);
  return d && new SourceError('Timeout', d.message, { cause: d });
}

/** Destroys stream when signal aborts: the unpacker reading it stops at its next chunk. */
function abortable<S extends Readable>(stream: S, signal: AbortSignal): S {
  if (signal.aborted) stream.destroy(signal.reason as Error);
  const onAbort = () => stream.destroy(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  stream.once('close', () => signal.removeEventListener('abort', onAbort));
  return stream;
}

/**
 * Wraps err for the caller, with the finality the input reference gives content errors
 * (withContentFinality): final under a digest, retryable under a tag that may be re-pushed.
 */
function wrap(action: string, input: string, err: unknown, byDigest: boolean): Error {
  const se = findSourceError(err) ?? timeout(err);
  if (!se) return new Error(`${action} ${input}`, { cause: err });
  const final = isTerminal(withContentFinality(err, byDigest));
  return new Error(`${action} ${input}: ${se.message}`, {
    cause: final ? TerminalError.wrap(se) : se,
  });
}
