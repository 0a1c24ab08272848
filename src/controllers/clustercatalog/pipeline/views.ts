// Status's two views of a catalog (docs/api.md, "Two views of a catalog"), as the steps set them:
// the HTTP view (resolvedSource, urls.base, lastUnpacked) once a revision is served, and the
// object view (contentHash, objectSourceRef, objectCount, storedBytes) once its objects are
// written. Shared by the full sync's steps and the reuse of an unchanged one (steps/memo.ts).
import { SOURCE_TYPE_IMAGE, formatTime } from '../../../api/v1/index.js';
import type { PullResult } from '../../../source/index.js';
import type { SyncedRevision } from '../ports.js';
import type { ReconcileState } from './state.js';

/** Poll jitter: up to this fraction is added to the interval, so catalogs spread out. */
const POLL_JITTER = 0.1;

/**
 * Serves a revision of the pulled image (cheap when it is served already) and says so in
 * status's HTTP view.
 */
export async function serveRevision(
  state: ReconcileState,
  pulled: PullResult,
  contentHash: string,
): Promise<void> {
  const { deps, prev, name } = state;
  const { content } = deps.ports;
  const digestChanged = prev.resolvedSource?.image?.ref !== pulled.ref;
  const lastUnpacked =
    digestChanged || !prev.lastUnpacked ? formatTime(deps.clock.date()) : prev.lastUnpacked;
  await content.publish(name, contentHash, pulled.configsDir, new Date(lastUnpacked));
  state.status = {
    ...state.status,
    resolvedSource: { type: SOURCE_TYPE_IMAGE, image: { ref: pulled.ref } },
    urls: { base: content.baseUrl(name, contentHash) },
    lastUnpacked,
  };
}

/**
 * Status's object view: the objects are now `revision` of the image `ref`, whole (no journal).
 * Ends a sync that succeeded: a tag is polled again.
 */
export function recordObjects(
  state: ReconcileState,
  ref: string,
  revision: Omit<SyncedRevision, 'omitted'>,
): void {
  state.status = {
    ...state.status,
    contentHash: revision.contentHash,
    objectSourceRef: ref,
    objectCount: revision.objectCount,
    storedBytes: revision.storedBytes,
  };
  delete state.status.syncingTo;
  schedulePoll(state);
}

/**
 * After a sync that succeeded: a tag is polled again. Not before: a failed sync retries with
 * backoff, not on the poll interval.
 */
function schedulePoll(state: ReconcileState): void {
  const poll = state.catalog.spec.source.image?.pollIntervalMinutes;
  // A digest never changes: nothing to poll.
  if (poll && !state.digestPinned) {
    const random = state.deps.clock.random ?? Math.random;
    state.requeueAfterMs = Math.round(poll * 60_000 * (1 + POLL_JITTER * random()));
  }
}
