// Status conditions of a ClusterCatalog: the metav1.Condition type (its schema is in
// conditions.schema.ts), the condition types and reasons the controller reports (upstream's),
// and pure helpers to read and set them.
import type { Static } from '@sinclair/typebox';
import type { ConditionSchema } from './conditions.schema.js';

/** Serving: whether the catalog's content is served (HTTP and CatalogMetadata objects). */
export const TYPE_SERVING = 'Serving';
/** Progressing: whether the catalog is moving (or ready to move) to its desired state. */
export const TYPE_PROGRESSING = 'Progressing';

/**
 * ObjectsSynced (ours, beside upstream's two): whether the CatalogMetadata objects are the served
 * revision, and how far their sync is. Progressing keeps upstream's meaning (Succeeded once the
 * revision is served; Retrying and Blocked only for errors); the object view's progress is said
 * here. A condition survives upstream's ClusterCatalog CRD, whose conditions take any type.
 */
export const TYPE_OBJECTS_SYNCED = 'ObjectsSynced';

/** Serving=True: the content of status.resolvedSource is served. */
export const REASON_AVAILABLE = 'Available';
/** Serving=False: there is no content to serve yet (or it was lost). */
export const REASON_UNAVAILABLE = 'Unavailable';
/** Serving=False: spec.availabilityMode is Unavailable. */
export const REASON_USER_SPECIFIED_UNAVAILABLE = 'UserSpecifiedUnavailable';
/** Progressing=True: the desired state was reached. */
export const REASON_SUCCEEDED = 'Succeeded';
/** Progressing=True: an error that a later attempt may resolve; the controller retries. */
export const REASON_RETRYING = 'Retrying';
/** Progressing=False: an error that only a change of the spec can resolve. */
export const REASON_BLOCKED = 'Blocked';
/** ObjectsSynced=True: the objects are the served revision (none under the profile none). */
export const REASON_SYNCED = 'Synced';
/** ObjectsSynced=False: the served revision's objects are being built and planned. */
export const REASON_PLANNING = 'Planning';
/** ObjectsSynced=False: the served revision's objects are being written (the journal is set). */
export const REASON_WRITING = 'Writing';
/** ObjectsSynced=False: a write failed (admission refused it, ...); the objects were rolled back. */
export const REASON_ROLLED_BACK = 'RolledBack';
/** ObjectsSynced=False: the objects could not be synced (nor rolled back); retried. */
export const REASON_FAILED = 'Failed';

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

export type Condition = Static<typeof ConditionSchema>;

/**
 * What a caller decides about a condition; the helper derives lastTransitionTime. Unlike
 * metav1.Condition, observedGeneration is required: every condition we write carries it.
 */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> & {
  observedGeneration: number;
};

/** metav1.Time precision: whole seconds, UTC, e.g. `2024-05-01T12:00:00Z`. */
export function formatTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export interface SetConditionResult {
  /** The new list; the input is not modified. */
  conditions: Condition[];
  /** False when the list is unchanged, so that the caller can skip the status write. */
  changed: boolean;
}

/**
 * Sets one condition, as apimachinery's meta.SetStatusCondition: lastTransitionTime becomes `now`
 * only when the status changes (or the condition is new); reason, message and observedGeneration
 * are replaced. Other conditions keep their order.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  now: Date,
): SetConditionResult {
  const list = conditions ?? [];
  const index = list.findIndex((c) => c.type === update.type);
  const existing = index >= 0 ? list[index] : undefined;
  if (!existing) {
    const added: Condition = { ...update, lastTransitionTime: formatTime(now) };
    return { conditions: [...list, added], changed: true };
  }
  const lastTransitionTime =
    existing.status === update.status ? existing.lastTransitionTime : formatTime(now);
  const next: Condition = { ...update, lastTransitionTime };
  const changed =
    existing.status !== next.status ||
    existing.reason !== next.reason ||
    existing.message !== next.message ||
    existing.observedGeneration !== next.observedGeneration ||
    existing.lastTransitionTime !== next.lastTransitionTime;
  if (!changed) return { conditions: [...list], changed: false };
  const copy = [...list];
  copy[index] = next;
  return { conditions: copy, changed: true };
}
