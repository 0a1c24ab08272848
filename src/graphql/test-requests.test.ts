// Named *.test.ts so that the build leaves it out; it holds no tests. Requests to the GraphQL
// endpoint of a content server (test-fixtures serves one), and upstream's body of a request error.
import { send } from '../server/test-catalogs.test.js';
import type { HttpReply } from '../server/test-catalogs.test.js';
import type { Served } from './test-fixtures.test.js';

export interface Reply extends HttpReply {
  text: string;
  /** The body parsed as JSON (undefined when it is not). */
  json: unknown;
}

/** The `data` of a reply's JSON body, as the test says it is. */
export function dataOf<T>(r: Reply): T {
  return (r.json as { data: T }).data;
}

export async function call(
  server: { url: string },
  target: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  const r = await send(server, target, opts);
  const text = r.body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { ...r, text, json };
}

/** POSTs `{"query": query, ...}` to a catalog's GraphQL endpoint. */
export function postQuery(
  server: { url: string },
  catalog: string,
  query: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(server, `/catalogs/${catalog}/api/v1/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ query, ...extra }),
  });
}

/** The endpoint of catalog `cat`. */
export const ENDPOINT = '/catalogs/cat/api/v1/graphql';

/** GETs `?query=query` (then `extra`) from catalog `cat`'s endpoint. */
export function get(
  s: Served,
  query: string,
  headers: Record<string, string> = {},
  extra = '',
): Promise<Reply> {
  return call(s.server, `${ENDPOINT}?query=${encodeURIComponent(query)}${extra}`, { headers });
}

/** Upstream's body of a request error: no data, one error without locations. */
export function requestError(message: string): string {
  return `${JSON.stringify({ data: null, errors: [{ message, locations: [] }] })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')}\n`;
}
