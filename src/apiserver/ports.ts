// The served view's contract (SPEC §2.3, docs/served.md): between its front (the HTTPS listener,
// requestheader authentication, delegated authorization, request parsing: src/apiserver/front/ and
// src/apiserver/setup/) and its resource handlers (src/apiserver/: discovery, OpenAPI, get, list,
// watch, dry-run patch), and the port through which both read the catalogs and their revisions.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RevisionLease } from '../server/index.js';

/** The served API group: the ClusterCatalog CRD owns olm.operatorframework.io/v1, and one group-version has one backend. */
export { SERVED_GROUP } from '../api/v1/group.js';
export { VERSION as SERVED_VERSION, SERVED_API_VERSION } from '../api/v1/group.js';

/** Who asks, as the front proxy's request headers name them (requestheader authentication). */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** What a request asks, read from its path, method and query as the apiserver's RequestInfoResolver reads them. */
export interface RequestInfo {
  isResourceRequest: boolean;
  /** The URL path, without the query. */
  path: string;
  /**
   * Resource requests: get, list, watch, create, update, patch, delete, deletecollection (a GET of
   * a collection with watch=true or watch=1 is watch). Non-resource requests: the lower-cased HTTP method.
   */
  verb: string;
  /** Empty for non-resource requests. */
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

/** One ClusterCatalog as the served view sees it. */
export interface ViewCatalog {
  name: string;
  uid: string;
  /** RFC 3339, the ClusterCatalog's metadata.creationTimestamp. */
  creationTimestamp: string;
  priority: number;
  /**
   * The revision the ClusterCatalog's status names (the revision key of status.urls.base, as the
   * content store's acquire takes it); undefined when it names none or availabilityMode is
   * Unavailable (the catalog has no objects then).
   */
  revision: string | undefined;
  /** The catalog's content profile (controller flag, then its annotation): none serves no objects. */
  profile: 'full' | 'lean' | 'none';
}

/** Where the served view reads catalogs and revisions (implemented in src/apiserver/setup/). */
export interface ViewSource {
  /** Every ClusterCatalog this replica's informer holds, sorted by name. */
  catalogs(): ViewCatalog[];
  /** A lease of a revision this replica holds (the content store's acquire), undefined when it holds none. */
  acquire(catalog: string, revision: string): RevisionLease | undefined;
  /** Waits, bounded as the content server's revision wait, until this replica holds the revision: false when it did not in time or the signal aborted. */
  waitFor(catalog: string, revision: string, signal?: AbortSignal): Promise<boolean>;
  /** Calls the listener (no arguments; calls may be coalesced) after catalogs() or the held revisions changed. Returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** The served API, after authentication and authorization (every path: discovery, OpenAPI, resources). */
export interface ServedApi {
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    user: UserInfo,
  ): Promise<void>;
  /**
   * Ends open watches (shutdown); resolves once each has finished its response (its last
   * bookmark, then the end of the stream), so the listener can close connections without cutting one.
   */
  close(): Promise<void>;
}
