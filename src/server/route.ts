// Request target → route. The raw target is matched segment by segment without decoding or
// dot-segment normalization, so `..`, `%2e%2e` and `%2f` never reach a lookup: the catalog
// segment must be a DNS-1123 subdomain as written, and the catalog is then looked up in the
// store's in-memory table (no request-derived path ever touches the file system).
//
//   <prefix>/<catalog>/api/v1/{all,metas,graphql}                    the revision served now
//   <prefix>/<catalog>/revisions/<key>/api/v1/{all,metas,graphql}    the one status.urls.base names
//   /api/v1/graphql                                                 across every serving catalog
import { REVISION_SEGMENT, isRevisionKey } from '../api/v1/revision-url.js';
import { isDNS1123Subdomain } from '../fbc/index.js';

export type Endpoint = 'all' | 'metas' | 'graphql';

/** The GraphQL endpoint across catalogs, under the server's URL (not under the prefix). */
export const SERVER_GRAPHQL_PATH = '/api/v1/graphql';

export type Route =
  | {
      kind: 'content';
      catalog: string;
      /** The revision key of a revision URL; undefined: the revision served now. */
      revision: string | undefined;
      endpoint: Endpoint;
      rawQuery: string;
    }
  /** `<server-url>/api/v1/graphql`: the endpoint across catalogs. */
  | { kind: 'server'; endpoint: 'graphql'; rawQuery: string }
  | { kind: 'bad-request'; error: string }
  | { kind: 'not-found' };

/** `pathPrefix` is like `/catalogs` (leading slash, no trailing slash). */
export function routeRequest(target: string, pathPrefix: string): Route {
  if (!target.startsWith('/'))
    return { kind: 'bad-request', error: 'request target must be a path' };
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  if (rawPath === SERVER_GRAPHQL_PATH) return { kind: 'server', endpoint: 'graphql', rawQuery };
  if (!rawPath.startsWith(`${pathPrefix}/`) || rawPath === `${pathPrefix}/`)
    return { kind: 'not-found' };
  const segments = rawPath.slice(pathPrefix.length + 1).split('/');
  const catalog = segments[0]!;
  if (!isDNS1123Subdomain(catalog))
    return { kind: 'bad-request', error: 'invalid catalog name: must be a DNS-1123 subdomain' };
  let revision: string | undefined;
  let rest = segments.slice(1);
  if (rest[0] === REVISION_SEGMENT && rest.length > 1) {
    revision = rest[1]!;
    if (!isRevisionKey(revision))
      return { kind: 'bad-request', error: 'invalid revision: must be 16 lowercase hex digits' };
    rest = rest.slice(2);
  }
  if (rest.length !== 3 || rest[0] !== 'api' || rest[1] !== 'v1') return { kind: 'not-found' };
  const endpoint = rest[2];
  if (endpoint !== 'all' && endpoint !== 'metas' && endpoint !== 'graphql')
    return { kind: 'not-found' };
  return { kind: 'content', catalog, revision, endpoint, rawQuery };
}
