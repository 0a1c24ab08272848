// HTTP content server (SPEC §4, docs/server.md): per-revision on-disk store and node:http handler.
export { ContentStore, DEFAULT_MAX_GRACED_REVISIONS, DEFAULT_REVISION_GRACE_MS } from './store.js';
export type { ContentStoreOptions, RevisionInfo, RevisionLease, StoredRevision } from './store.js';
export type { ContentBlob } from './revision-build.js';
export type { IoCounters, Selection } from './revision.js';
export {
  createContentHandler,
  DEFAULT_PATH_PREFIX,
  REVISION_RETRY_AFTER_SECONDS,
} from './handler.js';
export type {
  ContentHandlerOptions,
  LeasedEndpoint,
  LeaseSource,
  ServerEndpoint,
  RequestHandler,
  ServedResponse,
} from './handler.js';
export type { Endpoint } from './route.js';
export { blobUrl, catalogBaseUrl, DEFAULT_SERVER_LIMITS, startContentServer } from './server.js';
export type { ContentServer, ContentServerOptions, ServerLimits } from './server.js';
export { normalizeMetasQuery, parseMetasQuery } from './query.js';
export {
  acceptsGzip,
  etagHeader,
  httpDate,
  isNotModified,
  requestIsNotModified,
} from './http-cache.js';
export type { MetasQuery } from './query.js';
export * from './publisher.js';
export { DEFAULT_MAX_WAITING, DEFAULT_REVISION_WAIT_MS, RevisionWaiters } from './revision-wait.js';
export type { RevisionWaitOptions, RevisionWaitOutcome } from './revision-wait.js';
export { TlsPairError, loadServingPair, secureContextOptions, TLS_MIN_VERSION } from './tls.js';
export type { ServingPair, TlsFiles } from './tls.js';
export { ServingCertificate } from './tls-reload.js';
export type { CertificateReloadHooks } from './tls-reload.js';
