// CatalogMetadata: one cluster-scoped object per FBC blob (SPEC §2.2). The schema below is the
// source of truth: the CRD is generated from it and the spec types derive from it.
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { API_VERSION } from './group.js';
import { FreeFormObject } from './schema.js';

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

export const CatalogRefSchema = Type.Object(
  {
    name: Type.String({
      description: 'name is the name of the ClusterCatalog the blob belongs to.',
      minLength: 1,
      maxLength: 253,
    }),
  },
  { description: 'catalog names the ClusterCatalog that owns this object.' },
);

export const ContentOmittedSchema = Type.Object(
  {
    bytes: Type.Integer({
      description:
        'bytes is the size of the canonical (sorted keys, compact) JSON form of the blob.',
      format: 'int64',
      minimum: 0,
    }),
    url: Type.String({
      description:
        'url is where the blob is served over HTTP (the /api/v1/metas endpoint of the catalog).',
      minLength: 1,
    }),
  },
  {
    description:
      "contentOmitted is set instead of content when the object would exceed the controller's --max-object-bytes: the blob is then only served over HTTP.",
  },
);

export const CatalogMetadataSpecSchema = Type.Object(
  {
    catalog: CatalogRefSchema,
    schema: Type.String({
      description:
        'schema is the blob\'s "schema" field, e.g. olm.package, olm.channel, olm.bundle.',
      minLength: 1,
    }),
    package: Type.Optional(
      Type.String({
        description: 'package is the blob\'s "package" field, when it has one (exact value).',
      }),
    ),
    name: Type.Optional(
      Type.String({
        description: 'name is the blob\'s "name" field, when it has one (exact value).',
      }),
    ),
    content: Type.Optional(
      FreeFormObject({
        description:
          'content is the FBC blob, as a JSON object. Absent when contentOmitted is set.',
      }),
    ),
    contentOmitted: Type.Optional(ContentOmittedSchema),
  },
  {
    description:
      'spec is the identity of the blob (catalog, schema, package, name) and its content.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.content) != has(self.contentOmitted)',
        message: 'exactly one of content and contentOmitted must be set',
      },
    ],
  },
);

export type CatalogRef = Static<typeof CatalogRefSchema>;
export type ContentOmitted = Static<typeof ContentOmittedSchema>;
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
