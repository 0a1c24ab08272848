// The registry client's requests on the wire: each one retried on 429/5xx/network errors and
// counted, and each place the registry sends us to (a redirect, a token realm) judged by
// destinations.ts before a byte is sent there. A failure's message names neither a target nor
// anything a response said.
import type { RequestKind, SourceCounters } from './counters.js';
import { Destinations, type DestinationOptions, type Refusal } from './destinations.js';
import { networkCause, networkErrorCode, retryable } from './errors.js';
import { drain, type HttpClient, type HttpRequest, type HttpResponse } from './http.js';
import { retryableStatus } from './registry-status.js';
import { parseRetryAfter, withRetries, type RetryClock, type RetryPolicy } from './retry.js';

export interface RegistryTransportOptions {
  http: HttpClient;
  clock: RetryClock;
  retry: RetryPolicy;
  counters: SourceCounters;
  /** Where redirects and token realms may send requests (destinations.ts). */
  destinations?: DestinationOptions | undefined;
}

/** Where a judged target's connection goes: the address judged for its name. */
export interface Pin {
  address: string;
  family: 4 | 6;
}

export class RegistryTransport {
  private readonly http: HttpClient;
  private readonly clock: RetryClock;
  private readonly retry: RetryPolicy;
  private readonly counters: SourceCounters;
  private readonly destinations: Destinations;

  constructor(opts: RegistryTransportOptions) {
    this.http = opts.http;
    this.clock = opts.clock;
    this.retry = opts.retry;
    this.counters = opts.counters;
    this.destinations = new Destinations(opts.destinations);
  }

  /**
   * Where the registry sends us (a redirect, a token realm), if it may (destinations.ts): the
   * address to connect to for a name. A refusal names neither the target nor anything it said.
   */
  async admit(
    move: Parameters<Destinations['judge']>[0],
    kind: 'redirect' | 'token realm',
    what: string,
  ): Promise<Pin | undefined> {
    const verdict = await this.destinations.judge(move);
    if (!verdict.allowed)
      throw retryable(
        'BadResponse',
        `${what}: refused the registry's ${kind}: ${refusal[verdict.why]}`,
      );
    return verdict.pin;
  }

  /** One request with retries on network errors, 429 and 5xx. */
  async attempt(req: HttpRequest, kind: RequestKind, what: string): Promise<HttpResponse> {
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
}

/** Why a redirect or token realm was refused, in words that say nothing of the target. */
const refusal: Record<Refusal, string> = {
  scheme: 'not to an http or https URL',
  downgrade: 'from https to plain http',
  class:
    "to an address more private than the registry's (loopback, link-local, private network or " +
    'the apiserver) or one that does not resolve (docs/source.md, "Redirects and token realms")',
};
