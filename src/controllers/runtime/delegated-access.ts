// Delegated authentication and authorization of an HTTP endpoint (the metrics server's, SPEC §4:
// "metrics over HTTPS behind delegated authn/authz, as upstream"), as controller-runtime's
// filters.WithAuthenticationAndAuthorization does it: the request's bearer token is reviewed by
// the apiserver (a TokenReview), then what the user asks for (a SubjectAccessReview of the
// non-resource URL and verb). No token or a token the apiserver does not accept: 401. A user
// not allowed: 403. A review that cannot be made: 503 (the apiserver is unreachable or
// overloaded) or 500 (anything else, e.g. the controller may not create reviews): never allowed.
// Both answers are cached briefly (allowed longer than refused), by a hash of the token and by
// the user and request, with a bound on the entries; concurrent identical reviews are one.
// The reviews are a port (AccessReviewer); src/kube/access-review.ts is its adapter. The served
// API's front authenticates by the front proxy's headers and authorizes resource requests with
// the same cache (authorize).
import { createHash } from 'node:crypto';
import { KubeApiError, isNetworkError } from '../../kube/errors.js';
import type { ResourceAttributes } from '../../kube/index.js';
import type { Clock } from '../../util/clock.js';
import type { RequestGuard } from './health.js';

/** The user a token review names (authentication.k8s.io/v1 UserInfo). */
export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A TokenReview's status: whether the token is valid, and whose it is. */
export interface TokenReviewResult {
  authenticated: boolean;
  user?: ReviewedUser;
  /** Why it is not (the apiserver's words); not sent to the client. */
  error?: string;
}

/** A SubjectAccessReview's status. */
export interface AccessReviewResult {
  allowed: boolean;
  /** Why (the authorizer's words); not sent to the client. */
  reason?: string;
}

/** What the user asks to do: a non-resource URL and a verb (`get /metrics`). */
export interface NonResourceRequest {
  path: string;
  verb: string;
}

/**
 * What the user asks to do: a verb on a (cluster-scoped) resource (`list catalogmetadata`), as
 * the review sends it (the transport's resourceAttributes).
 */
export type ResourceRequest = ResourceAttributes;

/** A SubjectAccessReview's attributes: a non-resource URL, or a resource (with `resource`). */
export type AccessRequest = NonResourceRequest | ResourceRequest;

export function isResourceRequest(request: AccessRequest): request is ResourceRequest {
  return 'resource' in request;
}

/** The two reviews, made by the apiserver. A rejection is a review that could not be made. */
export interface AccessReviewer {
  reviewToken(token: string): Promise<TokenReviewResult>;
  reviewAccess(user: ReviewedUser, request: AccessRequest): Promise<AccessReviewResult>;
}

/** A user's request authorized (a SubjectAccessReview, cached), or why not. */
export type AuthorizationDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** 403: denied; 503/500: the review could not be made (may work again soon / not). */
      status: 403 | 500 | 503;
      /** What the authorizer said, or the review's failure: for the log, not the client. */
      reason?: string;
      cause?: unknown;
    };

/** An HTTP request as the check sees it. */
export interface CheckedRequest {
  method: string;
  /** The URL's path, without the query. */
  path: string;
  /** The Authorization header, if any. */
  authorization?: string | undefined;
}

export type AccessDecision =
  | { allowed: true; user: string }
  | {
      allowed: false;
      status: 401 | 403 | 500 | 503;
      /** The response body's one line. */
      message: string;
      user?: string;
      /** What the apiserver said, or the review's failure: for the log, not the client. */
      reason?: string;
      cause?: unknown;
    };

export interface DelegatedAccessOptions {
  clock: Pick<Clock, 'now'>;
  /** How long an accepted token and an allowed request are remembered (default 10 s). */
  allowTtlMs?: number;
  /** How long a refused token and a denied request are remembered (default 2 s). */
  denyTtlMs?: number;
  /** Most entries of each cache (default 1024); the oldest goes first. */
  maxEntries?: number;
}

export const DEFAULT_ACCESS_ALLOW_TTL_MS = 10_000;
export const DEFAULT_ACCESS_DENY_TTL_MS = 2_000;
export const DEFAULT_ACCESS_CACHE_ENTRIES = 1024;

/** The token of an `Authorization: Bearer <token>` header, as the apiserver reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const [scheme, token] = header.trim().split(/\s+/, 3);
  if (scheme?.toLowerCase() !== 'bearer' || !token) return undefined;
  return token;
}

/** The verb of a non-resource request, as the apiserver's request info names it. */
export function requestVerb(method: string): string {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    default:
      return method.toLowerCase();
  }
}

