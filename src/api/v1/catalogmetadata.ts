// CatalogMetadata: one cluster-scoped object per FBC blob (SPEC §2.2). The spec types derive from
// the schema in catalogmetadata.schema.ts, the source of truth the CRD is generated from.
import type { Static } from '@sinclair/typebox';
import type {
  CatalogMetadataSpecSchema,
  CatalogRefSchema,
  ContentOmittedSchema,
  ContentPartSchema,
} from './catalogmetadata.schema.js';
import type { API_VERSION } from './group.js';

export const CATALOG_METADATA_KIND = 'CatalogMetadata';
export const CATALOG_METADATA_LIST_KIND = 'CatalogMetadataList';
export const CATALOG_METADATA_PLURAL = 'catalogmetadata';
export const CATALOG_METADATA_SINGULAR = 'catalogmetadata';
/** `kubectl get cmeta`; `cm` would clash with configmaps. */
export const CATALOG_METADATA_SHORT_NAMES = ['cmeta'] as const;

/** Labels on every CatalogMetadata; plain keys so that `-l package=foo` works. */
export const LABEL_CATALOG = 'catalog';
export const LABEL_SCHEMA = 'schema';
export const LABEL_PACKAGE = 'package';
export const LABEL_NAME = 'name';
export const LABEL_PACKAGE_OR_NAME = 'packageOrName';
/** The labels the controller sets and owns; others' labels on an object are not its concern. */
export const CATALOG_METADATA_LABELS: readonly string[] = [
  LABEL_CATALOG,
  LABEL_SCHEMA,
  LABEL_PACKAGE,
  LABEL_NAME,
  LABEL_PACKAGE_OR_NAME,
];

/**
 * The spec fields the apiserver filters by (CRD selectableFields, KEP-4358): a field selector
 * takes the exact value, also one whose label is hash-encoded (longer than 63 characters or with
 * characters a label may not hold). Field names as `--field-selector` writes them.
 */
export const FIELD_CATALOG = 'spec.catalog.name';
export const FIELD_SCHEMA = 'spec.schema';
export const FIELD_PACKAGE = 'spec.package';
export const FIELD_NAME = 'spec.name';
export const CATALOG_METADATA_SELECTABLE_FIELDS: readonly string[] = [
  FIELD_CATALOG,
  FIELD_SCHEMA,
  FIELD_PACKAGE,
  FIELD_NAME,
];

/** sha256 of the canonical blob, `sha256:<hex>`; the sync compares it to skip unchanged objects. */
export const ANNOTATION_CONTENT_HASH = 'olm.operatorframework.io/content-hash';
/**
 * Set on objects that carry spec.contentOmitted, saying why: the object would pass the
 * controller's --max-object-bytes, or the apiserver refused it whole as too large (etcd's
 * request limit, below a raised --max-object-bytes).
 */
export const ANNOTATION_CONTENT_OMITTED = 'olm.operatorframework.io/content-omitted';
export const OMITTED_MAX_OBJECT_BYTES = 'max-object-bytes';
export const OMITTED_APISERVER_LIMIT = 'apiserver-limit';
/**
 * The lean content profile left display-only parts out of spec.content (the package icon, the
 * olm.csv.metadata and olm.bundle.object properties); spec.contentOmitted.parts lists them.
 */
export const OMITTED_LEAN = 'lean';

/**
 * The content profiles (SPEC §2.2): objects with the whole blob, objects without its display-only
 * parts, or no objects at all (the catalog is served over HTTP only, as upstream catalogd does).
 */
export const CONTENT_PROFILE_FULL = 'full';
export const CONTENT_PROFILE_LEAN = 'lean';
export const CONTENT_PROFILE_NONE = 'none';
export const CONTENT_PROFILES = [
  CONTENT_PROFILE_FULL,
  CONTENT_PROFILE_LEAN,
  CONTENT_PROFILE_NONE,
] as const;
export type ContentProfile = (typeof CONTENT_PROFILES)[number];

/** Whether a string names a content profile ("full", "lean" or "none"). */
export function isContentProfile(value: string): value is ContentProfile {
  return (CONTENT_PROFILES as readonly string[]).includes(value);
}

/** The profiles' names for a message: `full, lean or none` (each through `name`). */
export function contentProfileChoices(name: (p: ContentProfile) => string = (p) => p): string {
  const names = CONTENT_PROFILES.map(name);
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
/**
 * On a ClusterCatalog: its content profile ("full", "lean" or "none"), overriding the controller's
 * --content-profile for that catalog.
 */
export const ANNOTATION_CONTENT_PROFILE = 'olm.operatorframework.io/content-profile';
/** contentOmitted.parts paths the lean profile writes. */
export const LEAN_PART_ICON = 'icon';
export const LEAN_OMITTED_PROPERTIES: readonly string[] = ['olm.csv.metadata', 'olm.bundle.object'];
export const leanPropertyPart = (type: string): string => `properties[type=${type}]`;

export type CatalogRef = Static<typeof CatalogRefSchema>;
export type ContentOmitted = Static<typeof ContentOmittedSchema>;
export type ContentPart = Static<typeof ContentPartSchema>;
export type CatalogMetadataSpec = Static<typeof CatalogMetadataSpecSchema>;

export const CATALOG_METADATA_DESCRIPTION =
  'CatalogMetadata is one blob of a ClusterCatalog\'s File-Based Catalog, labelled with catalog, schema, package, name and packageOrName so that label selectors answer "what is in package foo". Managed by the controller: do not edit.';

/** An owner reference, as the apiserver stores it (metadata is not part of the CRD schema). */
export interface OwnerReference {
  /** API version of the owner, e.g. olm.operatorframework.io/v1. */
  apiVersion: string;
  /** Kind of the owner, e.g. ClusterCatalog. */
  kind: string;
  /** Name of the owner. */
  name: string;
  /** UID of the owner: a recreated owner with the same name does not own the object. */
  uid: string;
  /** True for the managing controller's reference. */
  controller?: boolean;
  /** True: foreground deletion of the owner waits for this object. */
  blockOwnerDeletion?: boolean;
}

/** The parts of metav1.ObjectMeta this project reads and writes. */
export interface ObjectMeta {
  /** Object name (cluster-scoped: unique per kind). */
  name: string;
  /** Set by the apiserver; identifies this incarnation of the object. */
  uid?: string;
  /** Set by the apiserver; changes on every write (optimistic concurrency). */
  resourceVersion?: string;
  /** Set by the apiserver; increments on every spec change. */
  generation?: number;
  /** Set by the apiserver, RFC 3339. */
  creationTimestamp?: string;
  /** Set when deletion was requested and finalizers are pending, RFC 3339. */
  deletionTimestamp?: string;
  /** Label key/values (selectable). */
  labels?: Record<string, string>;
  /** Annotation key/values (not selectable). */
  annotations?: Record<string, string>;
  /** Owners; the garbage collector deletes the object when its controller owner is gone. */
  ownerReferences?: OwnerReference[];
  /** Keys that block deletion until the holder removes them. */
  finalizers?: string[];
}

export interface CatalogMetadata {
  apiVersion: typeof API_VERSION;
  kind: typeof CATALOG_METADATA_KIND;
  metadata: ObjectMeta;
  spec: CatalogMetadataSpec;
}
