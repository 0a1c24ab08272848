// The options CatalogClient (client.ts) and its methods take, and the consistent list it
// returns. Types only: the client library's entry point loads nothing for them
// (entry-point.test.ts counts its modules).
import type { CatalogMetadata } from '../api/v1/catalogmetadata.js';
import type { ObjectView } from '../api/v1/group.js';
import type { KubeClient } from '../kube/client.js';
import type { KubeClientOptions } from '../kube/request-options.js';
import type { ExponentialBackoffOptions } from '../util/backoff.js';

export interface CatalogClientOptions {
  /** An existing client to share (not closed by close()); otherwise one is made from `kubeconfig`. */
  kube?: KubeClient;
  /** Path of a kubeconfig; default: $KUBECONFIG, ~/.kube/config, else in-cluster. */
  kubeconfig?: string;
  /** Called once per HTTP request to the apiserver (verb, resource, status). */
  onRequest?: KubeClientOptions['onRequest'];
  /** List page size (default 500). */
  pageSize?: number;
  /**
   * Where the catalogs' content server is reached from here (e.g. a port-forward,
   * `http://localhost:8090`): replaces the origin of contentOmitted.url. Default: the URL as is.
   */
  serverUrl?: string;
  /**
   * The HTTP client for blobs on the content server, used for every URL as is (default: global
   * fetch, or one trusting `ca`; URLs under the apiserver's go through its service proxy).
   */
  fetch?: typeof fetch;
  /**
   * PEM CA certificate(s) the content server's certificate is verified against, instead of the
   * system roots (an HTTPS content server with a private CA: docs/server.md, "HTTPS"); ignored
   * with `fetch`. A content URL under the apiserver's (its service proxy) is fetched with the
   * kubeconfig's CA and credentials instead.
   */
  ca?: string | Buffer;
  /** Blobs fetched from the content server at once (default 4). */
  fetchConcurrency?: number;
  /**
   * Where CatalogMetadata are read: `crd` (olm.operatorframework.io/v1, the CRD mode) or
   * `served` (content.olm.operatorframework.io/v1, the served mode). Default: found from the
   * cluster's discovery documents on the first read (CatalogClient.objectView).
   */
  objectView?: ObjectView;
}

export interface ListMetadataOptions {
  signal?: AbortSignal;
}

export interface ConsistentListOptions {
  signal?: AbortSignal;
  /** Give up after this long (default 30 s) when the catalog keeps changing. */
  timeoutMs?: number;
  /** First retry delay (default 200 ms), doubled up to 2 s. */
  backoffMs?: number;
  /** Keep only the objects this accepts (applied while paging, so the rest is not held). */
  keep?: (obj: CatalogMetadata) => boolean;
  /**
   * For a query across catalogs: leave out catalogs that are syncing (listed in `skipped`)
   * instead of waiting for them. Ignored when the query names a catalog.
   */
  skipSyncing?: boolean;
}

export interface ConsistentList {
  /** The catalog's contentHash, when the query names one catalog. */
  contentHash?: string;
  /** contentHash of every catalog the list covers. */
  revisions: Record<string, string>;
  /** The matching objects, all of the revisions above. */
  items: CatalogMetadata[];
  /** Lists taken before one was consistent (0: the first one was). */
  retries: number;
  /** Catalogs left out because they were syncing (skipSyncing). */
  skipped: string[];
}

export type MetadataEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchCatalogsOptions {
  /** The delays between watches (default 500 ms doubling to 30 s, 20% jitter). */
  backoff?: ExponentialBackoffOptions;
  /** Waits ms, resolving early (never rejecting) on abort; tests inject one. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}
