// Pure planning of a sync: compare what the catalog should have (object name → fingerprint)
// with what exists (metadata only) and decide the fewest writes. Holds no content.
import { ANNOTATION_CONTENT_HASH } from '../api/v1/index.js';

/** What one desired object is reduced to while planning (~100 bytes, never content). */
export interface DesiredObject {
  /** The blob's content hash (the object's content-hash annotation). */
  hash: string;
  /** The object's labels, which a hand edit could also have changed. */
  labels: Record<string, string>;
}

/** An existing CatalogMetadata, as listed metadata-only. */
export interface ExistingObject {
  name: string;
  uid: string;
  resourceVersion: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** UID of the controller owner reference, if any. */
  ownerUid?: string;
  deleting: boolean;
  /** Someone other than the controller changed the spec (a hand edit): restore it. */
  specEditedByOthers?: boolean;
}

export interface SyncPlan {
  create: string[];
  /** Objects to replace, with the resourceVersion that makes the update conditional. */
  update: Array<{ name: string; resourceVersion: string }>;
  /** Objects to delete, with the uid that makes the delete conditional. */
  delete: Array<{ name: string; uid: string }>;
  unchanged: number;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  return ak.every((k) => a[k] === b[k]);
}

/** True when the existing object already is what the desired one would write. */
export function isUpToDate(want: DesiredObject, have: ExistingObject, ownerUid: string): boolean {
  return (
    !have.deleting &&
    !have.specEditedByOthers &&
    have.ownerUid === ownerUid &&
    have.annotations[ANNOTATION_CONTENT_HASH] === want.hash &&
    sameLabels(want.labels, have.labels)
  );
}

/**
 * The writes that turn `existing` into `desired`. Create what is missing, update what differs
 * (content hash, labels or owner), delete what the catalog no longer has. Sorted by name, so
 * the same inputs always give the same plan.
 */
export function planSync(
  desired: ReadonlyMap<string, DesiredObject>,
  existing: Iterable<ExistingObject>,
  ownerUid: string,
): SyncPlan {
  const plan: SyncPlan = { create: [], update: [], delete: [], unchanged: 0 };
  const seen = new Set<string>();
  for (const have of existing) {
    seen.add(have.name);
    const want = desired.get(have.name);
    if (!want) {
      if (!have.deleting) plan.delete.push({ name: have.name, uid: have.uid });
    } else if (isUpToDate(want, have, ownerUid)) {
      plan.unchanged++;
    } else {
      plan.update.push({ name: have.name, resourceVersion: have.resourceVersion });
    }
  }
  for (const name of desired.keys()) if (!seen.has(name)) plan.create.push(name);
  plan.create.sort();
  plan.update.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  plan.delete.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return plan;
}

export function planWrites(plan: SyncPlan): number {
  return plan.create.length + plan.update.length + plan.delete.length;
}
