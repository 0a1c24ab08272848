// A focused OCI distribution client: manifests and blobs of one endpoint (host + repository),
// with Basic and Bearer auth (tokens cached per realm/service/scope), blob redirects (the registry's
// credentials are never sent to another origin; a redirect or a token realm goes only where
// destinations.ts allows), retries on 429/5xx/network errors, and streaming digest/size
// verification. Every request is counted. No text of a response body reaches an error message:
// a registry's, a redirect target's or a token server's answer may be anything, and messages end
// up in ClusterCatalog status and Events.
import { finished, type Readable } from 'node:stream';
import {
  parseWWWAuthenticate,
  repositoryScope,
  TokenCache,
  tokenFromResponse,
  type TokenResponse,
} from './auth.js';
import { newCounters, type RequestKind, type SourceCounters } from './counters.js';
import { Destinations, type DestinationOptions, type Refusal } from './destinations.js';
import { digestOf, hashAlgorithm, VerifyingStream } from './digest.js';
import type { Credentials } from './docker-config.js';
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
  type HttpRequest,
  type HttpResponse,
} from './http.js';
import { manifestAccept, MediaTypes, type Descriptor } from './manifest.js';
import type { Endpoint } from './registries-conf.js';
import {
  defaultRetryPolicy,
  parseRetryAfter,
  withRetries,
  type RetryClock,
  type RetryPolicy,
} from './retry.js';

export type CredentialLookup = (
  host: string,
  repository: string,
) => Promise<Credentials | undefined>;

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

type HostAuth =
  | { scheme: 'basic' }
  | {
      scheme: 'bearer';
      realm: string;
      service: string;
      /** The address the challenge came from (a realm is judged against it). */
      registryAddress: string | undefined;
    };

interface Call {
  method: string;
  /** Path below /v2/<repository>/, or an absolute URL (upload locations). */
  path: string | URL;
  kind: RequestKind;
  push?: boolean;
  headers?: Record<string, string>;
  body?: HttpRequest['body'];
  what: string;
  signal?: AbortSignal | undefined;
}

const retryableStatus = (s: number) =>
  s === 429 || s === 500 || s === 502 || s === 503 || s === 504;
const redirectStatus = (s: number) => s === 301 || s === 302 || s === 303 || s === 307 || s === 308;

/** Where a push goes: a client, the registry endpoint, and the reference as written (messages). */
export interface PushTarget {
  client: RegistryClient;
  endpoint: Endpoint;
  /** The reference as written, for messages. */
  what: string;
}

export class RegistryClient {
  readonly counters: SourceCounters;
  private readonly http: HttpClient;
  private readonly clock: RetryClock;
  private readonly retry: RetryPolicy;
  private readonly credentials: CredentialLookup;
  private readonly maxManifestBytes: number;
  private readonly minimumRate: MinimumRate;
  private readonly timers: Pick<Clock, 'setTimer'>;
  private readonly tokens = new TokenCache();
  private readonly hostAuth = new Map<string, HostAuth>();
  private readonly destinations: Destinations;

  constructor(opts: RegistryClientOptions) {
    this.http = opts.http;
    this.clock = opts.clock ?? realClock;
    this.retry = opts.retry ?? defaultRetryPolicy;
    this.credentials = opts.credentials ?? (async () => undefined);
    this.counters = opts.counters ?? newCounters();
    this.maxManifestBytes = opts.maxManifestBytes ?? 4 * 1024 * 1024;
    this.minimumRate = opts.minimumRate ?? defaultMinimumRate;
    this.timers = opts.timers ?? realClock;
    this.destinations = new Destinations(opts.destinations);
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

  private async send(ep: Endpoint, call: Call): Promise<HttpResponse> {
    const origin = `${ep.scheme}://${ep.host}`;
    let url =
      call.path instanceof URL ? call.path : new URL(`${origin}/v2/${ep.repository}/${call.path}`);
    const scope = repositoryScope(ep.repository, call.push ?? false);
    let auth = await this.authorization(ep, scope, call.what, call.signal);
    let authRounds = 0;
    /** Where a judged redirect target's connection goes (undefined: the registry's own origin). */
    let connectTo: { address: string; family: 4 | 6 } | undefined;
    /** The address the registry answered from: redirects are judged against it. */
    let registryAddress: string | undefined;
    for (let redirects = 0; ;) {
      const headers = {
        ...call.headers,
        ...(auth && url.origin === origin && { authorization: auth }),
      };
      const res = await this.attempt(
        {
          method: call.method,
          url,
          headers,
          body: call.body,
          ...(call.signal && { signal: call.signal }),
          ...(connectTo && { connectTo }),
        },
        call.kind,
        call.what,
      );
      if (url.origin === origin) registryAddress = res.remoteAddress ?? registryAddress;
      if (res.status === 401 && url.origin === origin && authRounds < 2) {
        drain(res);
        authRounds++;
        auth = await this.answerChallenge(
          ep,
          scope,
          res.headers['www-authenticate'],
          auth,
          registryAddress,
          call.what,
          call.signal,
        );
        continue;
      }
      const location = res.headers.location;
      if (
        redirectStatus(res.status) &&
        typeof location === 'string' &&
        redirects < 5 &&
        call.method !== 'PUT' &&
        call.method !== 'POST'
      ) {
        drain(res);
        redirects++;
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw retryable('BadResponse', `${call.what}: the registry redirected to no valid URL`);
        }
        connectTo =
          next.origin === origin
            ? undefined
            : await this.admit(
                { registry: new URL(origin), registryAddress, from: url, to: next },
                'redirect',
                call.what,
              );
        url = next;
        continue;
      }
      return res;
    }
  }

