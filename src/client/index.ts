// The client library (SPEC §5): typed, label-selected reads of CatalogMetadata, the
// consistent-list protocol, the label-value encoding, typed FBC blobs and pure helpers
// (channel heads, upgrade graphs, API providers). Documented in docs/client.md.
export * from './client.js';
export * from './content.js';
export { fetchTrusting, readCertificateAuthority, untrustedReason } from './trust.js';
export * from './query.js';
export * from './fbc-types.js';
export * from './graph.js';
export * from './semver.js';
export { labelValue, objectName, isValidLabelValue } from '../api/v1/index.js';
export type { BlobIdentity } from '../api/v1/index.js';
export * from './upgrades.js';
export * from './packages.js';
export * from './details.js';
