// The inner reconcile's narrow interfaces to the world (ports): the image source, the sync
// engine, the content server and the status sink; beside them its settings and its clock.
// setup/ wires the real ones; tests wire small in-memory ones.
import type { ClusterCatalogStatus, ContentProfile } from '../../api/v1/index.js';
import type { Puller } from '../../source/index.js';
import type { ApplyResult, PlannedSync, SyncTarget } from '../../sync/index.js';
import type { Clock } from '../../util/clock.js';
import type { SyncSlots } from './sync-slots.js';

// What the reconciler needs from the image source is src/source's Puller itself (resolve a
// reference to a digest, pull `repo@digest`): one name for one meaning.
export type { Puller };

/** What the reconciler needs from the sync engine (src/sync over the apiserver). */
export interface Syncer {
  /**
   * Lists the catalog's objects, scans the catalog (every object built and validated) and plans
   * the writes. The result holds files until disposed.
   */
  plan(target: SyncTarget, signal?: AbortSignal): Promise<PlannedSync>;
  apply(
    planned: PlannedSync,
    onProgress: (done: number, total: number) => void,
    signal?: AbortSignal,
  ): Promise<ApplyResult>;
  /** Deletes every object of the catalog; returns how many. */
  deleteAll(catalog: string, signal?: AbortSignal): Promise<number>;
}

/** Publishes a catalog's content on the HTTP server. */
export interface ContentPublisher {
  /**
   * The base URL of one revision of a catalog's content (status.urls.base): it names the
   * revision, so no replica answers it with another (docs/api.md, "status.urls.base").
   */
  baseUrl(catalog: string, contentHash: string): string;
  /**
   * URL of one blob, for objects whose content is omitted: revision-free, so an object whose
   * blob did not change is not rewritten when only the revision changes.
   */
  blobUrl(catalog: string, blob: { schema: string; package?: string; name?: string }): string;
  /**
   * Stores the content of `dir` for serving, without serving it yet, and returns its contentHash
   * (idempotent: stored content is kept). Done first, before the objects are planned: the
   * revision is served as soon as it is parsed. `known`: the revision `dir` is known to hold (it
   * is the image that revision was built from), used without a parse when it is stored.
   */
  prepare(
    catalog: string,
    dir: string,
    opts?: { known?: string | undefined; signal?: AbortSignal | undefined },
  ): Promise<string>;
  /**
   * Serves `revision` (a contentHash, or a revision key read from status.urls.base) built from
   * `dir`.
   */
  publish(catalog: string, revision: string, dir: string, lastModified: Date): Promise<void>;
  remove(catalog: string): Promise<void>;
}

/** What a successful sync left in the cluster, as status reports it. */
export interface SyncedRevision {
  contentHash: string;
  objectCount: number;
  /** Objects that carry contentOmitted. */
  omitted: number;
  storedBytes: number;
}

/** Taken when a sync starts, before it looks at the cluster (SyncMemoPort.begin). */
export interface SyncMemoToken {
  readonly catalog: string;
  readonly seq: number;
  readonly relists: number;
}

/**
 * The memo of each catalog's last successful sync and whether drift was seen since
 * (sync-memo.ts): what lets a reconcile that would find nothing to do skip the plan.
 */
export interface SyncMemoPort {
  begin(catalog: string): SyncMemoToken;
  /** The revision synced under `key`, if no drift was seen since; else undefined. */
  lookup(catalog: string, key: string): SyncedRevision | undefined;
  /** Stores the sync's key and result, unless drift was seen since `token`. */
  remember(token: SyncMemoToken, key: string, revision: SyncedRevision): void;
  forget(catalog: string): void;
  /** The names a sync is about to delete: their deletion events are its own, not drift. */
  deleting(catalog: string, names: readonly string[]): void;
}

/** Writes an intermediate status during a long reconcile (the sync journal, progress). */
export interface StatusSink {
  write(status: ClusterCatalogStatus): Promise<void>;
}

