// The client library (SPEC §5): typed, label-selected reads of CatalogMetadata, the
// consistent-list protocol, the label-value encoding, typed FBC blobs, pure helpers (channel
// heads, upgrade graphs, API providers) and the answers the plugin and the console give
// (package rows, a package's view, which catalog holds a package). Documented in docs/client.md.
export * from './client.js';
export type * from './client-types.js';
export * from './content.js';
export { fetchTrusting, readCertificateAuthority, untrustedReason } from './trust.js';
export * from './query.js';
// The object view's choice and error (their module loads on a client's first CatalogMetadata read).
export type { ObjectViewChoice } from './object-view.js';
export type { ObjectView } from '../api/v1/group.js';
export * from '../answers/fbc-types.js';
export * from '../answers/graph.js';
export * from '../answers/semver.js';
export { labelValue, objectName, isValidLabelValue } from '../api/v1/identity.js';
export * from '../answers/upgrades.js';
export * from '../answers/packages.js';
export * from '../answers/details.js';
export * from './answers.js';
// The API types the client's methods take and return (types only: nothing more is loaded).
export type { BlobIdentity } from '../api/v1/identity.js';
export type {
  CatalogMetadata,
  CatalogMetadataSpec,
  CatalogRef,
  ContentOmitted,
  ContentPart,
  ObjectMeta,
  OwnerReference,
} from '../api/v1/catalogmetadata.js';
export type {
  CatalogSource,
  ClusterCatalog,
  ClusterCatalogSpec,
  ClusterCatalogStatus,
  ClusterCatalogURLs,
  ImageSource,
  ResolvedCatalogSource,
  ResolvedImageSource,
} from '../api/v1/clustercatalog.js';
export type { Condition } from '../api/v1/conditions.js';
export type { KubeClient } from '../kube/client.js';
export type { KubeClientOptions } from '../kube/request-options.js';
export type { ObjectMetadata } from '../kube/resource.js';
// CatalogClient.graphql's options and answer (its module loads on the first query only).
export type { GraphqlAnswer, GraphqlErrorItem, GraphqlQueryOptions } from './graphql-query.js';
