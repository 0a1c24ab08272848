// CatalogClient: typed, label-selected reads of CatalogMetadata and ClusterCatalogs over the
// project's KubeClient, and the consistent-list protocol of SPEC §2.1.
import { setTimeout as delay } from 'node:timers/promises';
// The API and kube modules by file, not their index: the entry point loads only what it uses
// (entry-point.test.ts counts the modules).
import type { CatalogMetadata } from '../api/v1/catalogmetadata.js';
import { CATALOG_METADATA_PLURAL } from '../api/v1/catalogmetadata.js';
import type { ClusterCatalog } from '../api/v1/clustercatalog.js';
import { CLUSTER_CATALOG_PLURAL, LABEL_METADATA_NAME } from '../api/v1/clustercatalog.js';
import type { Condition } from '../api/v1/conditions.js';
import { TYPE_SERVING, findCondition } from '../api/v1/conditions.js';
import type { ObjectView } from '../api/v1/group.js';
import { GROUP, SERVED_GROUP, VERSION } from '../api/v1/group.js';
import { labelValue } from '../api/v1/identity.js';
import { KubeClient } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import type { ObjectMetadata, WatchEventType } from '../kube/resource.js';
import { Resource } from '../kube/resource.js';
import type { ExponentialBackoffOptions } from '../util/backoff.js';
import { ExponentialBackoff } from '../util/backoff.js';
import type {
  CatalogClientOptions,
  ConsistentList,
  ConsistentListOptions,
  ListMetadataOptions,
  MetadataEventType,
  WatchCatalogsOptions,
} from './client-types.js';
import type {
  CatalogFailure,
  ContentFetchOptions,
  FullContent,
  PartialContent,
} from './content.js';
import { mapBounded } from '../util/limits.js';
import { CatalogBases, contentOf, fetchWholeBlob, perCatalog, resolverBlob } from './content.js';
import { fetchTrusting, viaApiserverProxy } from './trust.js';
import type { AnyBlob, BundleBlob, GVK } from '../answers/fbc-types.js';
import { SCHEMA_BUNDLE, isBundleBlob } from '../answers/fbc-types.js';
import type { Provider } from '../answers/graph.js';
import { gvkProviders, sortProviders } from '../answers/graph.js';
import type { GraphqlAnswer, GraphqlQueryOptions } from './graphql-query.js';
import type { DiscoveryProbe, ObjectViewChoice } from './object-view.js';
import type { MetadataQuery } from './query.js';
import { matchesQuery, metadataSelectors } from './query.js';

/** 500 ms, then doubling to 30 s: a watch that keeps failing is retried ever more slowly. */
const WATCH_CATALOGS_BACKOFF: ExponentialBackoffOptions = {
  initialMs: 500,
  maxMs: 30_000,
  jitter: 0.2,
};

const sleepUnlessAborted = (ms: number, signal: AbortSignal) =>
  delay(ms, undefined, { signal }).catch(() => undefined);

export class CatalogNotFoundError extends Error {
  override name = 'CatalogNotFoundError';
  constructor(readonly catalog: string) {
    super(`ClusterCatalog ${JSON.stringify(catalog)} not found (see: kubectl get clustercatalogs)`);
  }
}

export class CatalogNotServingError extends Error {
  override name = 'CatalogNotServingError';
  constructor(
    readonly catalog: string,
    readonly condition: Condition | undefined,
  ) {
    const why = condition
      ? `Serving=${condition.status}/${condition.reason}${condition.message ? `: ${condition.message}` : ''}`
      : 'no Serving condition yet';
    // Serving speaks of HTTP, which comes first: the objects follow, or were refused.
    super(
      condition?.status === 'True'
        ? `ClusterCatalog ${JSON.stringify(catalog)} is served over HTTP (status.urls.base) but has no revision of CatalogMetadata objects (no status.contentHash: see its Progressing condition)`
        : `ClusterCatalog ${JSON.stringify(catalog)} is not Serving yet (${why}); wait for it with: kubectl wait --for=condition=Serving clustercatalog/${catalog}`,
    );
  }
}