  /**
   * Where the registry sends us (a redirect, a token realm), if it may (destinations.ts): the
   * address to connect to for a name. A refusal names neither the target nor anything it said.
   */
  private async admit(
    move: Parameters<Destinations['judge']>[0],
    kind: 'redirect' | 'token realm',
    what: string,
  ): Promise<{ address: string; family: 4 | 6 } | undefined> {
    const verdict = await this.destinations.judge(move);
    if (!verdict.allowed)
      throw retryable(
        'BadResponse',
        `${what}: refused the registry's ${kind}: ${refusal[verdict.why]}`,
      );
    return verdict.pin;
  }

  /** One request with retries on network errors, 429 and 5xx. */
  private async attempt(req: HttpRequest, kind: RequestKind, what: string): Promise<HttpResponse> {
    try {
      return await withRetries(
        this.retry,
        this.clock,
        async (n) => {
          this.counters.requests[kind]++;
          if (n > 0) this.counters.retries++;
          return this.http.send(req);
        },
        (o) => {
          if ('error' in o) return { retry: true };
          if (!retryableStatus(o.value.status)) return { retry: false };
          drain(o.value);
          const after = parseRetryAfter(o.value.headers['retry-after'], this.clock.now());
          return { retry: true, ...(after !== undefined && { afterMs: after }) };
        },
        req.signal,
      );
    } catch (err) {
      if (req.signal?.aborted) throw err;
      throw retryable(
        'Unavailable',
        `${what}: registry unreachable (${networkErrorCode(err)})`,
        networkCause(err),
      );
    }
  }

  private async authorization(
    ep: Endpoint,
    scope: string,
    what: string,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const ha = this.hostAuth.get(`${ep.scheme}://${ep.host}`);
    if (!ha) return undefined;
    const creds = await this.credentials(ep.host, ep.repository);
    if (ha.scheme === 'basic') return creds ? basic(creds) : undefined;
    const key = TokenCache.key(ha.realm, ha.service, scope);
    const cached = this.tokens.get(key, this.clock.now());
    if (cached) return `Bearer ${cached}`;
    return `Bearer ${await this.fetchToken(ep, ha, scope, creds, key, what, signal)}`;
  }

  private async answerChallenge(
    ep: Endpoint,
    scope: string,
    header: string | string[] | undefined,
    previous: string | undefined,
    registryAddress: string | undefined,
    what: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const challenges = parseWWWAuthenticate(Array.isArray(header) ? header.join(', ') : header);
    const bearer = challenges.find((c) => c.scheme === 'bearer');
    const creds = await this.credentials(ep.host, ep.repository);
    const origin = `${ep.scheme}://${ep.host}`;
    if (bearer?.params.realm) {
      const { realm } = bearer.params;
      const service = bearer.params.service ?? '';
      const ha = { scheme: 'bearer', realm, service, registryAddress } as const;
      this.hostAuth.set(origin, ha);
      const key = TokenCache.key(realm, service, scope);
      const cached = this.tokens.get(key, this.clock.now());
      if (cached && `Bearer ${cached}` !== previous) return `Bearer ${cached}`;
      if (previous?.startsWith('Bearer ')) this.tokens.delete(key);
      return `Bearer ${await this.fetchToken(ep, ha, bearer.params.scope ?? scope, creds, key, what, signal)}`;
    }
    if (challenges.some((c) => c.scheme === 'basic')) {
      this.hostAuth.set(origin, { scheme: 'basic' });
      if (!creds)
        throw retryable(
          'Unauthorized',
          `${what}: the registry requires authentication and no pull secret has credentials for it`,
        );
      if (previous?.startsWith('Basic '))
        throw retryable('Unauthorized', `${what}: the registry rejected the credentials`);
      return basic(creds);
    }
    throw retryable(
      'Unauthorized',
      `${what}: the registry answered 401 without a usable challenge`,
    );
  }

