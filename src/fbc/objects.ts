// Builds the CatalogMetadata object of a blob (SPEC §2.2). Pure: the controller and
// `catalogd render` both use it, so what render prints is what the controller writes.
import {
  ANNOTATION_CONTENT_HASH,
  ANNOTATION_CONTENT_OMITTED,
  API_VERSION,
  CATALOG_METADATA_KIND,
  CLUSTER_CATALOG_KIND,
  CONTENT_PROFILE_LEAN,
  LABEL_CATALOG,
  LABEL_NAME,
  LABEL_PACKAGE,
  LABEL_PACKAGE_OR_NAME,
  LABEL_SCHEMA,
  OMITTED_LEAN,
  OMITTED_MAX_OBJECT_BYTES,
} from '../api/v1/index.js';
import type {
  CatalogMetadata,
  CatalogMetadataSpec,
  ContentProfile,
  OwnerReference,
  OMITTED_APISERVER_LIMIT,
} from '../api/v1/index.js';
import type { Blob } from './catalog.js';
import { canonicalize } from '../api/v1/index.js';
import { labelValue, objectName } from './identity.js';
import type { BlobIdentity } from './identity.js';
import { leanContent } from './lean.js';

/** The default --max-object-bytes: 1 MiB, below etcd's 1.5 MiB request limit. */
export const DEFAULT_MAX_OBJECT_BYTES = 1 << 20;

export interface ToCatalogMetadataOptions {
  ownerReference?: OwnerReference;
  /** When the serialized object would be larger, spec.content is replaced by spec.contentOmitted. */
  maxObjectBytes?: number;
  /**
   * URL of the blob on the HTTP endpoint; required for blobs that exceed maxObjectBytes and for
   * blobs the lean profile reduces.
   */
  contentUrl?: (blob: Blob) => string;
  /** Omit the content whatever its size: the apiserver refused the whole object as too large. */
  omitContent?: typeof OMITTED_APISERVER_LIMIT;
  /**
   * The content profile (default full). Lean leaves the display-only parts out of content
   * (lean.ts) and records them in spec.contentOmitted.parts; a blob with nothing to leave out
   * gives the same object as in full.
   */
  profile?: ContentProfile;
}

/**
 * The owner reference of a catalog's objects: its ClusterCatalog, as controller (the garbage
 * collector deletes the objects with it). The CRD mode writes it and the served API shows it.
 */
export function ownerReference(catalog: { name: string; uid: string }): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: CLUSTER_CATALOG_KIND,
    name: catalog.name,
    uid: catalog.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Whether an object's content is present but partial (reduced by the lean profile). */
export function hasPartialContent(spec: Pick<CatalogMetadataSpec, 'contentOmitted'>): boolean {
  return spec.contentOmitted?.parts !== undefined;
}

/** The canonical form of each lean object's partial content, as leanContent made it. */
const partialCanonical = new WeakMap<object, string>();

/**
 * The canonical form of an object's spec.content: `blobCanonical` (the blob's), or for a lean
 * object the canonical form of its partial content, as toCatalogMetadata made it.
 */
export function contentCanonical(obj: CatalogMetadata, blobCanonical: string): string {
  const { content } = obj.spec;
  if (content === undefined || !hasPartialContent(obj.spec)) return blobCanonical;
  let canonical = partialCanonical.get(content);
  if (canonical === undefined) {
    canonical = canonicalize(content);
    partialCanonical.set(content, canonical);
  }
  return canonical;
}

/** The labels of a blob's object; values encoded by labelValue. No label for an absent package or name. */
export function catalogMetadataLabels(id: BlobIdentity): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL_CATALOG]: labelValue(id.catalog),
    [LABEL_SCHEMA]: labelValue(id.schema),
  };
  if (id.package !== undefined) labels[LABEL_PACKAGE] = labelValue(id.package);
  if (id.name !== undefined) labels[LABEL_NAME] = labelValue(id.name);
  const packageOrName = id.package ?? id.name;
  if (packageOrName !== undefined) labels[LABEL_PACKAGE_OR_NAME] = labelValue(packageOrName);
  return labels;
}

