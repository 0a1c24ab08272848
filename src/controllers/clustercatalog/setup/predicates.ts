// Which ClusterCatalog updates need a reconcile. Its own status writes come back as watch
// events; reconciling on them would bypass the retry backoff after a failure and cost a
// no-op reconcile after every sync. What matters: the spec (generation), deletion,
// annotations (a user's request to resync now), and the metadata the controller keeps (the
// metadata.name label, the finalizer).
import type { ClusterCatalog } from '../../../api/v1/index.js';
import { LABEL_CATALOG, LABEL_METADATA_NAME } from '../../../api/v1/index.js';
import { metadataFingerprint } from '../../../sync/index.js';

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

/**
 * Why an update makes the catalog's attempt in flight moot (its spec changed: the attempt pulls
 * what is no longer wanted; it is being deleted), or undefined: then the attempt goes on.
 */
export function attemptMootBecause(old: ClusterCatalog, obj: ClusterCatalog): string | undefined {
  if (!old.metadata.deletionTimestamp && obj.metadata.deletionTimestamp) return 'being deleted';
  if (old.metadata.generation !== obj.metadata.generation) return 'spec changed';
  return undefined;
}

/** The metadata of a CatalogMetadata as the apiserver's metadata-only watch returns it. */
export interface CatalogMetadataMeta {
  name: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{ name: string; controller?: boolean }>;
  managedFields?: Array<{ manager?: string; time?: string }>;
}

/**
 * What the drift watch keeps of a CatalogMetadata, one per object of every catalog (tens of
 * thousands): a few short strings, about 200 bytes each, instead of the object's metadata
 * (about 730 bytes even without managedFields), so the store grows little with the catalog.
 */
export interface CatalogMetadataRef {
  metadata: { name: string; resourceVersion?: string };
  /** Its controller owner, else its catalog label (an orphan). */
  catalog?: string;
  /** Changes with the spec (an edit by hand of the content). */
  generation?: number;
  /** metadataFingerprint of labels and annotations (src/sync). */
  fingerprint: string;
  /**
   * The latest write was the controller's own (its field manager, with a later managedFields
   * time than any other manager's): not drift.
   */
  writtenByController: boolean;
}

/** The ref of an object; `fieldManager` is the controller's, to tell its writes from others'. */
export function catalogMetadataRef(
  meta: CatalogMetadataMeta,
  fieldManager: string,
): CatalogMetadataRef {
  const owner = meta.ownerReferences?.find((r) => r.controller);
  const catalog = owner?.name ?? meta.labels?.[LABEL_CATALOG];
  // managedFields times have a resolution of one second: another manager's write in the same
  // second as the controller's is someone else's (drift), else a hand edit made right after a
  // sync would be taken for the controller's own write and never restored.
  let ours: string | undefined;
  let others: string | undefined;
  for (const m of meta.managedFields ?? []) {
    const time = m.time ?? '';
    if (m.manager === fieldManager) ours = ours === undefined || time > ours ? time : ours;
    else others = others === undefined || time > others ? time : others;
  }
  const writtenByController = ours !== undefined && (others === undefined || ours > others);
  return {
    metadata: {
      name: meta.name,
      ...(meta.resourceVersion !== undefined && { resourceVersion: meta.resourceVersion }),
    },
    ...(catalog !== undefined && { catalog }),
    ...(meta.generation !== undefined && { generation: meta.generation }),
    fingerprint: metadataFingerprint(meta),
    writtenByController,
  };
}

/** The catalog an object belongs to (the label is the catalog name for valid label values). */
export function owningCatalog(obj: CatalogMetadataRef): string | undefined {
  return obj.catalog;
}

/**
 * An object the controller did not create itself: someone else's object with a catalog's
 * labels (an orphan to remove, or an object to take over). Its own creations during a sync
 * would otherwise queue a second, no-op reconcile of the catalog right after every sync.
 */
export function catalogMetadataAdded(obj: CatalogMetadataRef): boolean {
  return !obj.writtenByController;
}

/**
 * A change by someone else that may be drift: spec (generation), labels or the content-hash
 * annotation. The controller's own writes are not: reacting to them would bypass the retry
 * backoff of a failed sync (its rollback writes) and add a reconcile after every sync.
 */
export function catalogMetadataChanged(old: CatalogMetadataRef, obj: CatalogMetadataRef): boolean {
  if (obj.writtenByController) return false;
  return (
    old.generation !== obj.generation ||
    old.fingerprint !== obj.fingerprint ||
    old.catalog !== obj.catalog
  );
}

/**
 * A deletion that may be drift: not one the catalog's own sync made (`deletedBySync`: the sync
 * memo's record of the names it deleted). Reacting to a sync's own deletions would void its
 * memo and queue a full reconcile, a LIST and a parse of the catalog, after every sync that
 * deletes objects.
 */
export function catalogMetadataDeleted(
  deletedBySync: (catalog: string | undefined, name: string, event: object) => boolean,
): (obj: CatalogMetadataRef) => boolean {
  return (obj) => !deletedBySync(obj.catalog, obj.metadata.name, obj);
}
