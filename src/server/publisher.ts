// The content publisher the reconcile and the content replicator use (their ContentPublisher
// and ReplicaContent ports): the on-disk per-revision store and its HTTP(S) listener.
import { revisionBaseUrl } from '../api/v1/index.js';
import { readCatalog } from '../fbc/index.js';
import type { Blob } from '../fbc/index.js';
import { holdsRevision } from './handler.js';
import type { LeasedEndpoint, ServerEndpoint } from './handler.js';
import type { RevisionWaitOptions } from './revision-wait.js';
import { RevisionWaiters } from './revision-wait.js';
import { ContentStore } from './store.js';
import { blobUrl, catalogBaseUrl, startContentServer } from './server.js';
import type { ServerLimits } from './server.js';
import type { ServingPair } from './tls.js';

export interface PrepareOptions {
  /**
   * The revision (a contentHash or a revision key) `dir` is known to hold (the same image as the
   * one it was built from): used without a parse when it is stored.
   */
  known?: string | undefined;
  /** Aborts the parse. */
  signal?: AbortSignal | undefined;
}

export interface ContentPublisher {
  store: ContentStore;
  /** The content hash a catalog's current revision serves, if any. */
  served(catalog: string): string | undefined;
  /** The base URL of one revision of a catalog's content (status.urls.base). */
  baseUrl(catalog: string, contentHash: string): string;
  /** The revision-free URL of one blob, for objects whose content is omitted. */
  blobUrl(catalog: string, blob: Pick<Blob, 'schema' | 'package' | 'name'>): string;
  /** See the reconcile's port (src/controllers/clustercatalog/ports.ts). */
  prepare(catalog: string, dir: string, opts?: PrepareOptions): Promise<string>;
  /** Serves `revision` (a contentHash, or a revision key read from status.urls.base). */
  publish(catalog: string, revision: string, dir: string, lastModified: Date): Promise<void>;
  remove(catalog: string): Promise<void>;
  /** A new certificate for new connections (HTTPS only; see src/server/tls-reload.ts). */
  setCertificate(pair: ServingPair): void;
  /**
   * Waits, bounded as the content server's requests wait (--revision-wait), until the store
   * holds `revision` of the catalog: false when it did not in time, or `signal` aborted.
   */
  waitFor(catalog: string, revision: string, signal?: AbortSignal): Promise<boolean>;
  /**
   * Calls `listener` with the catalog's name after a revision of it was published (served) or
   * it was removed: the served API's watches look again. Returns the unsubscribe.
   */
  onChange(listener: (catalog: string) => void): () => void;
  close(): Promise<void>;
}

export async function contentPublisher(opts: {
  dir: string;
  serverUrl: string;
  listen: { host: string; port: number };
  /** HTTPS with this certificate; plain HTTP without. */
  tls?: ServingPair;
  /** Called before a new revision is parsed and built (a burst of work: MemoryReclaim). */
  beforeBuild?: () => void;
  /** Requests for a revision not held yet wait for it (revision-wait.ts); none: never. */
  revisionWait?: RevisionWaitOptions;
  /** The listener's connection cap and timeouts (server.ts; docs/bounds.md). */
  limits?: Partial<ServerLimits>;
  /** Answers `<base>/api/v1/graphql` (src/graphql); none: 404. */
  graphql?: LeasedEndpoint;
  /** Answers `<server-url>/api/v1/graphql` across catalogs (src/graphql); none: 404. */
  serverGraphql?: ServerEndpoint;
}): Promise<ContentPublisher> {
  const store = new ContentStore(opts.dir);
  // Unfinished builds from before a restart are deleted; complete revisions are activated again
  // by the content replicator from the catalogs' status.
  await store.loadExisting();
  const waiters = opts.revisionWait && new RevisionWaiters(opts.revisionWait);
  const server = await startContentServer({
    store,
    ...(waiters && { revisionWaiters: waiters }),
    ...(opts.graphql && { graphql: opts.graphql }),
    ...(opts.serverGraphql && { serverGraphql: opts.serverGraphql }),
    ...opts.listen,
    ...(opts.tls && { tls: opts.tls }),
    limits: opts.limits,
  });
  const base = (catalog: string) => catalogBaseUrl(opts.serverUrl, catalog);
  const listeners = new Set<(catalog: string) => void>();
  const changed = (catalog: string) => {
    for (const listener of [...listeners]) listener(catalog);
  };
  const holds = (catalog: string, revision: string) => holdsRevision(store, catalog, revision);
  return {
    store,
    served: (catalog) => store.current(catalog)?.contentHash,
    baseUrl: (catalog, contentHash) => revisionBaseUrl(base(catalog), contentHash),
    blobUrl: (catalog, blob) => blobUrl(base(catalog), blob),
    prepare: async (catalog, dir, { known, signal } = {}) => {
      const stored = known !== undefined ? await store.storedRevision(catalog, known) : undefined;
      if (stored !== undefined) return stored;
      opts.beforeBuild?.();
      return (await store.buildNewRevision(catalog, readCatalog(dir, { catalog, signal })))
        .contentHash;
    },
    publish: async (catalog, revision, dir, lastModified) => {
      await store.ensureServed(catalog, revision, lastModified, () =>
        readCatalog(dir, { catalog }),
      );
      waiters?.published(catalog);
      changed(catalog);
    },
    remove: async (catalog) => {
      await store.remove(catalog);
      changed(catalog);
    },
    setCertificate: (pair) => server.setCertificate(pair),
    waitFor: async (catalog, revision, signal) => {
      if (holds(catalog, revision)) return true;
      if (!waiters) return false;
      return (await waiters.wait(catalog, () => holds(catalog, revision), signal)) === 'held';
    },
    onChange: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      await server.close();
      await store.close();
    },
  };
}
