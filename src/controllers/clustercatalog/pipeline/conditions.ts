// The one place that sets ClusterCatalog conditions: every step reports what it did in the
// reconcile state, and these functions map that state (or the error) to upstream's Serving and
// Progressing, in upstream's meanings (Progressing=Succeeded once the revision is served;
// Retrying and Blocked only for errors), and to our ObjectsSynced, which says how far the
// object view is (docs/api.md, "Conditions").
import type {
  ClusterCatalogStatus,
  Condition,
  ConditionUpdate,
  ContentProfile,
} from '../../../api/v1/index.js';
import {
  CONTENT_PROFILE_LEAN,
  CONTENT_PROFILE_NONE,
  REASON_AVAILABLE,
  REASON_FAILED,
  REASON_PLANNING,
  REASON_RETRYING,
  REASON_ROLLED_BACK,
  REASON_SUCCEEDED,
  REASON_SYNCED,
  REASON_UNAVAILABLE,
  REASON_USER_SPECIFIED_UNAVAILABLE,
  REASON_WRITING,
  TYPE_OBJECTS_SYNCED,
  TYPE_PROGRESSING,
  TYPE_SERVING,
  setCondition,
} from '../../../api/v1/index.js';
import { progressingFor } from '../errors.js';
import { EVENT_SYNC_FAILED } from '../ports.js';
import { required } from './state.js';
import type { ReconcileState } from './state.js';

/** A condition as a step decides it; withConditions adds the catalog's generation. */
type StepCondition = Omit<ConditionUpdate, 'observedGeneration'>;

function withConditions(state: ReconcileState, ...updates: StepCondition[]): Condition[] {
  let conditions = state.status.conditions ?? [];
  const now = state.deps.clock.date();
  for (const u of updates) {
    const update = { ...u, observedGeneration: state.generation };
    conditions = setCondition(conditions, update, now).conditions;
  }
  return conditions;
}

function setConditions(state: ReconcileState, ...updates: StepCondition[]): void {
  state.status = { ...state.status, conditions: withConditions(state, ...updates) };
}

/** Serving: the HTTP view (resolvedSource, urls.base) names a revision that is served. */
const SERVING: StepCondition = {
  type: TYPE_SERVING,
  status: 'True',
  reason: REASON_AVAILABLE,
  message: 'serving the content of the resolved source',
};

/**
 * After the publish step: the revision is served over HTTP (Progressing has reached upstream's
 * desired state), its objects are yet to be planned and written.
 */
export function markServed(state: ReconcileState, contentHash: string): void {
  const progressing: StepCondition = {
    type: TYPE_PROGRESSING,
    status: 'True',
    reason: REASON_SUCCEEDED,
    message: `serving content ${contentHash}`,
  };
  // Objects already of this revision (a reconcile after drift, a new digest of the same content)
  // stay Synced while they are checked: a write, if any, says Writing.
  const objects = state.status.conditions?.find((c) => c.type === TYPE_OBJECTS_SYNCED);
  const synced = objects?.status === 'True' && state.status.contentHash === contentHash;
  const planning: StepCondition = {
    type: TYPE_OBJECTS_SYNCED,
    status: 'False',
    reason: REASON_PLANNING,
    message: `planning the objects of content ${contentHash}`,
  };
  setConditions(state, SERVING, progressing, ...(synced ? [] : [planning]));
}

/**
 * While the write step writes objects (the journal and its progress): the revision is served
 * over HTTP already (the publish step ran); ObjectsSynced says how far the objects are.
 */
export function markWriting(state: ReconcileState, done: number, total: number): void {
  setConditions(state, {
    type: TYPE_OBJECTS_SYNCED,
    status: 'False',
    reason: REASON_WRITING,
    message: `writing ${done}/${total} objects`,
  });
}

/** Serving nothing, as the user asked (availabilityMode Unavailable). */
export function markUnavailable(state: ReconcileState): void {
  setConditions(
    state,
    {
      type: TYPE_SERVING,
      status: 'False',
      reason: REASON_USER_SPECIFIED_UNAVAILABLE,
      message: 'availabilityMode is Unavailable: content and CatalogMetadata objects are removed',
    },
    {
      type: TYPE_PROGRESSING,
      status: 'True',
      reason: REASON_SUCCEEDED,
      message: 'catalog is unavailable as requested',
    },
    {
      type: TYPE_OBJECTS_SYNCED,
      status: 'False',
      reason: REASON_USER_SPECIFIED_UNAVAILABLE,
      message: 'availabilityMode is Unavailable: no CatalogMetadata objects',
    },
  );
}