export function toCatalogMetadata(
  blob: Blob,
  opts: ToCatalogMetadataOptions = {},
): CatalogMetadata {
  const spec: CatalogMetadataSpec = {
    catalog: { name: blob.identity.catalog },
    schema: blob.schema,
  };
  if (blob.package !== undefined) spec.package = blob.package;
  if (blob.name !== undefined) spec.name = blob.name;
  const lean =
    opts.profile === CONTENT_PROFILE_LEAN ? leanContent(blob.schema, blob.content) : undefined;
  spec.content = lean ? lean.content : blob.content;
  if (lean) partialCanonical.set(lean.content, lean.canonical);
  const obj: CatalogMetadata = {
    apiVersion: API_VERSION,
    kind: CATALOG_METADATA_KIND,
    metadata: {
      name: objectName(blob.identity),
      labels: catalogMetadataLabels(blob.identity),
      annotations: { [ANNOTATION_CONTENT_HASH]: blob.hash },
    },
    spec,
  };
  if (opts.ownerReference) obj.metadata.ownerReferences = [{ ...opts.ownerReference }];
  const url = (): string => {
    if (!opts.contentUrl)
      throw new Error(`object ${obj.metadata.name}: content omitted, and no contentUrl was given`);
    return opts.contentUrl(blob);
  };
  if (lean) {
    // The content hash stays the full blob's; contentOmitted says what is missing and where
    // the whole blob is.
    obj.metadata.annotations![ANNOTATION_CONTENT_OMITTED] = OMITTED_LEAN;
    spec.contentOmitted = { bytes: blob.bytes, url: url(), parts: lean.parts };
  }
  let omit: string | undefined = opts.omitContent;
  if (omit === undefined && opts.maxObjectBytes !== undefined) {
    // The object is the (lean) content plus small metadata: its size is the canonical
    // content's size plus the size of the object without content.
    const withoutContent = { ...obj, spec: { ...spec, content: {} } };
    const contentBytes = lean ? Buffer.byteLength(lean.canonical) : blob.bytes;
    const size = contentBytes + Buffer.byteLength(JSON.stringify(withoutContent)) - 2;
    if (size > opts.maxObjectBytes) omit = OMITTED_MAX_OBJECT_BYTES;
  }
  if (omit !== undefined) return withContentOmitted(obj, omit, { bytes: blob.bytes, url: url() });
  return obj;
}

/**
 * The object with spec.content replaced by spec.contentOmitted (`bytes`: the canonical blob's
 * size, `url`: where the HTTP server has it) and the content-omitted annotation saying why. A
 * lean object's partial content and parts go too: the whole blob is omitted.
 */
export function withContentOmitted(
  obj: CatalogMetadata,
  reason: string,
  omitted: { bytes: number; url: string },
): CatalogMetadata {
  const { content: _content, ...spec } = obj.spec;
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      annotations: { ...obj.metadata.annotations, [ANNOTATION_CONTENT_OMITTED]: reason },
    },
    spec: { ...spec, contentOmitted: omitted },
  };
}

/**
 * The object as JSON, with `canonical` (the canonical form of the blob) spliced in as the
 * content rather than serializing the content again: a sync sends tens of megabytes of
 * content, and its canonical form is already at hand (a lean object's partial content: see
 * contentCanonical). Equal, as JSON, to JSON.stringify(obj); only the content's key order may
 * differ (canonical keys are sorted).
 */
export function serializeCatalogMetadata(obj: CatalogMetadata, canonical: string): string {
  const { content, ...spec } = obj.spec;
  if (content === undefined) return JSON.stringify(obj);
  canonical = contentCanonical(obj, canonical);
  // Members in a fixed order with spec last, so the text ends with spec's closing brace and
  // the object's: `…}}`. spec always has members (catalog, schema), so a comma goes before
  // the content.
  const head = JSON.stringify({
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: obj.metadata,
    spec,
  });
  return `${head.slice(0, -2)},"content":${canonical}}}`;
}
