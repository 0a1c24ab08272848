// Puller: resolves catalog image references to digests and pulls them into the digest-keyed
// cache. A tag costs one manifest request to resolve; a digest costs none; a cached digest costs
// no request at all. Mirrors from the registries config are tried before the registry itself
// (first-endpoint.ts); attempts that want the same image share one pull (shared-pulls.ts), which
// fetches and unpacks it (image-unpacker.ts).
import path from 'node:path';
import { DigestCache, type CacheMeta } from './cache.js';
import type { Resolver } from './destinations.js';
import { newCounters, type SourceCounters } from './counters.js';
import { findCredentials, noPullSecrets, type PullSecretSource } from './docker-config.js';
import { findSourceError, SourceError, unlessNotFound } from './errors.js';
import type { Clock } from '../util/clock.js';
import { findInChain, isTerminal, TerminalError, withContentFinality } from '../util/errors.js';
import { DeadlineExceeded, noActivity, type Activity as PullActivity } from '../util/deadline.js';
import { firstEndpoint } from './first-endpoint.js';
import { NodeHttpClient, type HttpClient, type MinimumRate } from './http.js';
import { ImageUnpacker } from './image-unpacker.js';
import { defaultPlatform, formatPlatform, type Platform } from './manifest.js';
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
import { SharedPulls } from './shared-pulls.js';
import { catalogDirComponents, defaultUnpackLimits, type UnpackLimits } from './unpack.js';

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

export class ImagePuller implements Puller {
  readonly counters: SourceCounters;
  readonly cache: DigestCache;
  private readonly client: RegistryClient;
  private readonly registries: RegistriesConfig;
  private readonly platform: Platform;
  /** The pulls that run, shared by the attempts that want the same image. */
  private readonly inflight = new SharedPulls<PullResult>();
  private readonly signatures: ImageSignatureCheck | undefined;
  private readonly unpacker: ImageUnpacker;
  /** Cache keys held by attempts (PullOptions.hold), with how many hold each. */
  private readonly holds = new Map<string, number>();
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
    this.unpacker = new ImageUnpacker({
      client: this.client,
      cache: this.cache,
      registries: this.registries,
      platform: this.platform,
      limits: opts.limits ?? defaultUnpackLimits,
      maxConfigBytes: opts.maxConfigBytes ?? 8 * 1024 * 1024,
      maxLayers: opts.maxLayers ?? 256,
      maxCacheBytes: opts.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES,
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
        const pulled = await this.inflight.join(key, activity, signal, (shared) =>
          this.unpacker
            .unpack(ref, input, digest, key, top, shared)
            .then((entry) => this.result(ref, entry.dir, entry.meta, false))
            .catch((err: unknown) => {
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
    return firstEndpoint(this.registries, ref, input, signal, (ep, what) =>
      this.client.fetchManifest(ep, reference, `manifest of ${what}`, signal),
    ).then(({ value, ep }) => ({ manifest: value, ep }));
  }
}

/** The attempt's time ran out (its signal's reason): a retryable Timeout of the source. */
function timeout(err: unknown): SourceError | undefined {
  const d = findInChain(err, DeadlineExceeded);
  return d && new SourceError('Timeout', d.message, { cause: d });
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
