// The one rule of what counts as drift: whether an existing CatalogMetadata already is what the
// desired object would write. The plan (planSync), the spooling of writes (planCatalogSync) and
// the listing of existing objects (the writer's toExisting) all read it from here; a change of
// the rule (e.g. judging drift by content rather than by field ownership) edits this file only.
import type { ExistingObject, Fingerprint } from './plan.js';

/** The managedFields entries the rule reads. */
export interface ManagedFieldsEntry {
  manager?: string;
  fieldsV1?: Record<string, unknown>;
}

/**
 * Today's rule: an object is up to date when it is not being deleted, is owned by the catalog,
 * has the desired fingerprint (content hash, labels, omission), and no field manager other than
 * the controller's owns fields of its spec (a hand edit by kubectl edit, patch or apply, which
 * the next write takes back).
 */
export function isUpToDate(want: Fingerprint, have: ExistingObject, ownerUid: string): boolean {
  return (
    !have.deleting &&
    !have.specEditedByOthers &&
    have.ownerUid === ownerUid &&
    have.fingerprint === want
  );
}

/**
 * The part of the rule read from a listed object's managedFields, reduced to a flag so that the
 * tens of thousands of listed objects do not keep their managedFields.
 */
export function specEditedByOthers(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  fieldManager: string,
): boolean {
  return (managedFields ?? []).some(
    (m) => m.manager !== fieldManager && m.fieldsV1 !== undefined && 'f:spec' in m.fieldsV1,
  );
}
