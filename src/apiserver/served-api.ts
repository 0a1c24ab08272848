// The served API after authentication and authorization (docs/served.md): discovery, OpenAPI,
// and the resources catalogmetadata and catalogpackages (get, list, watch, dry-run patch; other
// writes 405: one set of handlers, parameterised by the served kind, served-kind.ts), read from
// the revisions the content store holds through the ViewSource port.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CATALOG_METADATA_PLURAL } from '../api/v1/index.js';
import { realClock } from '../util/clock.js';
import type { Clock } from '../util/clock.js';
import { acceptsGzip } from '../server/index.js';
import { ObjectIndexCache } from './blob-entries.js';
import {
  aggregatedDiscoveryContentType,
  apiGroup,
  apiGroupDiscoveryList,
  apiGroupList,
  apiResourceList,
} from './discovery.js';
import { parseListOptions, continueTooOld } from './list-query.js';
import { nameMayBelong } from './matching.js';
import { aggregatedDiscoveryVersion, negotiate } from './negotiate.js';
import { findObject, objectBody, sendList } from './objects-response.js';
import type { Rendering } from './objects-response.js';
import { openApiDocuments, OPENAPI_V3_PATH } from './openapi.js';
import { dryRunPatch } from './patch.js';
import { SERVED_GROUP, SERVED_VERSION } from './ports.js';
import type { RequestInfo, ServedApi, UserInfo, ViewSource } from './ports.js';
import { decodeResourceVersion, isAnyResourceVersion } from './resource-version.js';
import type { ObjectSettings } from './served-object.js';
import { ApiError, notFound, sendError, sendJson, sendText } from './status.js';
import { parseIncludeObject } from './table.js';
import { currentView, exactView } from './view.js';
import type { View } from './view.js';
import { WatchHub, DEFAULT_BOOKMARK_INTERVAL_MS } from './watch.js';
import { catalogPackageKind } from './packages/package-kind.js';
import { catalogMetadataKind } from './served-kind.js';
import type { BuiltObject, ServedKind } from './served-kind.js';

export interface ServedApiOptions extends ObjectSettings {
  /** Ages in tables, bookmarks, watch timeouts (default: the system clock). */
  clock?: Clock;
  /** How often an idle watch that allows bookmarks gets one (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Revisions whose object index (names, hashes) is kept (default 8). */
  indexedRevisions?: number;
  /** The largest PATCH body read (default 3 MiB, the apiserver's). */
  maxPatchBytes?: number;
  /**
   * The controller's --content-profile. Not read here: the ViewSource resolves each catalog's
   * profile (flag, then annotation) into ViewCatalog.profile; accepted so the setup can pass
   * its settings whole.
   */
  defaultProfile?: 'full' | 'lean' | 'none';
}

const GROUP_PATH = `/apis/${SERVED_GROUP}`;
const VERSION_PATH = `${GROUP_PATH}/${SERVED_VERSION}`;
const DEFAULT_MAX_PATCH_BYTES = 3 * 1024 * 1024;

/** The 405 of a write; `catalog`: the ClusterCatalog the object's name says it belongs to. */
const readOnly = (verb: string, resource: string, catalog?: string): ApiError =>
  new ApiError(
    405,
    'MethodNotAllowed',
    `${verb} is not allowed: ${resource}.${SERVED_GROUP} are read-only views of their ClusterCatalog's content (olm.operatorframework.io/v1 ClusterCatalog${catalog === undefined ? '' : ` ${catalog}`}); change the ClusterCatalog (its source image) instead. Only PATCH with dryRun=All is answered.`,
  );

