// The HTTP content handler (SPEC §4): GET|HEAD <prefix>/<catalog>/api/v1/{all,metas} from the
// store's served revision, with validators, conditional requests and gzip. node:http only.
// <prefix>/<catalog>/api/v1/graphql is leased here and answered through a port (LeasedEndpoint)
// by the GraphQL layer (src/graphql): the server knows nothing of GraphQL.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { contentRange, ifRangeHolds, parseByteRange } from './byte-range.js';
import {
  acceptsGzip,
  allEntityTag,
  etagHeader,
  httpDate,
  metasEntityTag,
  requestIsNotModified,
} from './http-cache.js';
import { normalizeMetasQuery, parseMetasQuery } from './query.js';
import type { MetasQuery } from './query.js';
import { routeRequest } from './route.js';
import type { Endpoint, Route } from './route.js';
import type { RevisionWaiters } from './revision-wait.js';
import type { RevisionLease } from './store.js';

/** What the handler needs of the store. */
export interface LeaseSource {
  /** The served revision, or with `revision` (a revision key) the one it names, if held. */
  acquire(catalog: string, revision?: string): RevisionLease | undefined;
}

/** Whether the store holds that revision of the catalog now (a lease taken and given back). */
export function holdsRevision(store: LeaseSource, catalog: string, revision: string): boolean {
  const lease = store.acquire(catalog, revision);
  lease?.release();
  return lease !== undefined;
}

/** One finished response, for metrics and logs (no timing inside: the caller measures). */
export interface ServedResponse {
  method: string;
  /** `all`, `metas`, `graphql`, or undefined when the path matched no endpoint. */
  endpoint: Endpoint | undefined;
  status: number;
  /** False when the response was cut short (client gone, read error). */
  complete: boolean;
}

export interface ContentHandlerOptions {
  store: LeaseSource;
  /** Default `/catalogs`. */
  pathPrefix?: string;
  /** Called once per response when it finishes or is cut short. */
  onResponse?: (r: ServedResponse) => void;
  /**
   * A request for a revision not held yet waits for it here (revision-wait.ts); none: it is
   * answered at once (503, or 404 for a catalog of which no revision is held).
   */
  revisionWaiters?: RevisionWaiters;
  /** Answers `<base>/api/v1/graphql` (GET, HEAD, POST); none: 404. */
  graphql?: LeasedEndpoint;
  /** Answers `<server-url>/api/v1/graphql` across catalogs (GET, HEAD, POST); none: 404. */
  serverGraphql?: ServerEndpoint;
}

/**
 * An endpoint another layer answers (GraphQL: src/graphql), with the revision the request
 * names leased for it as for /all and /metas (revision URLs, waits, 404 and 503 alike). It
 * answers everything else; the lease is released when its promise settles.
 */
export type LeasedEndpoint = (
  req: IncomingMessage,
  res: ServerResponse,
  lease: RevisionLease,
  rawQuery: string,
) => Promise<void>;

/**
 * An endpoint of the server as a whole (GraphQL across catalogs: src/graphql), given the store
 * to lease the revisions it reads (each released by the endpoint once read).
 */
export type ServerEndpoint = (
  req: IncomingMessage,
  res: ServerResponse,
  store: LeaseSource,
  rawQuery: string,
) => Promise<void>;

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export const DEFAULT_PATH_PREFIX = '/catalogs';
const CONTENT_TYPE = 'application/jsonl';
/**
 * Retry-After of a revision this replica does not hold: it is usually a new revision that the
 * replica is still pulling (about 100 ms behind the leader), so a second is enough.
 */
export const REVISION_RETRY_AFTER_SECONDS = 1;

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = `${message}\n`;
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/**
 * No lease: the catalog is not served (404). A revision URL names one revision: a replica that
 * does not hold it (not caught up yet, or its grace period is over) answers a retryable 503 (404
 * for a catalog it serves no revision of), never another revision.
 */
