// ClusterCatalog (SPEC §2.1): drop-in compatible with upstream catalogd's v1 schema, plus the
// status fields of the consistent-list protocol (contentHash, objectCount, syncingTo).
// The types derive from the schemas in clustercatalog.schema.ts, the source of truth the CRD is
// generated from.
import type { Static } from '@sinclair/typebox';
import type { ObjectMeta } from './catalogmetadata.js';
import type {
  CatalogSourceSchema,
  ClusterCatalogSpecSchema,
  ClusterCatalogStatusSchema,
  ClusterCatalogURLsSchema,
  ImageSourceSchema,
  ResolvedCatalogSourceSchema,
  ResolvedImageSourceSchema,
} from './clustercatalog.schema.js';
import type { API_VERSION } from './group.js';

export const CLUSTER_CATALOG_KIND = 'ClusterCatalog';
export const CLUSTER_CATALOG_LIST_KIND = 'ClusterCatalogList';
export const CLUSTER_CATALOG_PLURAL = 'clustercatalogs';
export const CLUSTER_CATALOG_SINGULAR = 'clustercatalog';
/** `kubectl get cc`; no built-in resource uses it (checked against `kubectl api-resources`). */
export const CLUSTER_CATALOG_SHORT_NAMES = ['cc'] as const;

/**
 * Kept on every ClusterCatalog, value = metadata.name, so that clients can select catalogs by
 * name with a label selector (upstream sets it with a webhook; our controller sets it on reconcile).
 */
export const LABEL_METADATA_NAME = 'olm.operatorframework.io/metadata.name';

/** Held while the catalog's served content exists; removed after the content is deleted. */
export const FINALIZER_DELETE_SERVER_CACHE = 'olm.operatorframework.io/delete-server-cache';

export const SOURCE_TYPE_IMAGE = 'Image';
export const SOURCE_TYPES = [SOURCE_TYPE_IMAGE] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const AVAILABILITY_MODE_AVAILABLE = 'Available';
export const AVAILABILITY_MODE_UNAVAILABLE = 'Unavailable';
/** Upstream's order (Unavailable first), so the generated enum matches upstream's CRD. */
export const AVAILABILITY_MODES = [
  AVAILABILITY_MODE_UNAVAILABLE,
  AVAILABILITY_MODE_AVAILABLE,
] as const;
export type AvailabilityMode = (typeof AVAILABILITY_MODES)[number];

/** `sha256:` and 64 lowercase hex digits: the form of contentHash and syncingTo. */
export const CONTENT_HASH_PATTERN = '^sha256:[a-f0-9]{64}$';
/** syncingTo: a content hash, or empty (not syncing; same meaning as absent). */
export const SYNCING_TO_PATTERN = '^(sha256:[a-f0-9]{64})?$';

export type ImageSource = Static<typeof ImageSourceSchema>;
export type CatalogSource = Static<typeof CatalogSourceSchema>;
export type ClusterCatalogSpec = Static<typeof ClusterCatalogSpecSchema>;
export type ResolvedImageSource = Static<typeof ResolvedImageSourceSchema>;
export type ResolvedCatalogSource = Static<typeof ResolvedCatalogSourceSchema>;
export type ClusterCatalogURLs = Static<typeof ClusterCatalogURLsSchema>;
export type ClusterCatalogStatus = Static<typeof ClusterCatalogStatusSchema>;

export const CLUSTER_CATALOG_DESCRIPTION =
  'ClusterCatalog makes the content of a File-Based Catalog (FBC) image available on the cluster: served over HTTP and as one CatalogMetadata object per blob.';

/** A ClusterCatalog as read from the apiserver. */
export interface ClusterCatalog {
  apiVersion: typeof API_VERSION;
  kind: typeof CLUSTER_CATALOG_KIND;
  metadata: ObjectMeta;
  spec: ClusterCatalogSpec;
  status?: ClusterCatalogStatus;
}
