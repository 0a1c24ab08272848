// Step 4, publish: the revision is served over HTTP as soon as it is parsed and stored, before
// its objects are planned and written (docs/api.md, "Two views of a catalog"). Status's HTTP view
// (resolvedSource, urls.base, lastUnpacked, Serving) names it from here on, and is written at
// once when it changed, before the objects are scanned; the object view (contentHash,
// objectCount, syncingTo) is the write step's, so the consistent-list protocol stays exact.
import { SOURCE_TYPE_IMAGE, formatTime } from '../../../api/v1/index.js';
import type { PullResult } from '../../../source/index.js';
import { markServed } from './conditions.js';
import type { ReconcileState } from './state.js';
import { required } from './state.js';

/** Poll jitter: up to this fraction is added to the interval, so catalogs spread out. */
const POLL_JITTER = 0.1;

export async function publishContent(state: ReconcileState): Promise<void> {
  const pulled = required(state.pulled, 'the pulled image');
  const revision = required(state.revision, 'the prepared revision');
  await serveRevision(state, pulled, revision);
  markServed(state, revision);
  const { prev, status } = state;
  const httpViewChanged =
    prev.resolvedSource?.image?.ref !== status.resolvedSource?.image?.ref ||
    prev.urls?.base !== status.urls?.base;
  // The objects' scan and writes follow (a scan alone is a second parse: seconds for a large
  // catalog, under any profile): say now that the revision is served.
  if (httpViewChanged) await state.deps.status.write(state.status);
}

/**
 * Serves a revision of the pulled image (cheap when it is served already) and says so in
 * status's HTTP view; shared by the full sync and the reuse of an unchanged one (memo.ts).
 */
export async function serveRevision(
  state: ReconcileState,
  pulled: PullResult,
  contentHash: string,
): Promise<void> {
  const { deps, prev, name } = state;
  const digestChanged = prev.resolvedSource?.image?.ref !== pulled.ref;
  const lastUnpacked =
    digestChanged || !prev.lastUnpacked ? formatTime(deps.clock.date()) : prev.lastUnpacked;
  await deps.content.publish(name, contentHash, pulled.configsDir, new Date(lastUnpacked));
  state.status = {
    ...state.status,
    resolvedSource: { type: SOURCE_TYPE_IMAGE, image: { ref: pulled.ref } },
    urls: { base: deps.content.baseUrl(name, contentHash) },
    lastUnpacked,
  };
}

/**
 * After a sync that succeeded: a tag is polled again. Not before: a failed sync retries with
 * backoff, not on the poll interval.
 */
export function schedulePoll(state: ReconcileState): void {
  const poll = state.catalog.spec.source.image?.pollIntervalMinutes;
  // A digest never changes: nothing to poll.
  if (poll && state.image?.digest === undefined) {
    const random = state.deps.random ?? Math.random;
    state.requeueAfterMs = Math.round(poll * 60_000 * (1 + POLL_JITTER * random()));
  }
}