export class InconsistentListError extends Error {
  override name = 'InconsistentListError';
}

/** Whether the catalog is served over HTTP: Serving=True (docs/api.md, "Two views of a catalog"). */
function isServingHttp(c: ClusterCatalog): boolean {
  return findCondition(c.status?.conditions, TYPE_SERVING)?.status === 'True';
}

/** Whether the catalog's objects hold a revision too: Serving=True and a contentHash. */
export function isServing(c: ClusterCatalog): boolean {
  return c.status?.contentHash !== undefined && isServingHttp(c);
}

export class CatalogClient {
  readonly kube: KubeClient;
  private readonly ownsKube: boolean;
  private readonly pageSize: number;
  /** The objectView option: no discovery when set. */
  private readonly forcedView: ObjectView | undefined;
  /** The view and its CatalogMetadata resources, found once (a failed discovery is retried). */
  private view?: Promise<MetadataResources>;
  private viewFound?: ObjectViewChoice;
  private readonly catalogs: Resource<ClusterCatalog>;
  private readonly fetchOptions: ContentFetchOptions;
  private readonly fetchConcurrency: number;
  /** Each catalog's status.urls.base: contentOmitted.url is followed only under it. */
  private readonly bases = new CatalogBases((name, signal) => this.getCatalog(name, signal));

  constructor(opts: CatalogClientOptions = {}) {
    this.ownsKube = opts.kube === undefined;
    this.kube =
      opts.kube ??
      new KubeClient({
        ...(opts.kubeconfig !== undefined && { kubeconfig: opts.kubeconfig }),
        ...(opts.onRequest && { onRequest: opts.onRequest }),
        maxSockets: 8,
      });
    this.pageSize = opts.pageSize ?? 500;
    this.fetchOptions = {
      ...(opts.serverUrl !== undefined && { serverUrl: opts.serverUrl }),
      catalogBase: (catalog, fresh, signal) => this.bases.of(catalog, fresh, signal),
      // An injected fetch gets every URL (tests, callers with their own transport).
      fetch:
        opts.fetch ??
        viaApiserverProxy(
          this.kube,
          opts.ca !== undefined ? fetchTrusting(opts.ca) : (i, init) => fetch(i, init),
        ),
    };
    this.fetchConcurrency = Math.max(1, opts.fetchConcurrency ?? 4);
    this.forcedView = opts.objectView;
    this.catalogs = new Resource<ClusterCatalog>(this.kube, {
      group: GROUP,
      version: VERSION,
      plural: CLUSTER_CATALOG_PLURAL,
    });
  }

  /**
   * Which object view the client reads CatalogMetadata from, and why (docs/client.md, "Object
   * view"): the objectView option, else found once from the discovery documents of
   * olm.operatorframework.io/v1 and content.olm.operatorframework.io/v1 (read at once), and kept
   * for the client's life. ObjectViewUnknownError when neither serves CatalogMetadata.
   */
  async objectView(signal?: AbortSignal): Promise<ObjectViewChoice> {
    return (await this.metadataResources(signal)).choice;
  }

  /** The view once a read has found it (no request); undefined before. */
  get foundObjectView(): ObjectViewChoice | undefined {
    return this.viewFound;
  }

  private metadataResources(signal?: AbortSignal): Promise<MetadataResources> {
    this.view ??= this.findView(signal).catch((err: unknown) => {
      this.view = undefined; // not kept: the next read asks again
      throw err;
    });
    return this.view;
  }

  private async findView(signal?: AbortSignal): Promise<MetadataResources> {
    const ov = await import('./object-view.js');
    let choice: ObjectViewChoice;
    if (this.forcedView !== undefined) choice = ov.forcedObjectView(this.forcedView);
    else {
      // Both discovery documents, read at once (one round trip).
      const [crd, served] = await Promise.all([
        this.probeGroup(GROUP, signal),
        this.probeGroup(SERVED_GROUP, signal),
      ]);
      choice = ov.decideObjectView(crd, served);
    }
    const cm = { group: choice.group, version: VERSION, plural: CATALOG_METADATA_PLURAL };
    this.viewFound = choice;
    return {
      choice,
      objectsLag: choice.view === 'served' ? ov.servedObjectsLag : () => false,
      full: new Resource<CatalogMetadata>(this.kube, cm),
      metadataOnly: new Resource<ObjectMetadata>(this.kube, cm, { metadataOnly: true }),
    };
  }

