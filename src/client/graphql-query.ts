// A GraphQL query sent to the content server (docs/graphql.md): to one catalog's endpoint
// (`<status.urls.base>/api/v1/graphql`, the revision the ClusterCatalog names), or to the
// endpoint across catalogs (`<server-url>/api/v1/graphql`). It goes the way blobs go
// (content.ts): the URL the catalog's status gives, with serverUrl's origin when given, over the
// client's fetch (a CA trusted, or the apiserver's service proxy). CatalogClient.graphql loads
// this file on its first query only (the entry point's module count: entry-point.test.ts).
import type { ClusterCatalog } from '../api/v1/clustercatalog.js';
import { readLimited } from '../util/limits.js';
import { fetchUrl } from './content.js';
import { fetchFailureReason, untrustedReason } from './trust.js';

/** The path of the GraphQL endpoint under a catalog's base, and under the server's URL. */
const GRAPHQL_PATH = '/api/v1/graphql';

/** An answer of more than this is not read (the server keeps one to 8 MiB of values). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface GraphqlQueryOptions {
  /** Ask this ClusterCatalog's endpoint; none: the endpoint across every serving catalog. */
  catalog?: string;
  /** The query's variables (a JSON object). */
  variables?: Record<string, unknown>;
  /** The operation to run, when the document has several. */
  operationName?: string;
  signal?: AbortSignal;
  /** Per-request limit (default 30 s). */
  timeoutMs?: number;
}

/** One error of a GraphQL answer, as the server writes it. */
export interface GraphqlErrorItem {
  message: string;
  locations?: Array<{ line: number; column: number }>;
  path?: Array<string | number>;
  extensions?: Record<string, unknown>;
}

/** A GraphQL answer: `data` (null when the query was refused) and its errors (none: []). */
export interface GraphqlAnswer {
  data: unknown;
  errors: GraphqlErrorItem[];
  /** The HTTP status (200; 400 for a refused query; 500 for a catalog with no schema). */
  status: number;
  /** The URL asked. */
  url: string;
}

/**
 * The server did not answer with GraphQL: the catalog is not served there (404), the server is
 * busy or past its deadline (503), the URL is not a content server, or it could not be reached.
 */
export class GraphqlRequestError extends Error {
  override name = 'GraphqlRequestError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The server's URL (`<server-url>`) from a catalog's status.urls.base
 * (`<server-url><prefix>/<catalog>[/revisions/<key>]`): what comes before `/<catalog>`'s
 * segment, less the prefix segment (`/catalogs`).
 */
export function serverUrlOfBase(base: string, catalog: string): string | undefined {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    return undefined;
  }
  const segments = u.pathname.split('/');
  const at = segments.lastIndexOf(catalog);
  // `/<prefix>/<catalog>`: at least the empty first segment, the prefix and the catalog.
  if (at < 2) return undefined;
  return `${u.origin}${segments.slice(0, at - 1).join('/')}`;
}

/**
 * The endpoint of one catalog: under its status.urls.base (with serverUrl's origin and path
 * when given, as blobs are read), or undefined when it has none.
 */
export function catalogEndpoint(c: ClusterCatalog, serverUrl?: string): string | undefined {
  const base = c.status?.urls?.base;
  if (base === undefined) return undefined;
  return fetchUrl(`${base.replace(/\/+$/, '')}${GRAPHQL_PATH}`, serverUrl);
}

/**
 * The endpoint across catalogs: under `serverUrl` when given (where the server is reached
 * from here), else under the server URL of the first catalog with a base.
 */
