// A focused OCI distribution client: manifests and blobs of one endpoint (host + repository),
// with Basic and Bearer auth (tokens cached per realm/service/scope: registry-auth.ts), blob
// redirects (the registry's credentials are never sent to another origin; a redirect or a token
// realm goes only where destinations.ts allows: registry-call.ts, registry-transport.ts), retries
// on 429/5xx/network errors, and streaming digest/size verification. Every request is counted.
// No text of a response body reaches an error message: a registry's, a redirect target's or a
// token server's answer may be anything, and messages end up in ClusterCatalog status and Events.
import { finished, type Readable } from 'node:stream';
import { newCounters, type SourceCounters } from './counters.js';
import type { DestinationOptions } from './destinations.js';
import { digestOf, hashAlgorithm, VerifyingStream } from './digest.js';
import { realClock, type Clock } from '../util/clock.js';
import { formatBytes, formatDuration } from '../util/deadline.js';
import { readLimited } from '../util/limits.js';
import { findSourceError, networkCause, networkErrorCode, retryable, terminal } from './errors.js';
import {
  defaultMinimumRate,
  drain,
  rateGuard,
  type MinimumRate,
  type HttpClient,
  type HttpResponse,
} from './http.js';
import { manifestAccept, MediaTypes, type Descriptor } from './manifest.js';
import type { Endpoint } from './registries-conf.js';
import { RegistryAuth, type CredentialLookup } from './registry-auth.js';
import { sendCall, type Call } from './registry-call.js';
import { statusError } from './registry-status.js';
import { RegistryTransport } from './registry-transport.js';
import { defaultRetryPolicy, type RetryClock, type RetryPolicy } from './retry.js';

export type { CredentialLookup } from './registry-auth.js';

export interface RegistryClientOptions {
  http: HttpClient;
  clock?: RetryClock;
  retry?: RetryPolicy;
  credentials?: CredentialLookup;
  counters?: SourceCounters;
  maxManifestBytes?: number;
  /** Blob transfers slower than this fail (default defaultMinimumRate). */
  minimumRate?: MinimumRate;
  /** The timers of the rate check (default the real clock). */
  timers?: Pick<Clock, 'setTimer'>;
  /** Where redirects and token realms may send requests (destinations.ts). */
  destinations?: DestinationOptions;
}

export interface FetchedManifest {
  digest: string;
  contentType: string | undefined;
  bytes: Buffer;
}

/** Where a push goes: a client, the registry endpoint, and the reference as written (messages). */
export interface PushTarget {
  client: RegistryClient;
  endpoint: Endpoint;
  /** The reference as written, for messages. */
  what: string;
}

export class RegistryClient {
  readonly counters: SourceCounters;
  private readonly maxManifestBytes: number;
  private readonly minimumRate: MinimumRate;
  private readonly timers: Pick<Clock, 'setTimer'>;
  /** Every request goes through it: retries, counting, redirects' and realms' destinations. */
  private readonly transport: RegistryTransport;
  private readonly auth: RegistryAuth;

  constructor(opts: RegistryClientOptions) {
    const clock = opts.clock ?? realClock;
    this.counters = opts.counters ?? newCounters();
    this.maxManifestBytes = opts.maxManifestBytes ?? 4 * 1024 * 1024;
    this.minimumRate = opts.minimumRate ?? defaultMinimumRate;
    this.timers = opts.timers ?? realClock;
    this.transport = new RegistryTransport({
      http: opts.http,
      clock,
      retry: opts.retry ?? defaultRetryPolicy,
      counters: this.counters,
      destinations: opts.destinations,
    });
    this.auth = new RegistryAuth(
      this.transport,
      opts.credentials ?? (async () => undefined),
      clock,
    );
  }

  /** GETs a manifest by tag or digest; verifies it against the digest when there is one. */
  async fetchManifest(
    ep: Endpoint,
    reference: string,
    what: string,
    signal?: AbortSignal,
  ): Promise<FetchedManifest> {
    const byDigest = reference.includes(':');
    const res = await this.send(ep, {
      method: 'GET',
      path: `manifests/${reference}`,
      kind: 'manifest',
      headers: { accept: manifestAccept },
      what,
      signal,
    });
    if (res.status !== 200) throw await statusError(res, what, byDigest);
    const bytes = await this.readManifestBody(res, what, 'manifest');
    const header = res.headers['docker-content-digest'];
    const expected = byDigest ? reference : typeof header === 'string' ? header : undefined;
    const digest = digestOf(bytes, expected ? hashAlgorithm(expected) : 'sha256');
    if (expected && expected !== digest)
      throw retryable(
        'DigestMismatch',
        `${what}: digest mismatch: manifest content is ${digest}, expected ${expected}`,
      );
    const ct = res.headers['content-type'];
    return { digest, contentType: typeof ct === 'string' ? ct : undefined, bytes };
  }

