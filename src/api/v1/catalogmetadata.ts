// CatalogMetadata: one cluster-scoped object per FBC blob (SPEC §2.2).
import { API_VERSION } from './group.js';

export const CATALOG_METADATA_KIND = 'CatalogMetadata';
export const CATALOG_METADATA_PLURAL = 'catalogmetadata';

/** Labels on every CatalogMetadata; plain keys so that `-l package=foo` works. */
export const LABEL_CATALOG = 'catalog';
export const LABEL_SCHEMA = 'schema';
export const LABEL_PACKAGE = 'package';
export const LABEL_NAME = 'name';
export const LABEL_PACKAGE_OR_NAME = 'packageOrName';

/** sha256 of the canonical blob, `sha256:<hex>`; the sync compares it to skip unchanged objects. */
export const ANNOTATION_CONTENT_HASH = 'olm.operatorframework.io/content-hash';

export interface CatalogRef {
  /** Name of the owning ClusterCatalog. */
  name: string;
}

/** Set instead of `content` when the object would be larger than --max-object-bytes. */
export interface ContentOmitted {
  /** Size in bytes of the canonical blob. */
  bytes: number;
  /** Where the blob is served over HTTP (SPEC §4). */
  url: string;
}

export interface CatalogMetadataSpec {
  catalog: CatalogRef;
  schema: string;
  package?: string;
  name?: string;
  /** The FBC blob as a JSON object. Absent when contentOmitted is set. */
  content?: Record<string, unknown>;
  contentOmitted?: ContentOmitted;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface CatalogMetadata {
  apiVersion: typeof API_VERSION;
  kind: typeof CATALOG_METADATA_KIND;
  metadata: ObjectMeta;
  spec: CatalogMetadataSpec;
}