export function serverEndpoint(
  catalogs: readonly ClusterCatalog[],
  serverUrl: string | undefined,
): string | undefined {
  if (serverUrl !== undefined) return `${serverUrl.replace(/\/+$/, '')}${GRAPHQL_PATH}`;
  for (const c of catalogs) {
    const base = c.status?.urls?.base;
    const root = base !== undefined ? serverUrlOfBase(base, c.metadata.name) : undefined;
    if (root !== undefined) return `${root}${GRAPHQL_PATH}`;
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The errors of an answer, each with a string message (others are worded as such). */
function errorsOf(v: unknown): GraphqlErrorItem[] {
  if (!Array.isArray(v)) return [];
  return v.map((e): GraphqlErrorItem => {
    if (!isObject(e) || typeof e.message !== 'string')
      return { message: `an error the server did not word: ${JSON.stringify(e)}` };
    return e as unknown as GraphqlErrorItem;
  });
}

/** The first line of a text answer, at most 300 characters. */
function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

const REACH_HINT =
  "; the content server must be reachable from here: from outside the cluster, port-forward it (kubectl -n catalogd-system port-forward svc/catalogd-ts 8090:80) and pass its URL (kubectl catalog --server-url http://localhost:8090; the client library's serverUrl option)";

/**
 * A query whose URL stays within this is sent as a GET (GraphQL over HTTP: cacheable, and the
 * one method the apiserver's service proxy passes here, viaApiserverProxy); a longer one is a
 * POST (the server reads 16 KiB of request headers at most).
 */
export const MAX_GET_URL_BYTES = 8 * 1024;

/** The request of a query: a GET with its parameters in the URL when short enough, else POST. */
export function graphqlRequest(
  url: string,
  query: string,
  opts: Pick<GraphqlQueryOptions, 'variables' | 'operationName'>,
): { url: string; init: RequestInit } {
  const accept = 'application/graphql-response+json, application/json';
  const params = new URLSearchParams({ query });
  if (opts.variables !== undefined) params.set('variables', JSON.stringify(opts.variables));
  if (opts.operationName !== undefined) params.set('operationName', opts.operationName);
  const get = `${url}?${params.toString()}`;
  if (Buffer.byteLength(get) <= MAX_GET_URL_BYTES)
    return { url: get, init: { method: 'GET', headers: { Accept: accept } } };
  const body = JSON.stringify({
    query,
    ...(opts.variables !== undefined && { variables: opts.variables }),
    ...(opts.operationName !== undefined && { operationName: opts.operationName }),
  });
  return {
    url,
    init: { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: accept }, body },
  };
}

/**
 * Sends the query to the endpoint `url` and reads the answer: a GraphQL answer (any status) is
 * returned; anything else is a GraphqlRequestError.
 */
export async function sendGraphql(
  url: string,
  query: string,
  opts: GraphqlQueryOptions & { fetch?: typeof fetch },
): Promise<GraphqlAnswer> {
  const request = graphqlRequest(url, query, opts);
  let status: number;
  let text: string;
  let json: boolean;
  try {
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
    const res = await (opts.fetch ?? fetch)(request.url, {
      ...request.init,
      signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
    });
    status = res.status;
    json = /json/i.test(res.headers.get('content-type') ?? '');
    const stream = res.body as AsyncIterable<Uint8Array> | null;
    text = stream
      ? (
          await readLimited(
            stream,
            MAX_ANSWER_BYTES,
            () => new Error(`the answer passed ${MAX_ANSWER_BYTES} bytes`),
          )
        ).toString('utf8')
      : '';
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw new GraphqlRequestError(
      `cannot query ${url}: ${fetchFailureReason(err)}${untrustedReason(err) ? '' : REACH_HINT}`,
    );
  }
  let parsed: unknown;
  if (json)
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  if (isObject(parsed) && ('data' in parsed || 'errors' in parsed))
    return { data: parsed.data ?? null, errors: errorsOf(parsed.errors), status, url };
  const said = firstLine(text);
  throw new GraphqlRequestError(
    `${url} answered HTTP ${status}${said ? `: ${said}` : ''}${status === 404 && !said.startsWith('catalog') ? ' (not a content server with GraphQL on? see --server-url)' : ''}`,
    status,
  );
}
