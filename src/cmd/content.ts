// Wiring of the HTTP content server: the on-disk per-revision store (src/server), its HTTP
// listener, and the ContentPublisher the reconciler uses.
import { revisionBaseUrl } from '../api/v1/index.js';
import { readCatalog } from '../fbc/index.js';
import type { ReplicaContent } from '../controllers/clustercatalog/replicate.js';
import type { ServingPair } from '../server/index.js';
import { ContentStore, blobUrl, catalogBaseUrl, startContentServer } from '../server/index.js';

export interface ContentWiring extends ReplicaContent {
  store: ContentStore;
  /** A new certificate for new connections (HTTPS only; see src/server/tls-reload.ts). */
  setCertificate(pair: ServingPair): void;
  close(): Promise<void>;
}

export async function contentPublisher(opts: {
  dir: string;
  serverUrl: string;
  listen: { host: string; port: number };
  /** HTTPS with this certificate; plain HTTP without. */
  tls?: ServingPair;
}): Promise<ContentWiring> {
  const store = new ContentStore(opts.dir);
  // Unfinished builds from before a restart are deleted; complete revisions are activated again
  // by the content replicator from the catalogs' status.
  await store.loadExisting();
  const server = await startContentServer({
    store,
    ...opts.listen,
    ...(opts.tls && { tls: opts.tls }),
  });
  const base = (catalog: string) => catalogBaseUrl(opts.serverUrl, catalog);
  return {
    store,
    served: (catalog) => store.current(catalog)?.contentHash,
    baseUrl: (catalog, contentHash) => revisionBaseUrl(base(catalog), contentHash),
    blobUrl: (catalog, blob) => blobUrl(base(catalog), blob),
    // Built once per content: the same content under a new digest reuses the revision.
    prepare: async (catalog, contentHash, dir) =>
      void (await store.ensureBuilt(catalog, contentHash, () => readCatalog(dir, { catalog }))),
    publish: async (catalog, revision, dir, lastModified) =>
      void (await store.ensureServed(catalog, revision, lastModified, () =>
        readCatalog(dir, { catalog }),
      )),
    remove: (catalog) => store.remove(catalog),
    setCertificate: (pair) => server.setCertificate(pair),
    async close() {
      await server.close();
      await store.close();
    },
  };
}