const pathNotFound = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max)
      throw new ApiError(
        413,
        'RequestEntityTooLarge',
        `the request body is larger than ${max} bytes`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createServedApi(source: ViewSource, opts: ServedApiOptions): ServedApi {
  const clock = opts.clock ?? realClock;
  const settings: ObjectSettings = {
    maxObjectBytes: opts.maxObjectBytes,
    blobUrl: (catalog, blob) => opts.blobUrl(catalog, blob),
  };
  const kinds = new Map(
    [
      catalogMetadataKind(settings, new ObjectIndexCache(opts.indexedRevisions ?? 8)),
      catalogPackageKind(),
    ].map((k) => [k.plural, k]),
  );
  const openapi = openApiDocuments();
  const watches = new WatchHub(source, {
    clock,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
  });

  const abortOnClose = (res: ServerResponse): AbortSignal => {
    const ctl = new AbortController();
    res.once('close', () => ctl.abort());
    return ctl.signal;
  };

  /** The catalog an object's name belongs to (names start with it), when one does. */
  const catalogOf = (name: string): string | undefined => {
    if (name === '') return undefined;
    const owners = source.catalogs().filter((c) => nameMayBelong(name, c.name));
    return owners.length === 1 ? owners[0]!.name : undefined;
  };

  /** The view a list reads (the caller releases it). */
  async function viewFor(query: URLSearchParams, res: ServerResponse) {
    const options = parseListOptions(query);
    const signal = abortOnClose(res);
    let view: View;
    if (options.read.kind === 'exact') {
      if (options.read.state.transition)
        throw new ApiError(
          410,
          'Expired',
          'too old resource version: it names a state between two revisions',
        );
      try {
        view = await exactView(source, options.read.state, signal);
      } catch (err) {
        if (options.from && err instanceof ApiError && err.code === 410) throw continueTooOld();
        throw err;
      }
    } else view = await currentView(source, signal);
    return { view, options };
  }

  function rendering(req: IncomingMessage, query: URLSearchParams, list: boolean): Rendering {
    return {
      representation: negotiate(req.headers.accept, list),
      includeObject: parseIncludeObject(query.get('includeObject')),
      now: clock.now(),
    };
  }

  /** Uses the object of that name in the current view; 404 when there is none. */
  async function withObject<T>(
    kind: ServedKind,
    res: ServerResponse,
    name: string,
    use: (o: BuiltObject, view: View) => T,
  ): Promise<T> {
    const view = await currentView(source, abortOnClose(res));
    try {
      const found = await findObject(kind, view, name);
      if (!found) throw notFound(kind.plural, SERVED_GROUP, name);
      return use(found, view);
    } finally {
      view.release();
    }
  }

  async function get(
    kind: ServedKind,
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    query: URLSearchParams,
  ) {
    const r = rendering(req, query, false);
    const rv = query.get('resourceVersion') ?? undefined;
    if (!isAnyResourceVersion(rv)) decodeResourceVersion(rv!);
    await withObject(kind, res, info.name, (found, view) => {
      sendText(res, objectBody(found, kind.columns, r, view.resourceVersion));
    });
  }

  async function list(
    kind: ServedKind,
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
  ) {
    const r = rendering(req, query, true);
    const selectors = kind.parseSelectors(query);
    const { view, options } = await viewFor(query, res);
    try {
      const objects = kind.matching(view, selectors, options.from);
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      await sendList(res, kind, view, objects, r, options.limit, gzip);
    } finally {
      view.release();
    }
  }

  async function patch(
    kind: ServedKind,
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    query: URLSearchParams,
  ) {
    if (!query.getAll('dryRun').includes('All'))
      throw readOnly('patch', kind.plural, catalogOf(info.name));
    const body = await readBody(req, opts.maxPatchBytes ?? DEFAULT_MAX_PATCH_BYTES);
    await withObject(kind, res, info.name, (found) =>
      sendJson(res, dryRunPatch(found.object, req.headers['content-type'], body)),
    );
  }

  /** Discovery and OpenAPI documents (by the HTTP method: the front may call /apis/<g>/<v> a list). */
  function nonResource(req: IncomingMessage, res: ServerResponse, info: RequestInfo): void {
    const method = (req.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD')
      throw readOnly(method.toLowerCase(), CATALOG_METADATA_PLURAL);
    const path = info.path.replace(/\/+$/, '') || '/';
    if (path === '/apis') {
      const aggregated = aggregatedDiscoveryVersion(req.headers.accept);
      if (aggregated) {
        return sendText(res, JSON.stringify(apiGroupDiscoveryList(aggregated)), 200, {
          'Content-Type': aggregatedDiscoveryContentType(aggregated),
        });
      }
      return sendJson(res, apiGroupList());
    }
    if (path === GROUP_PATH) return sendJson(res, apiGroup());
    if (path === VERSION_PATH) return sendJson(res, apiResourceList());
    const doc =
      path === '/openapi/v2'
        ? { text: openapi.v2, etag: openapi.v2Etag }
        : path === '/openapi/v3'
          ? { text: openapi.v3Index, etag: undefined }
          : path === OPENAPI_V3_PATH
            ? { text: openapi.v3, etag: `"${openapi.v3Hash}"` }
            : undefined;
    if (doc === undefined) throw pathNotFound();
    // The aggregator downloads the documents again every minute: a matching ETag is a 304.
    if (doc.etag !== undefined && req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, { ETag: doc.etag });
      res.end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(doc.text),
      ...(doc.etag !== undefined && { ETag: doc.etag }),
    });
    res.end(doc.text);
  }

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    _user: UserInfo,
  ) {
    try {
      // The apiserver's RequestInfoResolver takes /apis/<group>/<version> for a resource request
      // without a resource.
      if (!info.isResourceRequest || info.resource === '') return nonResource(req, res, info);
      const kind = kinds.get(info.resource);
      if (
        info.apiGroup !== SERVED_GROUP ||
        info.apiVersion !== SERVED_VERSION ||
        kind === undefined ||
        info.subresource !== '' ||
        info.path.includes('/namespaces/')
      )
        throw pathNotFound();
      const query = new URL(req.url ?? '/', 'http://served.invalid').searchParams;
      switch (info.verb) {
        case 'get':
          return await get(kind, req, res, info, query);
        case 'list':
          return await list(kind, req, res, query);
        case 'watch':
          return await watches.serve(req, res, query, info.name, kind);
        case 'patch':
          return await patch(kind, req, res, info, query);
        default:
          throw readOnly(info.verb, kind.plural, catalogOf(info.name));
      }
    } catch (err) {
      sendError(res, err);
    }
  }

  return { handle, close: () => watches.close() };
}