  private async fetchToken(
    ep: Endpoint,
    { realm, service, registryAddress }: Extract<HostAuth, { scheme: 'bearer' }>,
    scope: string,
    creds: Credentials | undefined,
    key: string,
    what: string,
    signal?: AbortSignal,
  ): Promise<string> {
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw retryable('Unauthorized', `${what}: the registry's token realm is not a URL`);
    }
    // Judged at every token request: the realm's name may resolve elsewhere by then.
    const registry = new URL(`${ep.scheme}://${ep.host}`);
    const connectTo = await this.admit(
      { registry, registryAddress, from: registry, to: url },
      'token realm',
      what,
    );
    if (service) url.searchParams.set('service', service);
    url.searchParams.set('scope', scope);
    const res = await this.attempt(
      {
        method: 'GET',
        url,
        headers: creds ? { authorization: basic(creds) } : {},
        ...(signal && { signal }),
        ...(connectTo && { connectTo }),
      },
      'token',
      `${what}: token server`,
    );
    if (res.status !== 200) {
      drain(res);
      if (res.status === 401 || res.status === 403)
        throw retryable(
          'Unauthorized',
          `${what}: the token server refused the credentials (HTTP ${res.status})`,
        );
      throw retryable('Unavailable', `${what}: the token server returned HTTP ${res.status}`);
    }
    const body = await readLimited(res.body, 1024 * 1024, () =>
      retryable('BadResponse', `${what}: token response too large`),
    );
    let parsed: TokenResponse;
    try {
      parsed = JSON.parse(body.toString('utf8')) as TokenResponse;
    } catch {
      // Not the parser's error as a cause: its message quotes the body.
      throw retryable('BadResponse', `${what}: token response is not valid JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null)
      throw retryable('BadResponse', `${what}: token response has no token`);
    const tok = tokenFromResponse(parsed, this.clock.now());
    if (!tok) throw retryable('BadResponse', `${what}: token response has no token`);
    this.tokens.set(key, tok.token, tok.expiresAt);
    return tok.token;
  }
}

/** Why a redirect or token realm was refused, in words that say nothing of the target. */
const refusal: Record<Refusal, string> = {
  scheme: 'not to an http or https URL',
  downgrade: 'from https to plain http',
  class:
    "to an address more private than the registry's (loopback, link-local, private network or " +
    'the apiserver) or one that does not resolve (docs/source.md, "Redirects and token realms")',
};

/**
 * The error codes of the distribution spec (and Docker Hub's TOOMANYREQUESTS): the only text of
 * an error body a message may carry, as our own strings.
 */
const registryErrorCodes = new Set([
  'BLOB_UNKNOWN',
  'BLOB_UPLOAD_INVALID',
  'BLOB_UPLOAD_UNKNOWN',
  'DIGEST_INVALID',
  'MANIFEST_BLOB_UNKNOWN',
  'MANIFEST_INVALID',
  'MANIFEST_UNKNOWN',
  'MANIFEST_UNVERIFIED',
  'NAME_INVALID',
  'NAME_UNKNOWN',
  'SIZE_INVALID',
  'TAG_INVALID',
  'UNAUTHORIZED',
  'DENIED',
  'UNSUPPORTED',
  'TOOMANYREQUESTS',
]);

function basic(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

/**
 * The error for an unexpected status, with the registry's error code when it sent one of the
 * spec's (registryErrorCodes): the status and that code, never other text of the body.
 */
async function statusError(
  res: HttpResponse,
  what: string,
  notFoundIsTerminal: boolean,
): Promise<Error> {
  let code = '';
  try {
    const body = await readLimited(res.body, 64 * 1024, () => new Error('large'));
    const errs = (JSON.parse(body.toString('utf8')) as { errors?: { code?: unknown }[] } | null)
      ?.errors;
    const first = Array.isArray(errs) ? (errs[0] as { code?: unknown } | null)?.code : undefined;
    if (typeof first === 'string' && registryErrorCodes.has(first)) code = ` ${first}`;
  } catch {
    // no JSON error body
  }
  const msg = `${what}: registry returned HTTP ${res.status}${code}`;
  if (res.status === 404)
    return notFoundIsTerminal ? terminal('NotFound', msg) : retryable('NotFound', msg);
  if (res.status === 401 || res.status === 403) return retryable('Unauthorized', msg);
  if (retryableStatus(res.status)) return retryable('Unavailable', msg);
  return retryable('BadResponse', msg);
}
