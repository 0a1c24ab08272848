import { expect } from 'chai';
import type { ClusterCatalog } from '../api/v1/clustercatalog.js';
import {
  GraphqlRequestError,
  MAX_GET_URL_BYTES,
  catalogEndpoint,
  graphqlRequest,
  sendGraphql,
  serverEndpoint,
  serverUrlOfBase,
} from './graphql-query.js';

const KEY = '0123456789abcdef';

function withBase(name: string, base: string | undefined): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref: 'r/x:1' } } },
    ...(base !== undefined && { status: { urls: { base } } }),
  };
}

describe('client/graphql-query', () => {
  it('finds the server URL in a catalog base, with or without a revision or a path in front', () => {
    expect(serverUrlOfBase(`https://s.ns.svc/catalogs/ops/revisions/${KEY}`, 'ops')).to.equal(
      'https://s.ns.svc',
    );
    expect(serverUrlOfBase('http://h:8090/catalogs/ops', 'ops')).to.equal('http://h:8090');
    expect(serverUrlOfBase('http://h/proxy/catalogs/ops', 'ops')).to.equal('http://h/proxy');
    expect(serverUrlOfBase('http://h/ops', 'ops')).to.equal(undefined);
    expect(serverUrlOfBase('not a url', 'ops')).to.equal(undefined);
  });

  it('the endpoints: under the base, with --server-url the way blobs are read', () => {
    const c = withBase('ops', `https://s.svc/catalogs/ops/revisions/${KEY}`);
    expect(catalogEndpoint(c)).to.equal(
      `https://s.svc/catalogs/ops/revisions/${KEY}/api/v1/graphql`,
    );
    expect(catalogEndpoint(c, 'http://localhost:8090')).to.equal(
      `http://localhost:8090/catalogs/ops/revisions/${KEY}/api/v1/graphql`,
    );
    expect(catalogEndpoint(withBase('ops', undefined))).to.equal(undefined);
    expect(serverEndpoint([withBase('a', undefined), c], undefined)).to.equal(
      'https://s.svc/api/v1/graphql',
    );
    expect(serverEndpoint([c], 'http://localhost:8090/')).to.equal(
      'http://localhost:8090/api/v1/graphql',
    );
    expect(serverEndpoint([withBase('a', undefined)], undefined)).to.equal(undefined);
  });

  it('sends a GET up to 8 KiB of URL, a POST above, with the variables and operation', () => {
    const get = graphqlRequest('http://h/api/v1/graphql', '{ a }', {
      variables: { n: 1 },
      operationName: 'Q',
    });
    expect(get.init.method).to.equal('GET');
    const q = new URL(get.url).searchParams;
    expect([q.get('query'), q.get('variables'), q.get('operationName')]).to.deep.equal([
      '{ a }',
      '{"n":1}',
      'Q',
    ]);
    const big = `{ a }${'#'.repeat(MAX_GET_URL_BYTES)}`;
    const post = graphqlRequest('http://h/api/v1/graphql', big, { variables: { n: 1 } });
    expect([post.url, post.init.method]).to.deep.equal(['http://h/api/v1/graphql', 'POST']);
    expect(JSON.parse(post.init.body as string)).to.deep.equal({ query: big, variables: { n: 1 } });
  });

  it('returns any GraphQL answer (400 included); anything else is a GraphqlRequestError', async () => {
    const answering =
      (status: number, body: string, type = 'application/json'): typeof fetch =>
      () =>
        Promise.resolve(new Response(body, { status, headers: { 'Content-Type': type } }));
    const refused = await sendGraphql('http://h/api/v1/graphql', '{', {
      fetch: answering(400, '{"data":null,"errors":[{"message":"bad","locations":[]}]}'),
    });
    expect(refused).to.deep.include({ data: null, status: 400 });
    expect(refused.errors.map((e) => e.message)).to.deep.equal(['bad']);
    const notServed = await sendGraphql('http://h/api/v1/graphql', '{ a }', {
      fetch: answering(404, 'catalog "x" is not served\n', 'text/plain'),
    }).catch((e: unknown) => e);
    expect(notServed).to.be.instanceOf(GraphqlRequestError);
    expect((notServed as GraphqlRequestError).message).to.equal(
      'http://h/api/v1/graphql answered HTTP 404: catalog "x" is not served',
    );
    expect((notServed as GraphqlRequestError).status).to.equal(404);
    const down = await sendGraphql('http://h/api/v1/graphql', '{ a }', {
      fetch: () =>
        Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })),
    }).catch((e: unknown) => e);
    expect((down as Error).message).to.match(
      /^cannot query http:\/\/h\/api\/v1\/graphql: fetch failed \(ECONNREFUSED\); the content server must be reachable/,
    );
  });
});
