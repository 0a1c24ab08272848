// The delegated access policy with a fake reviewer: no token and a token the apiserver refuses
// are 401, a user not allowed 403, one allowed passes; answers are cached (allowed longer than
// refused, bounded, concurrent identical reviews made once); a review that cannot be made
// refuses (503 or 500) and is not cached.
import { expect } from 'chai';
import { KubeApiError } from '../../kube/errors.js';
import { ManualClock } from '../../util/clock.js';
import type {
  AccessRequest,
  AccessReviewResult,
  AccessReviewer,
  ReviewedUser,
  TokenReviewResult,
} from './delegated-access.js';
import {
  DEFAULT_ACCESS_ALLOW_TTL_MS,
  DEFAULT_ACCESS_DENY_TTL_MS,
  DelegatedAccess,
  bearerToken,
  isResourceRequest,
  requestVerb,
} from './delegated-access.js';

const reader: ReviewedUser = {
  username: 'system:serviceaccount:monitoring:prometheus',
  uid: 'u-1',
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: { 'authentication.kubernetes.io/pod-name': ['prometheus-0'] },
};
const stranger: ReviewedUser = { username: 'system:serviceaccount:default:nobody' };

/** Tokens by value, users allowed on paths; every review recorded; failures on demand. */
class FakeReviewer implements AccessReviewer {
  readonly tokens = new Map<string, ReviewedUser>([
    ['reader-token', reader],
    ['stranger-token', stranger],
  ]);
  /** "username path verb" allowed. */
  readonly allowed = new Set([
    `${reader.username} /metrics get`,
    `${reader.username} content.olm.operatorframework.io/catalogmetadata list`,
  ]);
  readonly tokenReviews: string[] = [];
  readonly accessReviews: Array<{ user: ReviewedUser; request: AccessRequest }> = [];
  failTokens: Error | undefined;
  failAccess: Error | undefined;
  /** Held reviews: resolved by release(). */
  hold = false;
  private held: Array<() => void> = [];

  async reviewToken(token: string): Promise<TokenReviewResult> {
    this.tokenReviews.push(token);
    await this.wait();
    if (this.failTokens !== undefined) throw this.failTokens;
    const user = this.tokens.get(token);
    return user
      ? { authenticated: true, user }
      : { authenticated: false, error: 'invalid bearer token' };
  }