function sendNotHeld(
  store: LeaseSource,
  catalog: string,
  revision: string | undefined,
  res: ServerResponse,
): void {
  const quoted = JSON.stringify(catalog);
  if (revision === undefined) return sendError(res, 404, `catalog ${quoted} is not served`);
  const retry = {
    'Retry-After': String(REVISION_RETRY_AFTER_SECONDS),
    'Cache-Control': 'no-store',
  };
  const latest = store.acquire(catalog);
  latest?.release();
  if (!latest)
    return sendError(
      res,
      404,
      `catalog ${quoted} is not served by this replica; retry, or read the ClusterCatalog's status.urls.base again`,
      retry,
    );
  return sendError(
    res,
    503,
    `revision ${revision} of catalog ${quoted} is not served by this replica; retry, or read the ClusterCatalog's status.urls.base again`,
    retry,
  );
}

/**
 * A revision URL's revision, not held yet: this replica is usually still building it (the
 * leader wrote the status naming it a moment ago). Wait for it, bounded; the client going away
 * ends the wait.
 */
async function awaitRevision(
  store: LeaseSource,
  catalog: string,
  revision: string | undefined,
  waiters: RevisionWaiters | undefined,
  res: ServerResponse,
): Promise<RevisionLease | undefined> {
  if (revision === undefined || !waiters) return undefined;
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  try {
    const outcome = await waiters.wait(
      catalog,
      () => holdsRevision(store, catalog, revision),
      gone.signal,
    );
    return outcome === 'held' ? store.acquire(catalog, revision) : undefined;
  } finally {
    res.off('close', onClose);
  }
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/** Gzips what `send` writes into the response while it streams. */
async function sendGzipped(
  send: (out: Writable) => Promise<void>,
  res: ServerResponse,
): Promise<void> {
  const gz = createGzip();
  const piped = pipeline(gz, res);
  piped.catch(() => undefined);
  try {
    await send(gz);
    gz.end();
  } catch (err) {
    gz.destroy(err instanceof Error ? err : new Error('cannot read the catalog', { cause: err }));
  }
  await piped;
}

export function createContentHandler(opts: ContentHandlerOptions): RequestHandler {
  const prefix = (opts.pathPrefix ?? DEFAULT_PATH_PREFIX).replace(/\/+$/, '');
  const { onResponse } = opts;
  return (req, res) => {
    if (onResponse) {
      const endpoint = (() => {
        const r = routeRequest(req.url ?? '', prefix);
        return r.kind === 'content' || r.kind === 'server' ? r.endpoint : undefined;
      })();
      const report = (): void =>
        onResponse({
          method: req.method ?? '',
          endpoint,
          status: res.statusCode,
          complete: res.writableFinished,
        });
      res.once('close', report);
    }
    serve(
      opts.store,
      prefix,
      req,
      res,
      opts.revisionWaiters,
      opts.graphql,
      opts.serverGraphql,
    ).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'internal error while reading the catalog');
      else res.destroy(err instanceof Error ? err : new Error('response failed', { cause: err }));
    });
  };
}

