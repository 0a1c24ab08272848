// The state the reconcile steps share, after Flux source-controller's sub-reconcilers: each
// step reads what earlier steps found and adds its own part; only summarize turns the state into
// conditions. What every step needs to know of the catalog (its parsed reference, whether it is
// pinned to a digest) is computed here once and carried.
import type {
  ClusterCatalog,
  ClusterCatalogStatus,
  ContentProfile,
} from '../../../api/v1/index.js';
import type { ImageReference } from '../../../api/v1/imageref-grammar.js';
import { parseImageReference } from '../../../api/v1/imageref-grammar.js';
import type { PullResult } from '../../../source/index.js';
import type { PlannedSync, SyncTarget } from '../../../sync/index.js';
import { AttemptDeadline } from '../../../util/deadline.js';
import { realClock } from '../../../util/clock.js';
import {
  DEFAULT_PULL_TIMEOUT_MS,
  type CatalogEvent,
  type ReconcileDeps,
  type SyncMemoToken,
} from '../ports.js';

/** How a reconcile ends; summarize turns it into conditions. */
export type Ending =
  { kind: 'unavailable' } | { kind: 'synced' } | { kind: 'failed'; err: unknown };

/**
 * One step of the pipeline (reconcile.ts): it does its part on the state; an ending ends the
 * pipeline there. A step never calls another step: what two steps share is in pipeline/.
 */
export type Step = (state: ReconcileState) => Promise<Exclude<Ending, { kind: 'failed' }> | void>;

export interface ReconcileState {
  readonly catalog: ClusterCatalog;
  readonly name: string;
  readonly generation: number;
  /** spec.source.image.ref as the user wrote it. */
  readonly ref: string;
  /**
   * That reference parsed, once; undefined when it does not parse (the resolve step then fails
   * with the puller's message).
   */
  readonly image: ImageReference | undefined;
  /** Whether the reference names a digest: its content can never change (Blocked, not Retrying). */
  readonly digestPinned: boolean;
  readonly deps: ReconcileDeps;
  readonly signal: AbortSignal | undefined;
  /** Aborts when the catalog was deleted or its spec changed (the runtime's interrupt). */
  readonly interrupted: AbortSignal | undefined;
  /** The time bound of resolve, pull and parse (its signal aborts on shutdown and interrupt). */
  readonly attempt: AttemptDeadline;
  /** Set by the begin step: from here on a failure is the sync's, reported in status. */
  syncing: boolean;
  /** Releases the write slot (sync-slot step); called when the reconcile ends. */
  releaseSlot?: () => void;
  /** The status the reconcile started from. */
  readonly prev: ClusterCatalogStatus;
  /** The status being built; the steps set its fields, summarize its conditions. */
  status: ClusterCatalogStatus;
  events: CatalogEvent[];
  /** The catalog's content profile (content-profile step). */
  profile?: ContentProfile;
  /** The pulled image (resolve step). */
  pulled?: PullResult;
  /** The contentHash of the revision built from the pulled image (prepare step). */
  revision?: string;
  /** The scanned catalog and planned writes (plan step); disposed when the reconcile ends. */
  planned?: PlannedSync;
  /** Objects that carry contentOmitted without content after the sync (plan and write steps). */
  omitted: number;
  /** The write step's correction of the plan's storedBytes (objects the apiserver refused whole). */
  storedBytesDelta: number;
  /** Taken before the sync looks at the cluster (begin step). */
  memoToken?: SyncMemoToken;
  /** The memo's key of this sync, once the image is pulled (memo steps). */
  syncKey?: string;
  /** What the write step did after a failed write (rolled back …), said after the error. */
  failureNote: string;
  /** Look again after this long (the poll interval; a tag's bad blob). */
  requeueAfterMs?: number;
}

export function newReconcileState(
  catalog: ClusterCatalog,
  deps: ReconcileDeps,
  signal?: AbortSignal,
  interrupted?: AbortSignal,
): ReconcileState {
  const prev = structuredClone(catalog.status ?? {});
  const generation = catalog.metadata.generation ?? 0;
  const ref = catalog.spec.source.image?.ref ?? '';
  const image = parseOrUndefined(ref);
  return {
    catalog,
    name: catalog.metadata.name,
    generation,
    ref,
    image,
    digestPinned: image?.digest !== undefined,
    deps,
    signal,
    interrupted,
    attempt: new AttemptDeadline(
      deps.settings.pullTimeoutMs ?? DEFAULT_PULL_TIMEOUT_MS,
      deps.clock.timers ?? realClock,
      [signal, interrupted],
    ),
    syncing: false,
    prev,
    status: { ...prev, observedGeneration: generation },
    events: [],
    omitted: 0,
    storedBytesDelta: 0,
    failureNote: '',
  };
}

function parseOrUndefined(ref: string): ImageReference | undefined {
  try {
    return parseImageReference(ref);
  } catch {
    return undefined;
  }
}

/** What the sync engine syncs for this catalog from an unpacked catalog directory. */
export function syncTarget(state: ReconcileState, dir: string): SyncTarget {
  const { name, deps } = state;
  return {
    catalog: { name, uid: state.catalog.metadata.uid ?? '' },
    dir,
    maxObjectBytes: deps.settings.maxObjectBytes,
    contentUrl: (blob) => deps.ports.content.blobUrl(name, blob),
    contentProfile: required(state.profile, 'the content profile'),
  };
}

/** A step's precondition that an earlier step ran: a programming error if not. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`reconcile step order: ${what} is not known yet`);
  return value;
}