/** A review that could not be made: 503 when it may work again soon, else 500. */
function failureStatus(err: unknown): 500 | 503 {
  if (err instanceof KubeApiError) return err.retryable ? 503 : 500;
  const name = (err as { name?: unknown } | null)?.name;
  if (isNetworkError(err) || name === 'AbortError' || name === 'TimeoutError') return 503;
  return 500;
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A map of answers that expire, bounded (oldest first out), with one lookup per key in flight. */
class ReviewCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<T>>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly maxEntries: number,
    private readonly ttlOf: (value: T) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The remembered answer, or lookup's (shared with concurrent callers; a failure is not kept). */
  async get(key: string, lookup: () => Promise<T>): Promise<{ value: T; cached: boolean }> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.clock.now()) return { value: hit.value, cached: true };
    if (hit) this.entries.delete(key);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = lookup();
      this.inFlight.set(key, pending);
      const done = pending.then(
        (value) => this.remember(key, value),
        () => {},
      );
      void done.finally(() => this.inFlight.delete(key));
    }
    return { value: await pending, cached: false };
  }

  private remember(key: string, value: T): void {
    const ttl = this.ttlOf(value);
    if (ttl <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttl });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The key of a user's request: every field a SubjectAccessReview sends. */
function accessKey(user: ReviewedUser, request: AccessRequest): string {
  const extra = Object.entries(user.extra ?? {})
    .map(([k, v]): [string, string[]] => [k, [...v].sort()])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const attributes = isResourceRequest(request)
    ? [
        'resource',
        request.verb,
        request.group,
        request.version,
        request.resource,
        request.subresource ?? '',
        request.name ?? '',
      ]
    : ['path', request.verb, request.path];
  return sha256(
    JSON.stringify([
      user.username,
      user.uid ?? '',
      [...(user.groups ?? [])].sort(),
      extra,
      attributes,
    ]),
  );
}

/** Decides requests by delegating to the apiserver's reviews, with a short cache. */
export class DelegatedAccess {
  private readonly tokens: ReviewCache<TokenReviewResult>;
  private readonly access: ReviewCache<AccessReviewResult>;

  constructor(
    private readonly reviewer: AccessReviewer,
    opts: DelegatedAccessOptions,
  ) {
    const allow = opts.allowTtlMs ?? DEFAULT_ACCESS_ALLOW_TTL_MS;
    const deny = opts.denyTtlMs ?? DEFAULT_ACCESS_DENY_TTL_MS;
    const max = opts.maxEntries ?? DEFAULT_ACCESS_CACHE_ENTRIES;
    this.tokens = new ReviewCache(opts.clock, max, (r) => (r.authenticated ? allow : deny));
    this.access = new ReviewCache(opts.clock, max, (r) => (r.allowed ? allow : deny));
  }

  /** Entries remembered now (tests). */
  get cached(): { tokens: number; access: number } {
    return { tokens: this.tokens.size, access: this.access.size };
  }

  async check(req: CheckedRequest): Promise<AccessDecision> {
    const token = bearerToken(req.authorization);
    if (token === undefined)
      return { allowed: false, status: 401, message: 'Unauthorized', reason: 'no bearer token' };
    let review: TokenReviewResult;
    try {
      // Keyed by a hash: the cache never holds a token.
      ({ value: review } = await this.tokens.get(sha256(token), () =>
        this.reviewer.reviewToken(token),
      ));
    } catch (err) {
      return {
        allowed: false,
        status: failureStatus(err),
        message: 'Authentication failed: the token could not be reviewed',
        reason: reasonOf(err),
        cause: err,
      };
    }
    const user = review.user;
    if (!review.authenticated || !user?.username)
      return {
        allowed: false,
        status: 401,
        message: 'Unauthorized',
        reason: review.error || 'token not authenticated',
      };
    const request = { path: req.path, verb: requestVerb(req.method) };
    const decision = await this.authorize(user, request);
    if (decision.allowed) return { allowed: true, user: user.username };
    if (decision.status !== 403)
      return {
        ...decision,
        message: `Authorization for user ${user.username} failed: the request could not be reviewed`,
        user: user.username,
      };
    return {
      ...decision,
      message: `Forbidden: user "${user.username}" cannot ${request.verb} path "${request.path}"`,
      user: user.username,
    };
  }

  /**
   * Whether an authenticated user may make the request (a SubjectAccessReview, its answer cached
   * as the token's: allowed for allowTtlMs, denied for denyTtlMs). The served API's front
   * (src/apiserver/front) authorizes with it after requestheader authentication.
   */
  async authorize(user: ReviewedUser, request: AccessRequest): Promise<AuthorizationDecision> {
    let decision: AccessReviewResult;
    try {
      ({ value: decision } = await this.access.get(accessKey(user, request), () =>
        this.reviewer.reviewAccess(user, request),
      ));
    } catch (err) {
      return { allowed: false, status: failureStatus(err), reason: reasonOf(err), cause: err };
    }
    if (decision.allowed) return { allowed: true };
    return { allowed: false, status: 403, ...(decision.reason && { reason: decision.reason }) };
  }
}

/**
 * The probe server's guard (health.ts) over a DelegatedAccess: each decision is given to
 * `observe` (for the log), a refusal is answered with its status and one line.
 */
export function accessGuard(
  access: DelegatedAccess,
  observe?: (decision: AccessDecision, req: CheckedRequest) => void,
): RequestGuard {
  return async (req, path) => {
    const checked: CheckedRequest = {
      method: req.method ?? 'GET',
      path,
      authorization: req.headers.authorization,
    };
    const decision = await access.check(checked);
    observe?.(decision, checked);
    if (decision.allowed) return undefined;
    return {
      status: decision.status,
      message: decision.message,
      ...(decision.status === 401 && { headers: { 'www-authenticate': 'Bearer' } }),
    };
  };
}
