// The inner ClusterCatalog reconcile: from a copy of the catalog and narrow interfaces to the
// world, compute the new status, the events to record and when to look again. It performs no
// API I/O of its own except through the injected Syncer and StatusSink, and never asks why it
// was called: it compares the current state with the desired one (level-triggered).
import type { ClusterCatalog, ClusterCatalogStatus, Condition } from '../../api/v1/index.js';
import {
  AVAILABILITY_MODE_UNAVAILABLE,
  REASON_AVAILABLE,
  REASON_RETRYING,
  REASON_SUCCEEDED,
  REASON_UNAVAILABLE,
  REASON_USER_SPECIFIED_UNAVAILABLE,
  SOURCE_TYPE_IMAGE,
  TYPE_PROGRESSING,
  TYPE_SERVING,
  formatTime,
  isDigestRef,
  setCondition,
} from '../../api/v1/index.js';
import type { Puller } from '../../source/index.js';
import type { ApplyResult, PlannedSync, ScanResult, SyncTarget } from '../../sync/index.js';
import { planWrites } from '../../sync/index.js';
import type { Clock } from '../../util/clock.js';
import { classifyPlanError, errorChain, progressingFor } from './errors.js';

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
  /** The base URL of a catalog's content (status.urls.base). */
  baseUrl(catalog: string): string;
  /** URL of one blob, for objects whose content is omitted. */
  blobUrl(catalog: string, blob: { schema: string; package?: string; name?: string }): string;
  /**
   * Stores the content for serving without serving it yet (idempotent): done before the
   * objects are written, so the publish after them only switches revisions.
   */
  prepare(catalog: string, contentHash: string, dir: string): Promise<void>;
  publish(catalog: string, contentHash: string, dir: string, lastModified: Date): Promise<void>;
  remove(catalog: string): Promise<void>;
}

/** Writes an intermediate status during a long reconcile (the sync journal, progress). */
export interface StatusSink {
  write(status: ClusterCatalogStatus): Promise<void>;
}

export interface ReconcileDeps {
  puller: Puller;
  syncer: Syncer;
  content: ContentPublisher;
  status: StatusSink;
  /** The time of status conditions and lastUnpacked (of the one Clock, src/util/clock.ts). */
  clock: Pick<Clock, 'date'>;
  maxObjectBytes: number;
  /** Least time between two progress messages in status. */
  progressIntervalMs?: number;
  /** Random source in [0,1) for poll jitter (injected for tests). */
  random?: () => number;
}

