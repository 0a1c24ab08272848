// One call to a registry endpoint: the request with the host's authorization, a 401 answered (at
// most twice) and redirects followed (at most five, never for a PUT or POST). The registry's
// credentials are never sent to another origin, and every redirect to another origin is judged
// (destinations.ts, through the transport) before a byte is sent there.
import { repositoryScope } from './auth.js';
import type { RequestKind } from './counters.js';
import { retryable } from './errors.js';
import { drain, type HttpRequest, type HttpResponse } from './http.js';
import type { Endpoint } from './registries-conf.js';
import type { RegistryAuth } from './registry-auth.js';
import type { Pin, RegistryTransport } from './registry-transport.js';

export interface Call {
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

const redirectStatus = (s: number) => s === 301 || s === 302 || s === 303 || s === 307 || s === 308;

/** The final response of call to ep (not a 401 answered, not a redirect followed). */
export async function sendCall(
  via: { transport: RegistryTransport; auth: RegistryAuth },
  ep: Endpoint,
  call: Call,
): Promise<HttpResponse> {
  const origin = `${ep.scheme}://${ep.host}`;
  let url =
    call.path instanceof URL ? call.path : new URL(`${origin}/v2/${ep.repository}/${call.path}`);
  const scope = repositoryScope(ep.repository, call.push ?? false);
  let auth = await via.auth.authorization(ep, scope, call.what, call.signal);
  let authRounds = 0;
  /** Where a judged redirect target's connection goes (undefined: the registry's own origin). */
  let connectTo: Pin | undefined;
  /** The address the registry answered from: redirects are judged against it. */
  let registryAddress: string | undefined;
  for (let redirects = 0; ;) {
    const headers = {
      ...call.headers,
      ...(auth && url.origin === origin && { authorization: auth }),
    };
    const res = await via.transport.attempt(
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
      auth = await via.auth.answerChallenge(
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
          : await via.transport.admit(
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