/**
 * `omitted`: the catalog's objects that carry contentOmitted without content after the sync;
 * `profile`: the catalog's content profile, said when it is lean (objects with partial content)
 * or none (no objects).
 */
function describeSync(
  blobs: number,
  contentHash: string,
  omitted: number,
  profile: ContentProfile,
): string {
  if (profile === CONTENT_PROFILE_NONE) {
    return `content ${contentHash}; content profile none: no CatalogMetadata objects (content on the HTTP server only)`;
  }
  const lean =
    profile === CONTENT_PROFILE_LEAN
      ? '; content profile lean: display-only parts are left out of the objects (whole blobs on the HTTP server)'
      : '';
  const note =
    omitted > 0
      ? `; ${omitted} too large for the apiserver carry contentOmitted (content on the HTTP server)`
      : '';
  return `${blobs} objects of content ${contentHash}${lean}${note}`;
}

/** Serving the synced revision. */
export function markSynced(state: ReconcileState): void {
  const { status } = state;
  const synced = describeSync(
    status.objectCount ?? 0,
    status.contentHash ?? '',
    state.omitted,
    required(state.profile, 'the content profile'),
  );
  setConditions(
    state,
    SERVING,
    {
      type: TYPE_PROGRESSING,
      status: 'True',
      reason: REASON_SUCCEEDED,
      message: `synced ${synced}`,
    },
    { type: TYPE_OBJECTS_SYNCED, status: 'True', reason: REASON_SYNCED, message: synced },
  );
}

/**
 * The failure: Progressing from the error (Blocked if terminal, else Retrying), Serving=False
 * unless a previous revision is still served; a SyncFailed event. Returns status's message.
 */
export function markFailed(state: ReconcileState, err: unknown): string {
  const progressing = progressingFor(err, state.failureNote);
  // urls.base too: under another ClusterCatalog CRD, contentHash is pruned from status.
  const serving = state.status.contentHash !== undefined || state.status.urls?.base !== undefined;
  const notServing: StepCondition = {
    type: TYPE_SERVING,
    status: 'False',
    reason: REASON_UNAVAILABLE,
    message: 'no catalog content is being served',
  };
  setConditions(
    state,
    ...(serving ? [] : [notServing]),
    { type: TYPE_PROGRESSING, ...progressing },
    ...objectsFailed(state, progressing.message),
  );
  state.events.push({ type: 'Warning', reason: EVENT_SYNC_FAILED, message: progressing.message });
  return progressing.message;
}

/**
 * A failure while this reconcile planned or wrote the served revision's objects (ObjectsSynced
 * says Planning or Writing): they were rolled back, or could not be; else the object view is
 * what it was, and so is its condition.
 */
function objectsFailed(state: ReconcileState, message: string): StepCondition[] {
  const objects = state.status.conditions?.find((c) => c.type === TYPE_OBJECTS_SYNCED);
  if (objects?.reason !== REASON_PLANNING && objects?.reason !== REASON_WRITING) return [];
  const rolledBack = state.failureNote.startsWith('; rolled back');
  return [
    {
      type: TYPE_OBJECTS_SYNCED,
      status: 'False',
      reason: rolledBack ? REASON_ROLLED_BACK : REASON_FAILED,
      message,
    },
  ];
}

/**
 * The served ClusterCatalog CRD prunes our status fields (crd-status-fields.ts): Progressing says
 * so first, and what to run. A sync that succeeded is Retrying: once our CRD is back, every
 * catalog is reconciled again and its status written whole.
 */
export function markCRDProblem(state: ReconcileState, problem: string): void {
  const progressing = state.status.conditions?.find((c) => c.type === TYPE_PROGRESSING);
  if (!progressing) return;
  setConditions(state, {
    type: TYPE_PROGRESSING,
    status: progressing.status,
    reason: progressing.reason === REASON_SUCCEEDED ? REASON_RETRYING : progressing.reason,
    message: `${problem}; ${progressing.message}`,
  });
}

/**
 * A catalog being deleted, as upstream writes it before its finalizer goes: nothing is served
 * (Serving=False/Unavailable), and the HTTP view (resolvedSource, urls, lastUnpacked) is cleared.
 */
export function notServingStatus(
  status: ClusterCatalogStatus | undefined,
  generation: number,
  now: Date,
): ClusterCatalogStatus {
  const { resolvedSource: _source, urls: _urls, lastUnpacked: _unpacked, ...rest } = status ?? {};
  const update = {
    type: TYPE_SERVING,
    status: 'False' as const,
    reason: REASON_UNAVAILABLE,
    message: 'the catalog is being deleted: its content is no longer served',
    observedGeneration: generation,
  };
  return { ...rest, conditions: setCondition(rest.conditions ?? [], update, now).conditions };
}
