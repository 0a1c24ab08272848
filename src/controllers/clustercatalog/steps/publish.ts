// Step 6, publish: after the objects, so HTTP clients and CatalogMetadata clients see the same
// revision; then status names what is served, and a tag is polled again.
import { SOURCE_TYPE_IMAGE, formatTime } from '../../../api/v1/index.js';
import type { PullResult } from '../../../source/index.js';
import type { SyncedRevision } from '../ports.js';
import type { ReconcileState } from './state.js';
import { required } from './state.js';

/** Poll jitter: up to this fraction is added to the interval, so catalogs spread out. */
const POLL_JITTER = 0.1;

export async function publishContent(state: ReconcileState): Promise<void> {
  const pulled = required(state.pulled, 'the pulled image');
  const { scan } = required(state.planned, 'the planned sync');
  await publishRevision(state, pulled, {
    contentHash: scan.contentHash,
    objectCount: scan.blobs,
    storedBytes: scan.storedBytes + state.storedBytesDelta,
  });
}

/**
 * Serves a synced revision of the pulled image (cheap when it is served already) and says so in
 * status; shared by the full sync and the reuse of an unchanged one (memo.ts).
 */
export async function publishRevision(
  state: ReconcileState,
  pulled: PullResult,
  revision: Omit<SyncedRevision, 'omitted'>,
): Promise<void> {
  const { deps, prev, name } = state;
  const digestChanged = prev.resolvedSource?.image?.ref !== pulled.ref;
  const lastUnpacked =
    digestChanged || !prev.lastUnpacked ? formatTime(deps.clock.date()) : prev.lastUnpacked;
  await deps.content.publish(name, revision.contentHash, pulled.configsDir, new Date(lastUnpacked));
  state.status = {
    ...state.status,
    resolvedSource: { type: SOURCE_TYPE_IMAGE, image: { ref: pulled.ref } },
    urls: { base: deps.content.baseUrl(name, revision.contentHash) },
    contentHash: revision.contentHash,
    objectCount: revision.objectCount,
    storedBytes: revision.storedBytes,
    lastUnpacked,
  };
  delete state.status.syncingTo;
  const poll = state.catalog.spec.source.image?.pollIntervalMinutes;
  // A digest never changes: nothing to poll.
  if (poll && state.image?.digest === undefined) {
    const random = deps.random ?? Math.random;
    state.requeueAfterMs = Math.round(poll * 60_000 * (1 + POLL_JITTER * random()));
  }
}
