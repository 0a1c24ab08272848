// The catalogpackages resource's verbs (docs/served.md, "Packages"): get, list (streamed package
// by package, selectors, limit/continue, Table), watch (the served watch over the package
// index), PATCH with dryRun=All; the view, resourceVersions and continue tokens are the
// CatalogMetadata resource's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptsGzip } from '../../server/index.js';
import type { Clock } from '../../util/clock.js';
import { encodeContinue } from '../list-query.js';
import type { ListOptions } from '../list-query.js';
import type { ListPosition } from '../matching.js';
import { ListBody } from '../objects-response.js';
import type { Rendering } from '../objects-response.js';
import { dryRunPatch } from '../patch.js';
import type { ServedObject } from '../served-object.js';
import { notFound, sendJson } from '../status.js';
import { SERVED_API_VERSION, SERVED_GROUP } from '../ports.js';
import type { View } from '../view.js';
import type { WatchHub } from '../watch.js';
import {
  catalogPackage,
  CATALOG_PACKAGE_LIST_KIND,
  CATALOG_PACKAGE_PLURAL,
} from './package-object.js';
import type { CatalogPackage } from './package-object.js';
import { matchingPackages, parsePackageSelectors } from './package-reader.js';
import type { PackageRead } from './package-reader.js';
import { packagePartialMetadata, packageRowJson, packageTableJson } from './package-table.js';
import { PACKAGE_TABLE_COLUMNS } from './package-table.js';
import { catalogPackageKind, packageIndexCache } from './package-watch.js';

/** What the served API lends the package handlers: its views, renderings and watches. */
export interface PackageApiDeps {
  clock: Clock;
  watches: WatchHub;
  /** The current view (the caller releases it). */
  currentView(res: ServerResponse): Promise<View>;
  /** The view a list reads (current, or the exact state of an RV or continue token). */
  viewFor(
    query: URLSearchParams,
    res: ServerResponse,
  ): Promise<{ view: View; options: ListOptions }>;
  rendering(req: IncomingMessage, query: URLSearchParams, list: boolean): Rendering;
  readBody(req: IncomingMessage): Promise<string>;
  /** The 405 of a write. */
  readOnly(verb: string): Error;
}

function itemJson(p: CatalogPackage, r: Rendering): string {
  if (r.representation === 'table') return packageRowJson(p, r.includeObject, r.now);
  if (r.representation === 'metadata') return JSON.stringify(packagePartialMetadata(p));
  return JSON.stringify(p);
}

const build = (read: PackageRead, rv: string): CatalogPackage =>
  catalogPackage(read.held.catalog, read.blobs, rv);

async function findPackage(view: View, name: string): Promise<CatalogPackage | undefined> {
  const selectors = {
    labels: [],
    fields: [{ field: 'metadata.name', operator: '=' as const, value: name }],
  };
  for await (const read of matchingPackages(view, selectors))
    return build(read, view.resourceVersion);
  return undefined;
}

export function createPackageApi(deps: PackageApiDeps) {
  const index = packageIndexCache();
  const kind = catalogPackageKind(index, deps.clock);

  async function withObject<T>(
    res: ServerResponse,
    name: string,
    use: (p: CatalogPackage, view: View) => T,
  ): Promise<T> {
    const view = await deps.currentView(res);
    try {
      const found = await findPackage(view, name);
      if (!found) throw notFound(CATALOG_PACKAGE_PLURAL, SERVED_GROUP, name);
      return use(found, view);
    } finally {
      view.release();
    }
  }

  async function get(
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    query: URLSearchParams,
  ) {
    const r = deps.rendering(req, query, false);
    await withObject(res, name, (p, view) => {
      const body =
        r.representation === 'table'
          ? packageTableJson(view.resourceVersion, [packageRowJson(p, r.includeObject, r.now)])
          : itemJson(p, r);
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-cache, private',
      });
      res.end(body);
    });
  }

  async function list(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const r = deps.rendering(req, query, true);
    const selectors = parsePackageSelectors(query);
    const { view, options } = await deps.viewFor(query, res);
    try {
      const rv = view.resourceVersion;
      const head =
        r.representation === 'table'
          ? `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":${JSON.stringify(PACKAGE_TABLE_COLUMNS)},"rows":[`
          : r.representation === 'metadata'
            ? '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","items":['
            : `{"kind":"${CATALOG_PACKAGE_LIST_KIND}","apiVersion":"${SERVED_API_VERSION}","items":[`;
      const packages = matchingPackages(view, selectors, options.from);
      // The first is read before the status line, so that an error is still a Status.
      let next = await packages.next();
      const gzip = acceptsGzip(req.headers['accept-encoding']);
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Cache-Control': 'no-cache, private',
        Vary: 'Accept-Encoding',
        ...(gzip && { 'Content-Encoding': 'gzip' }),
      });
      const body = new ListBody(res, gzip);
      await body.write(head);
      let count = 0;
      let continueAt: ListPosition | undefined;
      while (!next.done) {
        if (options.limit > 0 && count === options.limit) {
          continueAt = { catalog: next.value.held.catalog.name, seq: next.value.seq };
          await packages.return(undefined);
          break;
        }
        await body.write((count === 0 ? '' : ',') + itemJson(build(next.value, rv), r));
        count++;
        next = await packages.next();
      }
      const metadata: Record<string, string> = { resourceVersion: rv };
      if (continueAt) metadata.continue = encodeContinue(rv, continueAt);
      body.end(`],"metadata":${JSON.stringify(metadata)}}`);
    } finally {
      view.release();
    }
  }

  async function patch(
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    query: URLSearchParams,
  ) {
    if (!query.getAll('dryRun').includes('All')) throw deps.readOnly('patch');
    const body = await deps.readBody(req);
    await withObject(res, name, (p) => {
      // dryRunPatch reads metadata, apiVersion and kind only: any served object's.
      sendJson(res, dryRunPatch(p as unknown as ServedObject, req.headers['content-type'], body));
    });
  }

  /** One request on catalogpackages (the verb as the front resolved it). */
  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    verb: string,
    name: string,
    query: URLSearchParams,
  ): Promise<void> {
    switch (verb) {
      case 'get':
        return get(req, res, name, query);
      case 'list':
        return list(req, res, query);
      case 'watch':
        return deps.watches.serve(req, res, query, name, kind);
      case 'patch':
        return patch(req, res, name, query);
      default:
        throw deps.readOnly(verb);
    }
  }

  return { handle };
}