export interface CatalogEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ReconcileOutcome {
  status: ClusterCatalogStatus;
  events: CatalogEvent[];
  /** Look again after this long (poll interval), when set. */
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

/** Poll jitter: up to this fraction is added to the interval, so catalogs spread out. */
const POLL_JITTER = 0.1;

function conditionsWith(
  status: ClusterCatalogStatus,
  generation: number,
  now: Date,
  ...updates: Array<Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>>
): Condition[] {
  let conditions = status.conditions ?? [];
  for (const u of updates) {
    conditions = setCondition(conditions, { ...u, observedGeneration: generation }, now).conditions;
  }
  return conditions;
}

/** `omitted`: the catalog's objects that carry contentOmitted after the sync. */
function describeSync(scan: ScanResult, omitted: number): string {
  const note =
    omitted > 0
      ? `; ${omitted} too large for the apiserver carry contentOmitted (content on the HTTP server)`
      : '';
  return `${scan.blobs} objects of content ${scan.contentHash}${note}`;
}

export async function reconcileCatalog(
  catalog: ClusterCatalog,
  deps: ReconcileDeps,
  signal?: AbortSignal,
): Promise<ReconcileOutcome> {
  const name = catalog.metadata.name;
  const generation = catalog.metadata.generation ?? 0;
  const now = () => deps.clock.date();
  const prev: ClusterCatalogStatus = structuredClone(catalog.status ?? {});
  const events: CatalogEvent[] = [];

  if (catalog.spec.availabilityMode === AVAILABILITY_MODE_UNAVAILABLE) {
    await deps.content.remove(name);
    const deleted = await deps.syncer.deleteAll(name, signal);
    const status: ClusterCatalogStatus = {
      ...prev,
      conditions: conditionsWith(
        prev,
        generation,
        now(),
        {
          type: TYPE_SERVING,
          status: 'False',
          reason: REASON_USER_SPECIFIED_UNAVAILABLE,
          message:
            'availabilityMode is Unavailable: content and CatalogMetadata objects are removed',
        },
        {
          type: TYPE_PROGRESSING,
          status: 'True',
          reason: REASON_SUCCEEDED,
          message: 'catalog is unavailable as requested',
        },
      ),
      objectCount: 0,
      observedGeneration: generation,
    };
    delete status.urls;
    delete status.contentHash;
    delete status.syncingTo;
    delete status.resolvedSource;
    if (deleted > 0) {
      events.push({
        type: 'Normal',
        reason: EVENT_UNAVAILABLE,
        message: `deleted ${deleted} CatalogMetadata objects`,
      });
    }
    return { status, events };
  }

  const ref = catalog.spec.source.image?.ref ?? '';
  let status: ClusterCatalogStatus = { ...prev, observedGeneration: generation };
  let writing = false;
  let planned: PlannedSync | undefined;
  try {
    const digest = await deps.puller.resolve(ref);
    const repo = ref.replace(/@.*$/, '').replace(/:[^/:]+$/, '');
    const pulled = await deps.puller.pull(`${repo}@${digest}`);
    const target: SyncTarget = {
      catalog: { name, uid: catalog.metadata.uid ?? '' },
      dir: pulled.configsDir,
      maxObjectBytes: deps.maxObjectBytes,
      contentUrl: (blob) => deps.content.blobUrl(name, blob),
    };
    planned = await deps.syncer.plan(target, signal).catch((err: unknown) => {
      throw classifyPlanError(err, isDigestRef(ref));
    });
    const { scan, plan } = planned;
    const writes = planWrites(plan);
    let omitted = plan.unchangedOmitted;
    // The HTTP revision is built from the catalog before any object is written: a failure to
    // store it (a full disk) then costs no writes and no rollback.
    await deps.content.prepare(name, scan.contentHash, pulled.configsDir);

    if (writes > 0) {
      // The journal: while syncingTo is set, the catalog's objects may be a mix of revisions.
      let lastProgress = now().getTime();
      const progressEvery = deps.progressIntervalMs ?? 3000;
      status = {
        ...status,
        syncingTo: scan.contentHash,
        conditions: conditionsWith(status, generation, now(), {
          type: TYPE_PROGRESSING,
          status: 'True',
          reason: REASON_RETRYING,
          message: `writing 0/${writes} objects`,
        }),
      };
      await deps.status.write(status);
      writing = true;
      let pending = Promise.resolve();
      const applied = await deps.syncer.apply(
        planned,
        (done, total) => {
          const t = now().getTime();
          if (t - lastProgress < progressEvery || done === total) return;
          lastProgress = t;
          status = {
            ...status,
            conditions: conditionsWith(status, generation, now(), {
              type: TYPE_PROGRESSING,
              status: 'True',
              reason: REASON_RETRYING,
              message: `writing ${done}/${total} objects`,
            }),
          };
          const snapshot = status;
          pending = pending.then(() => deps.status.write(snapshot)).catch(() => {});
        },
        signal,
      );
      await pending;
      writing = false;
      omitted += applied.omitted;
      events.push({
        type: 'Normal',
        reason: EVENT_SYNCED,
        message: `synced content ${scan.contentHash}: ${plan.create.length} created, ${plan.update.length} updated, ${plan.delete.length} deleted, ${plan.unchanged} unchanged`,
      });
    }

    const digestChanged = prev.resolvedSource?.image?.ref !== pulled.ref;
    const lastUnpacked =
      digestChanged || !prev.lastUnpacked ? formatTime(now()) : prev.lastUnpacked;
    // After the objects: HTTP clients and CatalogMetadata clients see the same revision.
    await deps.content.publish(name, scan.contentHash, pulled.configsDir, new Date(lastUnpacked));
    status = {
      ...status,
      resolvedSource: { type: SOURCE_TYPE_IMAGE, image: { ref: pulled.ref } },
      urls: { base: deps.content.baseUrl(name) },
      contentHash: scan.contentHash,
      objectCount: scan.blobs,
      lastUnpacked,
      conditions: conditionsWith(
        status,
        generation,
        now(),
        {
          type: TYPE_SERVING,
          status: 'True',
          reason: REASON_AVAILABLE,
          message: 'serving the content of the resolved source',
        },
        {
          type: TYPE_PROGRESSING,
          status: 'True',
          reason: REASON_SUCCEEDED,
          message: `synced ${describeSync(scan, omitted)}`,
        },
      ),
    };
    delete status.syncingTo;
    const poll = catalog.spec.source.image?.pollIntervalMinutes;
    const outcome: ReconcileOutcome = { status, events };
    if (poll && !isDigestRef(ref)) {
      const random = deps.random ?? Math.random;
      outcome.requeueAfterMs = Math.round(poll * 60_000 * (1 + POLL_JITTER * random()));
    }
    return outcome;
  } catch (err) {
    // Shutdown or lost leadership is not the catalog's failure: report nothing, and leave any
    // syncingTo journal for the next leader to finish.
    if (signal?.aborted) throw err;
    let suffix = '';
    if (writing) {
      // Atomic at rest: a failed write leaves a mix of revisions, so put the previous one back.
      try {
        await rollBack(catalog, prev, deps, signal);
        delete status.syncingTo;
        suffix = prev.contentHash
          ? `; rolled back to ${prev.contentHash}`
          : '; rolled back (no previous content)';
      } catch (rollbackErr) {
        if (signal?.aborted) throw err;
        // The journal (syncingTo) stays: the next reconcile converges to one revision.
        suffix = `; rollback failed: ${errorChain(rollbackErr)}`;
      }
    }
    const progressing = progressingFor(err, suffix);
    const serving = status.contentHash !== undefined;
    status = {
      ...status,
      conditions: conditionsWith(
        status,
        generation,
        now(),
        ...(serving
          ? []
          : [
              {
                type: TYPE_SERVING,
                status: 'False' as const,
                reason: REASON_UNAVAILABLE,
                message: 'no catalog content is being served',
              },
            ]),
        { type: TYPE_PROGRESSING, ...progressing },
      ),
    };
    const { message } = progressing;
    events.push({ type: 'Warning', reason: EVENT_SYNC_FAILED, message });
    return { status, events, error: { message, cause: err } };
  } finally {
    await planned?.dispose();
  }
}

/**
 * Makes the catalog's objects exactly the previous revision again: re-derived from the previous
 * digest in status (an unpacked-image cache hit), planned against what is in the cluster now.
 * With no previous revision, that is no objects at all.
 */
async function rollBack(
  catalog: ClusterCatalog,
  prev: ClusterCatalogStatus,
  deps: ReconcileDeps,
  signal?: AbortSignal,
): Promise<void> {
  const name = catalog.metadata.name;
  const prevRef = prev.resolvedSource?.image?.ref;
  if (!prevRef || !prev.contentHash) {
    await deps.syncer.deleteAll(name, signal);
    return;
  }
  const pulled = await deps.puller.pull(prevRef);
  const target: SyncTarget = {
    catalog: { name, uid: catalog.metadata.uid ?? '' },
    dir: pulled.configsDir,
    maxObjectBytes: deps.maxObjectBytes,
    contentUrl: (blob) => deps.content.blobUrl(name, blob),
  };
  const planned = await deps.syncer.plan(target, signal);
  try {
    if (planned.scan.contentHash !== prev.contentHash) {
      throw new Error(`previous image ${prevRef} no longer has content ${prev.contentHash}`);
    }
    await deps.syncer.apply(planned, () => {}, signal);
  } finally {
    await planned.dispose();
  }
}
