// The registry client's authentication of one host: Basic with the pull secret's credentials, or
// Bearer with tokens from the host's token realm (cached per realm/service/scope). A 401's
// challenge says which; the realm goes only where destinations.ts allows (judged at every token
// request), and no text of the token server's answer reaches an error message.
import { parseWWWAuthenticate, TokenCache, tokenFromResponse, type TokenResponse } from './auth.js';
import type { Credentials } from './docker-config.js';
import { readLimited } from '../util/limits.js';
import { retryable } from './errors.js';
import { drain } from './http.js';
import type { Endpoint } from './registries-conf.js';
import type { RetryClock } from './retry.js';
import type { RegistryTransport } from './registry-transport.js';

export type CredentialLookup = (
  host: string,
  repository: string,
) => Promise<Credentials | undefined>;

type HostAuth =
  | { scheme: 'basic' }
  | {
      scheme: 'bearer';
      realm: string;
      service: string;
      /** The address the challenge came from (a realm is judged against it). */
      registryAddress: string | undefined;
    };

export class RegistryAuth {
  private readonly tokens = new TokenCache();
  private readonly hostAuth = new Map<string, HostAuth>();

  constructor(
    private readonly transport: RegistryTransport,
    private readonly credentials: CredentialLookup,
    private readonly clock: RetryClock,
  ) {}

  /** The authorization header for a request to ep, from what its host's last challenge asked. */
  async authorization(
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

  /** The authorization header that answers a 401's challenge (previous: what it refused). */
  async answerChallenge(
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
    const connectTo = await this.transport.admit(
      { registry, registryAddress, from: registry, to: url },
      'token realm',
      what,
    );
    if (service) url.searchParams.set('service', service);
    url.searchParams.set('scope', scope);
    const res = await this.transport.attempt(
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

function basic(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}