  /**
   * GETs the OCI 1.1 referrers index of digest; undefined when the registry has no referrers API
   * (a 404, or an answer that is not an image index: distribution 2.8 answers "404 page not found").
   */
  async fetchReferrers(
    ep: Endpoint,
    digest: string,
    what: string,
    signal?: AbortSignal,
  ): Promise<Buffer | undefined> {
    const res = await this.send(ep, {
      method: 'GET',
      path: `referrers/${digest}`,
      kind: 'manifest',
      headers: { accept: MediaTypes.ociIndex },
      what,
      signal,
    });
    const ct = res.headers['content-type'];
    if (
      res.status === 404 ||
      (res.status === 200 && !(typeof ct === 'string' && ct.startsWith(MediaTypes.ociIndex)))
    ) {
      drain(res);
      return undefined;
    }
    if (res.status !== 200) throw await statusError(res, what, false);
    return this.readManifestBody(res, what, 'referrers index');
  }

  /** A manifest-sized body (at most maxManifestBytes), counted as manifest bytes. */
  private async readManifestBody(res: HttpResponse, what: string, noun: string): Promise<Buffer> {
    const bytes = await readLimited(res.body, this.maxManifestBytes, () =>
      retryable('LimitExceeded', `${what}: ${noun} larger than ${this.maxManifestBytes} bytes`),
    ).catch((err: unknown) => {
      throw findSourceError(err)
        ? err
        : retryable('Unavailable', `${what}: ${networkErrorCode(err)}`, networkCause(err));
    });
    this.counters.bytes.manifest += bytes.length;
    return bytes;
  }

  /** A stream of the blob's bytes that fails unless they match the descriptor's digest and size. */
  async fetchBlob(
    ep: Endpoint,
    desc: Descriptor,
    what: string,
    signal?: AbortSignal,
  ): Promise<VerifyingStream> {
    const res = await this.send(ep, {
      method: 'GET',
      path: `blobs/${desc.digest}`,
      kind: 'blob',
      what,
      signal,
    });
    if (res.status !== 200) throw await statusError(res, what, true);
    const rate = this.minimumRate;
    const guard = rateGuard(rate, this.timers, (bytes) =>
      res.body.destroy(
        retryable(
          'Timeout',
          `${what}: transfer slower than ${formatBytes(rate.bytesPerSecond)}/s over ` +
            `${formatDuration(rate.windowMs)}: ${formatBytes(bytes)} of ${formatBytes(desc.size)}`,
        ),
      ),
    );
    const verifier = new VerifyingStream(desc.digest, desc.size, what, (n) => {
      this.counters.bytes.blob += n;
      guard.count(n);
    });
    finished(verifier, () => guard.stop());
    res.body.on('error', (err) => {
      guard.stop();
      verifier.destroy(
        findSourceError(err)
          ? err
          : retryable('Unavailable', `${what}: ${networkErrorCode(err)}`, networkCause(err)),
      );
    });
    res.body.pipe(verifier);
    return verifier;
  }

  async fetchBlobBytes(
    ep: Endpoint,
    desc: Descriptor,
    what: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<Buffer> {
    if (desc.size > limit)
      throw terminal('LimitExceeded', `${what}: ${desc.size} bytes is over the limit of ${limit}`);
    return readLimited(await this.fetchBlob(ep, desc, what, signal), limit, () =>
      terminal('LimitExceeded', `${what}: over the limit of ${limit} bytes`),
    );
  }

  async blobExists(ep: Endpoint, digest: string, what: string): Promise<boolean> {
    const res = await this.send(ep, {
      method: 'HEAD',
      path: `blobs/${digest}`,
      kind: 'upload',
      push: true,
      what,
    });
    drain(res);
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw await statusError(res, what, false);
  }

  /** Uploads a blob (monolithic POST + PUT) unless the registry has it already. */
  async pushBlob(
    ep: Endpoint,
    digest: string,
    size: number,
    body: () => Buffer | Readable,
    what: string,
  ): Promise<void> {
    if (await this.blobExists(ep, digest, what)) return;
    const start = await this.send(ep, {
      method: 'POST',
      path: 'blobs/uploads/',
      kind: 'upload',
      push: true,
      what,
    });
    drain(start);
    const location = start.headers.location;
    if (start.status !== 202 || typeof location !== 'string')
      throw await statusError(start, what, false);
    const url = new URL(location, `${ep.scheme}://${ep.host}/`);
    url.searchParams.set('digest', digest);
    const put = await this.send(ep, {
      method: 'PUT',
      path: url,
      kind: 'upload',
      push: true,
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
      body,
      what,
    });
    drain(put);
    if (put.status !== 201) throw await statusError(put, what, false);
    this.counters.bytes.upload += size;
  }

  /** PUTs a manifest under a tag (or its digest); returns its digest. */
  async putManifest(
    ep: Endpoint,
    reference: string,
    mediaType: string,
    bytes: Buffer,
    what: string,
  ): Promise<string> {
    const res = await this.send(ep, {
      method: 'PUT',
      path: `manifests/${reference}`,
      kind: 'upload',
      push: true,
      headers: { 'content-type': mediaType, 'content-length': String(bytes.length) },
      body: () => bytes,
      what,
    });
    if (res.status !== 201 && res.status !== 200) throw await statusError(res, what, false);
    drain(res);
    this.counters.bytes.upload += bytes.length;
    return digestOf(bytes);
  }

  /** One call to ep through the auth rounds and judged redirects of registry-call.ts. */
  private send(ep: Endpoint, call: Call): Promise<HttpResponse> {
    return sendCall({ transport: this.transport, auth: this.auth }, ep, call);
  }
}