  async reviewAccess(user: ReviewedUser, request: AccessRequest): Promise<AccessReviewResult> {
    this.accessReviews.push({ user, request });
    await this.wait();
    if (this.failAccess !== undefined) throw this.failAccess;
    const what = isResourceRequest(request) ? `${request.group}/${request.resource}` : request.path;
    return this.allowed.has(`${user.username} ${what} ${request.verb}`)
      ? { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding' }
      : { allowed: false, reason: 'no RBAC policy matched' };
  }

  private wait(): Promise<void> {
    if (!this.hold) return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }

  release(): void {
    this.hold = false;
    for (const r of this.held.splice(0)) r();
  }
}

const get = (token?: string, path = '/metrics', method = 'GET') => ({
  method,
  path,
  ...(token !== undefined && { authorization: `Bearer ${token}` }),
});

describe('runtime/delegated-access: DelegatedAccess', () => {
  let clock: ManualClock;
  let reviewer: FakeReviewer;
  let access: DelegatedAccess;

  beforeEach(() => {
    clock = new ManualClock();
    reviewer = new FakeReviewer();
    access = new DelegatedAccess(reviewer, { clock });
  });

  it('refuses a request without a bearer token with 401, without a review', async () => {
    for (const authorization of [undefined, '', 'Bearer', 'Bearer  ', 'Basic dXNlcjpwYXNz']) {
      const d = await access.check({ method: 'GET', path: '/metrics', authorization });
      expect(d, String(authorization)).to.deep.include({
        allowed: false,
        status: 401,
        message: 'Unauthorized',
      });
    }
    expect(reviewer.tokenReviews).to.deep.equal([]);
  });

  it('refuses a token the apiserver does not accept with 401, and asks nothing more', async () => {
    const d = await access.check(get('forged'));
    expect(d).to.deep.include({ allowed: false, status: 401, reason: 'invalid bearer token' });
    expect(reviewer.tokenReviews).to.deep.equal(['forged']);
    expect(reviewer.accessReviews).to.deep.equal([]);
  });

  it('refuses a user who may not get /metrics with 403, naming the user', async () => {
    const d = await access.check(get('stranger-token'));
    expect(d).to.deep.include({
      allowed: false,
      status: 403,
      user: stranger.username,
      message: `Forbidden: user "${stranger.username}" cannot get path "/metrics"`,
      reason: 'no RBAC policy matched',
    });
  });

  it('admits a user allowed to get /metrics, sending the whole user to the access review', async () => {
    expect(await access.check(get('reader-token'))).to.deep.equal({
      allowed: true,
      user: reader.username,
    });
    expect(reviewer.accessReviews).to.deep.equal([
      { user: reader, request: { path: '/metrics', verb: 'get' } },
    ]);
  });

  it('reviews the path and verb asked for: HEAD is get, another path is its own review', async () => {
    expect((await access.check(get('reader-token', '/metrics', 'HEAD'))).allowed).to.equal(true);
    const other = await access.check(get('reader-token', '/debug/pprof'));
    expect(other).to.deep.include({ allowed: false, status: 403 });
    const post = await access.check(get('reader-token', '/metrics', 'POST'));
    expect(post).to.deep.include({ allowed: false, status: 403 });
    expect(reviewer.accessReviews.map((r) => r.request)).to.deep.equal([
      { path: '/metrics', verb: 'get' },
      { path: '/debug/pprof', verb: 'get' },
      { path: '/metrics', verb: 'create' },
    ]);
  });

  it('remembers an allowed token and request for 10 s: no review until then', async () => {
    await access.check(get('reader-token'));
    await clock.advance(DEFAULT_ACCESS_ALLOW_TTL_MS - 1);
    expect((await access.check(get('reader-token'))).allowed).to.equal(true);
    expect(reviewer.tokenReviews).to.have.length(1);
    expect(reviewer.accessReviews).to.have.length(1);
    await clock.advance(1);
    expect((await access.check(get('reader-token'))).allowed).to.equal(true);
    expect(reviewer.tokenReviews).to.have.length(2);
    expect(reviewer.accessReviews).to.have.length(2);
  });

  it('remembers refusals for less time: a role granted meanwhile counts after 2 s', async () => {
    expect(DEFAULT_ACCESS_DENY_TTL_MS).to.be.lessThan(DEFAULT_ACCESS_ALLOW_TTL_MS);
    expect(await access.check(get('stranger-token'))).to.deep.include({ status: 403 });
    expect(await access.check(get('forged'))).to.deep.include({ status: 401 });
    reviewer.allowed.add(`${stranger.username} /metrics get`);
    reviewer.tokens.set('forged', reader);
    await clock.advance(DEFAULT_ACCESS_DENY_TTL_MS - 1);
    expect(await access.check(get('stranger-token'))).to.deep.include({ status: 403 });
    expect(await access.check(get('forged'))).to.deep.include({ status: 401 });
    await clock.advance(1);
    expect((await access.check(get('stranger-token'))).allowed).to.equal(true);
    expect((await access.check(get('forged'))).allowed).to.equal(true);
  });

  it('keeps a hash of each token, not the token, and tells tokens of one user apart', async () => {
    await access.check(get('reader-token'));
    reviewer.tokens.set('second-reader-token', reader);
    await access.check(get('second-reader-token'));
    expect(reviewer.tokenReviews).to.deep.equal(['reader-token', 'second-reader-token']);
    // One user, one request: the access answer is shared.
    expect(reviewer.accessReviews).to.have.length(1);
    expect(access.cached).to.deep.equal({ tokens: 2, access: 1 });
  });

  it('makes concurrent identical reviews once', async () => {
    reviewer.hold = true;
    const pending = [1, 2, 3].map(() => access.check(get('reader-token')));
    reviewer.release();
    const decisions = await Promise.all(pending);
    expect(decisions.every((d) => d.allowed)).to.equal(true);
    expect(reviewer.tokenReviews).to.have.length(1);
    expect(reviewer.accessReviews).to.have.length(1);
  });

  it('holds at most maxEntries answers, the oldest going first', async () => {
    access = new DelegatedAccess(reviewer, { clock, maxEntries: 2 });
    for (const t of ['t1', 't2', 't3']) reviewer.tokens.set(t, { username: `user-${t}` });
    for (const t of ['t1', 't2', 't3']) await access.check(get(t));
    expect(access.cached).to.deep.equal({ tokens: 2, access: 2 });
    await access.check(get('t3'));
    expect(reviewer.tokenReviews).to.deep.equal(['t1', 't2', 't3']);
    await access.check(get('t1'));
    expect(reviewer.tokenReviews).to.deep.equal(['t1', 't2', 't3', 't1']);
  });

  it('refuses when a review cannot be made: 503 when it may pass later, 500 otherwise; never cached', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const overloaded = new KubeApiError(503, 'ServiceUnavailable', 'try later', 'create', 'x');
    const forbidden = new KubeApiError(403, 'Forbidden', 'cannot create', 'create', 'tokenreviews');
    const timedOut = Object.assign(new Error('aborted'), { name: 'AbortError' });
    for (const [err, status] of [
      [unreachable, 503],
      [overloaded, 503],
      [timedOut, 503],
      [forbidden, 500],
      [new Error('unexpected'), 500],
    ] as const) {
      reviewer.failTokens = err;
      const d = await access.check(get('reader-token'));
      expect(d, err.message).to.deep.include({ allowed: false, status, cause: err });
    }
    reviewer.failTokens = undefined;
    reviewer.failAccess = forbidden;
    const d = await access.check(get('reader-token'));
    expect(d).to.deep.include({ allowed: false, status: 500, user: reader.username });
    expect(access.cached).to.deep.equal({ tokens: 1, access: 0 });
    reviewer.failAccess = undefined;
    expect((await access.check(get('reader-token'))).allowed).to.equal(true);
    expect(reviewer.tokenReviews).to.have.length(6);
    expect(reviewer.accessReviews).to.have.length(2);
  });

  describe('authorize (a resource request of a user authenticated elsewhere)', () => {
    const list = {
      verb: 'list',
      group: 'content.olm.operatorframework.io',
      version: 'v1',
      resource: 'catalogmetadata',
    };

    it('allows, denies with 403, and sends the resource attributes to the review', async () => {
      expect(await access.authorize(reader, list)).to.deep.equal({ allowed: true });
      expect(await access.authorize(stranger, list)).to.deep.equal({
        allowed: false,
        status: 403,
        reason: 'no RBAC policy matched',
      });
      expect(reviewer.accessReviews.map((r) => r.request)).to.deep.equal([list, list]);
    });

    it('caches allowed and denied answers for their times, per resource attributes', async () => {
      access = new DelegatedAccess(reviewer, { clock, allowTtlMs: 10_000, denyTtlMs: 10_000 });
      await access.authorize(reader, list);
      await access.authorize(stranger, list);
      await access.authorize(reader, { ...list, verb: 'watch' });
      await access.authorize(reader, { ...list, verb: 'get', name: 'a' });
      expect(reviewer.accessReviews).to.have.length(4);
      await clock.advance(9_999);
      await access.authorize(reader, list);
      await access.authorize(stranger, list);
      expect(reviewer.accessReviews).to.have.length(4);
      await clock.advance(1);
      await access.authorize(stranger, list);
      expect(reviewer.accessReviews).to.have.length(5);
    });

    it('refuses with 503 or 500 when the review cannot be made, and does not cache it', async () => {
      reviewer.failAccess = Object.assign(new Error('connect ECONNREFUSED'), {
        code: 'ECONNREFUSED',
      });
      expect(await access.authorize(reader, list)).to.deep.include({
        allowed: false,
        status: 503,
      });
      reviewer.failAccess = new KubeApiError(403, 'Forbidden', 'cannot create', 'create', 'x');
      expect(await access.authorize(reader, list)).to.deep.include({
        allowed: false,
        status: 500,
      });
      reviewer.failAccess = undefined;
      expect(await access.authorize(reader, list)).to.deep.equal({ allowed: true });
    });
  });

  it('reads the bearer token and the verb as the apiserver does', () => {
    expect(bearerToken('Bearer abc')).to.equal('abc');
    expect(bearerToken('bearer abc')).to.equal('abc');
    expect(bearerToken('  Bearer   abc  ')).to.equal('abc');
    expect(bearerToken('Bearer')).to.equal(undefined);
    expect(bearerToken('Token abc')).to.equal(undefined);
    expect(requestVerb('GET')).to.equal('get');
    expect(requestVerb('HEAD')).to.equal('get');
    expect(requestVerb('POST')).to.equal('create');
    expect(requestVerb('PUT')).to.equal('update');
    expect(requestVerb('DELETE')).to.equal('delete');
    expect(requestVerb('PATCH')).to.equal('patch');
  });
});
