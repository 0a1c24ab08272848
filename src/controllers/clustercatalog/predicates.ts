// Which ClusterCatalog updates need a reconcile. Its own status writes come back as watch
// events; reconciling on them would bypass the retry backoff after a failure and cost a
// no-op reconcile after every sync. What matters: the spec (generation), deletion,
// annotations (a user's request to resync now), and the metadata the controller keeps (the
// metadata.name label, the finalizer).
import type { ClusterCatalog } from '../../api/v1/index.js';
import { ANNOTATION_CONTENT_HASH, LABEL_CATALOG, LABEL_METADATA_NAME } from '../../api/v1/index.js';

export function catalogNeedsReconcile(old: ClusterCatalog, obj: ClusterCatalog): boolean {
  const a = old.metadata;
  const b = obj.metadata;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    // Users annotate a catalog to ask for a resync now; the controller never writes annotations.
    JSON.stringify(a.annotations ?? {}) !== JSON.stringify(b.annotations ?? {}) ||
    a.labels?.[LABEL_METADATA_NAME] !== b.labels?.[LABEL_METADATA_NAME] ||
    JSON.stringify(a.finalizers ?? []) !== JSON.stringify(b.finalizers ?? [])
  );
}

/** The slice of a CatalogMetadata the drift watch keeps (metadata only). */
export interface CatalogMetadataRef {
  metadata: {
    name: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ name: string; controller?: boolean }>;
  };
  /** The latest write was the controller's own (its field manager): not drift. */
  writtenByController?: boolean;
}

/**
 * The catalog an object belongs to: its controller owner, else its catalog label (an orphan;
 * the label is the catalog name itself for names that are valid label values).
 */
export function owningCatalog(obj: CatalogMetadataRef): string | undefined {
  const owner = obj.metadata.ownerReferences?.find((r) => r.controller);
  return owner?.name ?? obj.metadata.labels?.[LABEL_CATALOG];
}

/**
 * A change by someone else that may be drift: spec (generation), labels or the content-hash
 * annotation. The controller's own writes are not: reacting to them would bypass the retry
 * backoff of a failed sync (its rollback writes) and add a reconcile after every sync.
 */
export function catalogMetadataChanged(old: CatalogMetadataRef, obj: CatalogMetadataRef): boolean {
  if (obj.writtenByController) return false;
  const a = old.metadata;
  const b = obj.metadata;
  return (
    a.generation !== b.generation ||
    JSON.stringify(a.labels ?? {}) !== JSON.stringify(b.labels ?? {}) ||
    a.annotations?.[ANNOTATION_CONTENT_HASH] !== b.annotations?.[ANNOTATION_CONTENT_HASH] ||
    owningCatalog(old) !== owningCatalog(obj)
  );
}
