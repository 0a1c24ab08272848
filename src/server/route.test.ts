import { expect } from 'chai';
import { routeRequest } from './route.js';

const P = '/catalogs';

/** The content route routeRequest gives for a catalog's endpoint (under a revision URL). */
function content(catalog: string, endpoint: string, rawQuery: string, revision?: string) {
  return { kind: 'content', catalog, revision, endpoint, rawQuery };
}

/** Routes each of `targets` to a route of `kind`. */
function expectKind(kind: string, targets: string[]): void {
  for (const t of targets) expect(routeRequest(t, P).kind, t).to.equal(kind);
}

describe('server/route', () => {
  it('routes all and metas with the raw query', () => {
    expect(routeRequest('/catalogs/operatorhub/api/v1/all', P)).to.deep.equal(
      content('operatorhub', 'all', ''),
    );
    expect(routeRequest('/catalogs/a.b-c/api/v1/metas?schema=olm.package', P)).to.deep.equal(
      content('a.b-c', 'metas', 'schema=olm.package'),
    );
  });

  it('routes <server-url>/api/v1/graphql to the endpoint across catalogs, and nothing under it', () => {
    expect(routeRequest('/api/v1/graphql?query=%7Bcatalogs%7Bname%7D%7D', P)).to.deep.equal({
      kind: 'server',
      endpoint: 'graphql',
      rawQuery: 'query=%7Bcatalogs%7Bname%7D%7D',
    });
    expectKind('not-found', ['/api/v1/graphql/', '/api/v1/all', '/api/v1']);
  });

  it('routes graphql, under a revision URL too, with the raw query (GET ?query=)', () => {
    expect(routeRequest('/catalogs/ops/api/v1/graphql?query=%7Bsummary%7D', P)).to.deep.equal(
      content('ops', 'graphql', 'query=%7Bsummary%7D'),
    );
    const key = '0123456789abcdef';
    expect(routeRequest(`/catalogs/ops/revisions/${key}/api/v1/graphql`, P)).to.deep.equal(
      content('ops', 'graphql', '', key),
    );
  });

  it('routes a revision URL (status.urls.base) with its key', () => {
    const key = '0123456789abcdef';
    expect(routeRequest(`/catalogs/ops/revisions/${key}/api/v1/metas?name=x`, P)).to.deep.equal(
      content('ops', 'metas', 'name=x', key),
    );
    for (const bad of ['0123456789ABCDEF', '0123', `${key}0`, '..', '%2e%2e', ''])
      expect(routeRequest(`/catalogs/ops/revisions/${bad}/api/v1/all`, P), bad).to.deep.equal({
        kind: 'bad-request',
        error: 'invalid revision: must be 16 lowercase hex digits',
      });
    expectKind('not-found', [
      `/catalogs/ops/revisions/${key}`,
      `/catalogs/ops/revisions/${key}/api/v1`,
      `/catalogs/ops/revisions/${key}/revisions/${key}/api/v1/all`,
      '/catalogs/ops/revisions',
    ]);
  });

  it('rejects traversal and encoded names in the catalog segment (400)', () => {
    expectKind('bad-request', [
      '/catalogs/../etc/api/v1/all',
      '/catalogs/%2e%2e/api/v1/all',
      '/catalogs/%2E%2E/api/v1/all',
      '/catalogs/a%2fb/api/v1/all',
      '/catalogs/a%2Fb/api/v1/all',
      '/catalogs/..%2f..%2fetc/api/v1/all',
      '/catalogs/a%5cb/api/v1/all',
      '/catalogs/UPPER/api/v1/all',
      '/catalogs//api/v1/all',
      '/catalogs/./api/v1/all',
      `/catalogs/${'a'.repeat(254)}/api/v1/all`,
    ]);
  });

  it('other paths are not found (404)', () => {
    expectKind('not-found', [
      '/',
      '/catalogs',
      '/catalogs/',
      '/catalogsx/a/api/v1/all',
      '/catalogs/a',
      '/catalogs/a/api/v1',
      '/catalogs/a/api/v1/all/',
      '/catalogs/a/api/v1/../v1/all',
      '/catalogs/a/api/v1/%2e%2e/all',
      '/catalogs/a/api/v2/all',
      '/catalogs/a/api/v1/graphiql',
      '/catalogs/a/api/v1/graphql/',
      '/catalogs/a/api/v1/all/extra',
    ]);
  });

  it('an absolute-form target is a bad request', () => {
    expect(routeRequest('http://x/catalogs/a/api/v1/all', P).kind).to.equal('bad-request');
    expect(routeRequest('*', P).kind).to.equal('bad-request');
  });
});