/**
 * The inner reconcile's ports: what it asks of the world. The outer reconcile (controller.ts)
 * adds the status sink; setup/ wires the real ones, tests small in-memory ones.
 */
export interface ReconcilePorts {
  puller: Puller;
  syncer: Syncer;
  content: ContentPublisher;
  status: StatusSink;
  /** Slots for the parse and writes; none: unbounded (tests). */
  syncSlots?: SyncSlots;
  /** The last successful syncs (sync-memo.ts); none: every reconcile plans in full. */
  syncMemo?: SyncMemoPort;
  /**
   * What is wrong with the ClusterCatalog CRD the apiserver serves, if anything
   * (setup/crd-status-fields.ts): said in every catalog's Progressing message.
   */
  crdProblem?: () => string | undefined;
  /**
   * Closes the drift watch while a large sync sends its writes (their events would all be the
   * sync's own; src/controllers/runtime/watch-hold.ts); none: never.
   */
  driftWatchHold?: DriftWatchHold;
}

/** The inner reconcile's settings: the controller's flags that shape a sync. */
export interface ReconcileSettings {
  maxObjectBytes: number;
  /**
   * The controller's --content-profile (default full); a catalog's content-profile annotation
   * overrides it (steps/content-profile.ts).
   */
  contentProfile?: ContentProfile;
  /** The time bound of an attempt's resolve, pull and parse (default DEFAULT_PULL_TIMEOUT_MS). */
  pullTimeoutMs?: number;
  /** Least time between two progress messages in status (default 3 s). */
  progressIntervalMs?: number;
  /**
   * The least writes of a sync that hold the drift watch closed while they are sent
   * (--drift-watch-pause-writes; with ports.driftWatchHold); 0 or none: never.
   */
  driftWatchPauseWrites?: number;
}

/** The inner reconcile's time (of the one Clock, src/util/clock.ts) and chance. */
export interface ReconcileClock {
  /** The time of status conditions and lastUnpacked. */
  date(): Date;
  /** The timers of the attempt's time bound (default the real clock). */
  timers?: Pick<Clock, 'setTimer' | 'now'>;
  /** Random source in [0,1) for poll jitter (default Math.random). */
  random?: () => number;
}

export interface ReconcileDeps {
  ports: ReconcilePorts;
  settings: ReconcileSettings;
  clock: ReconcileClock;
}

/** Holds the drift watch closed until the returned release is called. */
export interface DriftWatchHold {
  hold(): () => void;
}

/**
 * The least writes of a sync that pause the drift watch (--drift-watch-pause-writes): a cold
 * sync or a large update; an incremental sync's few events cost less than the watch's re-opening.
 */
export const DEFAULT_DRIFT_WATCH_PAUSE_WRITES = 1000;
/**
 * The longest pause: its events stay well within what the apiserver's watch cache keeps (75 s of
 * them, up to 100k), so the watch resumes without a relist (24,000 events at 800 writes a second).
 */
export const DRIFT_WATCH_MAX_PAUSE_MS = 30_000;

/** 10 minutes: a 1 GiB image over a slow link fits; a stalled registry frees its catalog. */
export const DEFAULT_PULL_TIMEOUT_MS = 10 * 60_000;

export interface CatalogEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ReconcileOutcome {
  status: ClusterCatalogStatus;
  events: CatalogEvent[];
  /**
   * Look again after this long (poll interval), when set; with an error, the retry waits for
   * it instead of backing off (a tag's bad blob is looked at again on the poll interval).
   */
  requeueAfterMs?: number;
  /**
   * Set when the reconcile failed: `message` is status's, `cause` the error; whether to retry
   * is isTerminal(cause).
   */
  error?: { message: string; cause: unknown };
}

export const EVENT_SYNCED = 'Synced';
export const EVENT_SYNC_FAILED = 'SyncFailed';
export const EVENT_UNAVAILABLE = 'Unavailable';