async function serve(
  store: LeaseSource,
  prefix: string,
  req: IncomingMessage,
  res: ServerResponse,
  waiters: RevisionWaiters | undefined,
  graphql?: LeasedEndpoint,
  serverGraphql?: ServerEndpoint,
): Promise<void> {
  const route = routeRequest(req.url ?? '', prefix);
  if (route.kind === 'not-found') return sendError(res, 404, 'not found');
  if (route.kind === 'server') {
    if (!serverGraphql) return sendError(res, 404, 'not found');
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST')
      return sendError(res, 405, 'method not allowed: use POST, or GET for a query', {
        Allow: 'GET, HEAD, POST',
      });
    return serverGraphql(req, res, store, route.rawQuery);
  }
  if (route.kind === 'bad-request') return sendError(res, 400, route.error);
  if (route.endpoint === 'graphql') return serveLeased(graphql, store, route, req, res, waiters);
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return sendError(res, 405, 'method not allowed: use GET or HEAD', { Allow: 'GET, HEAD' });
  let normalized = '';
  let query: MetasQuery = {};
  if (route.endpoint === 'metas') {
    const parsed = parseMetasQuery(route.rawQuery);
    if (!parsed.ok) return sendError(res, 400, parsed.error);
    query = parsed.query;
    normalized = normalizeMetasQuery(parsed.query);
  }
  const lease =
    store.acquire(route.catalog, route.revision) ??
    (await awaitRevision(store, route.catalog, route.revision, waiters, res));
  if (!lease) return sendNotHeld(store, route.catalog, route.revision, res);
  try {
    const tag =
      route.endpoint === 'all'
        ? allEntityTag(lease.contentHash)
        : metasEntityTag(lease.contentHash, normalized);
    const whole = normalized === '';
    // The whole catalog's gzip is written just after a revision is first served: until it is,
    // a gzip request gets identity (its own ETag), which any client takes.
    const gzip =
      acceptsGzip(req.headers['accept-encoding']) && (!whole || lease.allGzipBytes !== undefined);
    const validators = {
      ETag: etagHeader(tag, gzip),
      'Last-Modified': httpDate(lease.lastModified),
      Vary: 'Accept-Encoding',
    };
    if (requestIsNotModified(req.headers, tag, lease.lastModified)) {
      res.writeHead(304, validators);
      res.end();
      return;
    }
    const headers: Record<string, string | number> = {
      ...validators,
      'Content-Type': CONTENT_TYPE,
      'X-Content-Type-Options': 'nosniff',
    };
    if (gzip) headers['Content-Encoding'] = 'gzip';
    // The whole catalog (/all, or metas without filters) is served from the revision's files
    // as they are; a filtered metas answer is gzipped while it streams.
    let selection = whole ? lease.selectAll() : await lease.select(query);
    let status = 200;
    if (whole && !gzip) {
      headers['Accept-Ranges'] = 'bytes';
      const range = ifRangeHolds(
        headerValue(req, 'if-range'),
        validators.ETag,
        validators['Last-Modified'],
      )
        ? parseByteRange(req.headers.range, selection.bytes)
        : ({ kind: 'whole' } as const);
      if (range.kind === 'unsatisfiable')
        return sendError(res, 416, 'the requested range is not within the catalog', {
          'Content-Range': `bytes */${selection.bytes}`,
        });
      if (range.kind === 'range') {
        status = 206;
        headers['Content-Range'] = contentRange(range.start, range.end, selection.bytes);
        selection = {
          ...selection,
          byteRanges: [[range.start, range.end]],
          bytes: range.end - range.start,
        };
      }
    }
    if (!gzip) headers['Content-Length'] = selection.bytes;
    else if (whole) headers['Content-Length'] = lease.allGzipBytes!;
    res.writeHead(status, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (gzip && whole) await lease.sendAllGzip(res);
    else if (gzip) await sendGzipped((out) => lease.send(selection, out), res);
    else await lease.send(selection, res);
    res.end();
  } finally {
    lease.release();
  }
}

/** An endpoint answered through the LeasedEndpoint port, with the revision leased for it. */
async function serveLeased(
  endpoint: LeasedEndpoint | undefined,
  store: LeaseSource,
  route: Extract<Route, { kind: 'content' }>,
  req: IncomingMessage,
  res: ServerResponse,
  waiters: RevisionWaiters | undefined,
): Promise<void> {
  if (!endpoint) return sendError(res, 404, 'not found');
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST')
    return sendError(res, 405, 'method not allowed: use POST, or GET for a query', {
      Allow: 'GET, HEAD, POST',
    });
  const lease =
    store.acquire(route.catalog, route.revision) ??
    (await awaitRevision(store, route.catalog, route.revision, waiters, res));
  if (!lease) return sendNotHeld(store, route.catalog, route.revision, res);
  try {
    await endpoint(req, res, lease, route.rawQuery);
  } finally {
    lease.release();
  }
}