  /** GET /apis/GROUP/v1: whether it lists catalogmetadata. */
  private async probeGroup(group: string, signal?: AbortSignal): Promise<DiscoveryProbe> {
    const path = `/apis/${group}/${VERSION}`;
    try {
      const doc = await this.kube.request<{ resources?: Array<{ name?: unknown }> } | undefined>(
        path,
        { verb: 'get', resource: 'discovery', ...(signal && { signal }) },
      );
      if (doc?.resources?.some((r) => r.name === CATALOG_METADATA_PLURAL))
        return { state: 'listed' };
      return { state: 'absent', why: `${path} does not list ${CATALOG_METADATA_PLURAL}` };
    } catch (err) {
      if (signal?.aborted) throw err;
      if (isNotFound(err)) return { state: 'absent', why: `${path} is not served (404)` };
      return { state: 'failed', why: `${path}: ${(err as Error).message}` };
    }
  }

  close(): void {
    if (this.ownsKube) this.kube.close();
  }

  /** Every ClusterCatalog, sorted by name. */
  async listCatalogs(signal?: AbortSignal): Promise<ClusterCatalog[]> {
    const out: ClusterCatalog[] = [];
    for await (const c of this.catalogs.listAll(undefined, this.pageSize, signal)) out.push(c);
    return out.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  }

  /**
   * Calls onEvent for every change of a ClusterCatalog (bookmarks left out) until the signal
   * aborts; then resolves. The watch starts with every catalog (ADDED) and is re-opened when
   * the server ends it or it fails (RBAC, a proxy, the apiserver away), after a delay that grows
   * while watches deliver nothing and starts over once one does.
   */
  async watchCatalogs(
    onEvent: (type: Exclude<WatchEventType, 'BOOKMARK'>, catalog: ClusterCatalog) => void,
    signal: AbortSignal,
    opts: WatchCatalogsOptions = {},
  ): Promise<void> {
    const backoff = new ExponentialBackoff(opts.backoff ?? WATCH_CATALOGS_BACKOFF);
    const sleep = opts.sleep ?? sleepUnlessAborted;
    while (!signal.aborted) {
      try {
        await this.catalogs.watch(
          { resourceVersion: '', allowWatchBookmarks: true, timeoutSeconds: 300 },
          (type, catalog) => {
            backoff.reset();
            if (type !== 'BOOKMARK') onEvent(type, catalog);
          },
          signal,
        );
      } catch {
        // Re-opened after the delay below.
      }
      if (!signal.aborted) await sleep(backoff.next(), signal);
    }
  }

