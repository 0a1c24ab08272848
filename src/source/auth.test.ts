import { expect } from 'chai';
import { parseWWWAuthenticate, repositoryScope, TokenCache, tokenFromResponse } from './auth.js';

describe('source/auth', () => {
  it('parses Bearer and Basic challenges', () => {
    expect(
      parseWWWAuthenticate(
        'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"',
      ),
    ).to.deep.equal([
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.example/token',
          service: 'registry.example',
          scope: 'repository:a/b:pull,push',
        },
      },
    ]);
    expect(parseWWWAuthenticate('Basic realm="Registry Realm"')).to.deep.equal([
      { scheme: 'basic', params: { realm: 'Registry Realm' } },
    ]);
    expect(parseWWWAuthenticate('Negotiate, Basic realm=x')).to.deep.equal([
      { scheme: 'basic', params: { realm: 'x' } },
    ]);
    expect(parseWWWAuthenticate(undefined)).to.deep.equal([]);
  });

  it('computes scopes and token expiry', () => {
    expect(repositoryScope('a/b', false)).to.equal('repository:a/b:pull');
    expect(repositoryScope('a/b', true)).to.equal('repository:a/b:pull,push');
    expect(tokenFromResponse({ token: 't' }, 1000)).to.deep.equal({
      token: 't',
      expiresAt: 61_000,
    });
    expect(tokenFromResponse({ access_token: 'a', expires_in: 300 }, 0)).to.deep.equal({
      token: 'a',
      expiresAt: 300_000,
    });
    expect(tokenFromResponse({}, 0)).to.equal(undefined);
  });

  it('caches tokens per scope until shortly before expiry', () => {
    const c = new TokenCache();
    const k1 = TokenCache.key('r', 's', 'repository:a:pull');
    const k2 = TokenCache.key('r', 's', 'repository:b:pull');
    c.set(k1, 't1', 60_000);
    expect(c.get(k1, 0)).to.equal('t1');
    expect(c.get(k2, 0)).to.equal(undefined);
    expect(c.get(k1, 55_000)).to.equal(undefined);
    expect(c.size).to.equal(0);
  });
});