  /** One ClusterCatalog, or undefined when there is none of that name. */
  async getCatalog(name: string, signal?: AbortSignal): Promise<ClusterCatalog | undefined> {
    try {
      return await this.catalogs.get(name, signal);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * The catalog, which must exist and be Serving; throws CatalogNotFoundError or
   * CatalogNotServingError. A catalog Serving over HTTP whose first revision of objects is being
   * written (syncingTo) is returned: the consistent list waits for it as for any sync.
   */
  async servingCatalog(name: string, signal?: AbortSignal): Promise<ClusterCatalog> {
    const c = await this.getCatalog(name, signal);
    if (!c) throw new CatalogNotFoundError(name);
    const firstSync = c.status?.syncingTo && isServingHttp(c);
    if (!isServing(c) && !firstSync)
      throw new CatalogNotServingError(name, findCondition(c.status?.conditions, TYPE_SERVING));
    return c;
  }

  /**
   * The CatalogMetadata objects matching the query, page by page: filtered by the apiserver
   * with a label selector, then checked exactly against spec.
   */
  async *listMetadata(
    q: MetadataQuery,
    opts: ListMetadataOptions = {},
  ): AsyncGenerator<CatalogMetadata> {
    const { labelSelector, fieldSelector } = metadataSelectors(q);
    const { full } = await this.metadataResources(opts.signal);
    for await (const o of full.listAll(
      labelSelector || undefined,
      this.pageSize,
      opts.signal,
      fieldSelector || undefined,
    )) {
      if (matchesQuery(o.spec, q)) yield o;
    }
  }

  /**
   * Metadata only (names, labels, annotations; no spec) of the objects whose labels match the
   * query: cheap, for counting. A value whose label is hash-encoded is selected by its spec
   * field, so only packageOrName and a set of schemas match by (possibly encoded) label.
   */
  async *listMetadataLabels(
    q: MetadataQuery,
    opts: ListMetadataOptions = {},
  ): AsyncGenerator<ObjectMetadata> {
    const { labelSelector, fieldSelector } = metadataSelectors(q);
    const { metadataOnly } = await this.metadataResources(opts.signal);
    yield* metadataOnly.listAll(
      labelSelector || undefined,
      this.pageSize,
      opts.signal,
      fieldSelector || undefined,
    );
  }

  /**
   * Watches the objects matching the query from `resourceVersion` (e.g. the list's), calling
   * onEvent for each matching change (and bookmarks), until the server ends the watch
   * (resolves), the connection fails or the resourceVersion is too old (rejects with a 410
   * error: list again), or the signal aborts (resolves).
   */
  async watchMetadata(
    q: MetadataQuery,
    resourceVersion: string,
    onEvent: (type: MetadataEventType, obj: CatalogMetadata) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const { labelSelector, fieldSelector } = metadataSelectors(q);
    const { full } = await this.metadataResources(signal);
    await full.watch(
      {
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 300 + Math.floor(Math.random() * 300),
        ...(labelSelector && { labelSelector }),
        ...(fieldSelector && { fieldSelector }),
      },
      (type, obj) => {
        if (type === 'BOOKMARK' || matchesQuery(obj.spec, q)) onEvent(type, obj);
      },
      signal,
    );
  }

  /** One page-through list with its collection resourceVersion (to start a watch from). */
  async listMetadataWithVersion(
    q: MetadataQuery,
    opts: ListMetadataOptions = {},
  ): Promise<{ items: CatalogMetadata[]; resourceVersion: string }> {
    const { labelSelector, fieldSelector } = metadataSelectors(q);
    const items: CatalogMetadata[] = [];
    const { full } = await this.metadataResources(opts.signal);
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const page = await full.list(
        {
          limit: this.pageSize,
          ...(cont && { continue: cont }),
          ...(labelSelector && { labelSelector }),
          ...(fieldSelector && { fieldSelector }),
        },
        opts.signal,
      );
      if (!resourceVersion) resourceVersion = page.resourceVersion;
      for (const o of page.items) if (matchesQuery(o.spec, q)) items.push(o);
      cont = page.continue;
    } while (cont);
    return { items, resourceVersion };
  }

  /**
   * The consistent-list protocol (SPEC §2.1): read the catalog's status, list, read the status
   * again; when contentHash is the same and syncingTo empty both times, the list is one
   * revision. Otherwise retry with backoff until the deadline (InconsistentListError). For a
   * query without a catalog, every catalog's status is read (one list of ClusterCatalogs).
   * Throws CatalogNotFoundError / CatalogNotServingError for a named catalog that does not
   * serve (e.g. in its first sync: there is no revision to wait for).
   */
  async consistentList(
    q: MetadataQuery,
    opts: ConsistentListOptions = {},
  ): Promise<ConsistentList> {
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    let backoff = opts.backoffMs ?? 200;
    let why: string;
    const skip = opts.skipSyncing === true && q.catalog === undefined;
    for (let retries = 0; ; retries++) {
      const before = await this.revisions(q, opts.signal);
      if (before.syncing.length === 0 || skip) {
        const items: CatalogMetadata[] = [];
        for await (const o of this.listMetadata(q, opts))
          if (!opts.keep || opts.keep(o)) items.push(o);
        const after = await this.revisions(q, opts.signal);
        // Catalogs that sync before or after are left out (skip) or make us retry.
        const skipped = [...new Set([...before.syncing, ...after.syncing])].sort();
        const drop = new Set(skipped);
        const kept = (r: Record<string, string>) =>
          Object.fromEntries(Object.entries(r).filter(([k]) => !drop.has(k)));
        const same =
          (skip || after.syncing.length === 0) &&
          sameRevisions(kept(before.revisions), kept(after.revisions));
        if (same) {
          const revisions = kept(before.revisions);
          return {
            ...(q.catalog !== undefined && { contentHash: revisions[q.catalog]! }),
            revisions,
            // Objects of a catalog that serves nothing (e.g. being deleted) are not a revision.
            items: items.filter((o) => Object.hasOwn(revisions, o.spec.catalog.name)),
            retries,
            skipped,
          };
        }
        why =
          after.syncing.length > 0
            ? `catalog ${after.syncing.join(', ')} started syncing during the list`
            : 'the content changed during the list';
      } else {
        why = `catalog ${before.syncing.join(', ')} is syncing`;
      }
      if (Date.now() + backoff > deadline)
        throw new InconsistentListError(
          `no consistent list within ${opts.timeoutMs ?? 30_000} ms: ${why}; try again later`,
        );
      await delay(backoff, undefined, opts.signal ? { signal: opts.signal } : {});
      backoff = Math.min(backoff * 2, 2000);
    }
  }

  private async revisions(
    q: MetadataQuery,
    signal?: AbortSignal,
  ): Promise<{ revisions: Record<string, string>; syncing: string[] }> {
    const catalogs =
      q.catalog !== undefined
        ? [await this.servingCatalog(q.catalog, signal)]
        : await this.listCatalogs(signal);
    const { objectsLag } = await this.metadataResources(signal);
    const revisions: Record<string, string> = {};
    const syncing: string[] = [];
    for (const c of catalogs) {
      this.bases.saw(c);
      if (c.status?.syncingTo || objectsLag(c.status)) syncing.push(c.metadata.name);
      else if (c.status?.contentHash) revisions[c.metadata.name] = c.status.contentHash;
    }
    return { revisions, syncing };
  }

  /** The catalogs selected by name through their metadata.name label (one request). */
  async catalogsByName(names: readonly string[], signal?: AbortSignal): Promise<ClusterCatalog[]> {
    if (names.length === 0) return [];
    const out: ClusterCatalog[] = [];
    const selector = `${LABEL_METADATA_NAME} in (${names.map(labelValue).join(',')})`;
    for await (const c of this.catalogs.listAll(selector, this.pageSize, signal)) out.push(c);
    return out;
  }

  /**
   * Sends a GraphQL query (docs/graphql.md) to `opts.catalog`'s endpoint (under its
   * status.urls.base: the revision the catalog serves; CatalogNotFoundError,
   * CatalogNotServingError when it is not Serving), or without a catalog to the endpoint across
   * every serving catalog (`<server-url>/api/v1/graphql`, the server's URL read from the
   * catalogs' bases, or serverUrl). Content's path: serverUrl, the CA, the service proxy. A
   * GraphQL answer is returned, errors included (`errors`, `data` null when refused); a server
   * that answers anything else throws GraphqlRequestError.
   */
  async graphql(query: string, opts: GraphqlQueryOptions = {}): Promise<GraphqlAnswer> {
    const gql = await import('./graphql-query.js');
    const { serverUrl } = this.fetchOptions;
    let url: string | undefined;
    if (opts.catalog !== undefined) {
      const c = await this.getCatalog(opts.catalog, opts.signal);
      if (!c) throw new CatalogNotFoundError(opts.catalog);
      url = isServingHttp(c) ? gql.catalogEndpoint(c, serverUrl) : undefined;
      if (url === undefined)
        throw new CatalogNotServingError(
          opts.catalog,
          findCondition(c.status?.conditions, TYPE_SERVING),
        );
    } else {
      const catalogs = serverUrl === undefined ? await this.listCatalogs(opts.signal) : [];
      url = gql.serverEndpoint(catalogs, serverUrl);
      if (url === undefined)
        throw new gql.GraphqlRequestError(
          "no ClusterCatalog has a status.urls.base yet, so the content server is not known: wait for a catalog to be Serving, or give its URL (kubectl catalog --server-url; the client library's serverUrl option)",
        );
    }
    return gql.sendGraphql(url, query, { ...opts, fetch: this.fetchOptions.fetch ?? fetch });
  }

  /**
   * The whole blob of an object: spec.content when it is whole; else (a lean object's partial
   * content, or content omitted for size) the blob fetched from the catalog's content server and
   * verified against the content-hash annotation (ContentOmittedError when it cannot be read,
   * ContentHashMismatchError when it is not that blob).
   */
  async blobOf(obj: CatalogMetadata, signal?: AbortSignal): Promise<AnyBlob> {
    const c = contentOf(obj);
    if (c.state === 'full') return c.blob;
    return fetchWholeBlob(obj, c, this.fetchOptions, signal);
  }

  /** The whole blobs of the objects, in order: blobOf, at most fetchConcurrency fetches at once. */
  async blobsOf(objs: readonly CatalogMetadata[], signal?: AbortSignal): Promise<AnyBlob[]> {
    return mapBounded(objs, this.fetchConcurrency, (o) => this.blobOf(o, signal));
  }

  /**
   * The bundles that provide an API (an olm.gvk property equal to gvk), in every catalog (but
   * syncing ones, named in `skipped`) or in `catalog`, in sortProviders' order. The bundles are
   * paged through and only the providers kept while paging (olm.gvk is in a lean bundle's
   * content; a bundle whose content is omitted whole is kept and fetched).
   */
  async providersOf(
    gvk: GVK,
    opts: { catalog?: string; signal?: AbortSignal } = {},
  ): Promise<{ providers: Provider[]; skipped: string[]; failed: CatalogFailure[] }> {
    const { catalog, signal } = opts;
    const list = await this.consistentList(
      { schema: SCHEMA_BUNDLE, ...(catalog !== undefined && { catalog }) },
      {
        skipSyncing: true,
        keep: (o) =>
          o.spec.content === undefined ||
          gvkProviders([o.spec.content as unknown as BundleBlob], gvk).length > 0,
        ...(signal && { signal }),
      },
    );
    const found: Provider[] = [];
    // A catalog whose content cannot be read is left out (failed), the others answered.
    const read = (objs: CatalogMetadata[]) => this.resolverContents(objs, signal);
    const { results, failed } = await perCatalog(list.items, read, signal);
    for (const [o, c] of results) {
      const b = resolverBlob(c);
      if (isBundleBlob(b) && gvkProviders([b], gvk).length > 0)
        found.push({ catalog: o.spec.catalog.name, bundle: b });
    }
    return { providers: sortProviders(found), skipped: list.skipped, failed };
  }

  /**
   * What resolvers read of each object, in order, with no fetch for whole or lean content: a
   * lean object stays PartialContent (its display-only parts left out); only content omitted
   * whole is fetched (bounded as blobsOf) and becomes FullContent.
   */
  async resolverContents(
    objs: readonly CatalogMetadata[],
    signal?: AbortSignal,
  ): Promise<Array<FullContent | PartialContent>> {
    return mapBounded(objs, this.fetchConcurrency, async (o) => {
      const c = contentOf(o);
      if (c.state !== 'absent') return c;
      return { state: 'full', blob: await fetchWholeBlob(o, c, this.fetchOptions, signal) };
    });
  }
}

/** Where a client reads CatalogMetadata: the view found, its resources, its status rule. */
interface MetadataResources {
  choice: ObjectViewChoice;
  /** Whether a status says its objects are not yet the revision contentHash names (served). */
  objectsLag: (status: ClusterCatalog['status']) => boolean;
  full: Resource<CatalogMetadata>;
  metadataOnly: Resource<ObjectMetadata>;
}

function sameRevisions(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
