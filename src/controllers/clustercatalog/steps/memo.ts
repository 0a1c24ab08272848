// Steady state (SPEC §3.3), two steps around the full sync. After the resolve step, a catalog
// whose digest, spec generation and sync options are those of its last successful sync by this
// process, with no drift seen since (the memo's to say: sync-memo.ts), is what that sync left.
// Its plan would list every object and parse the whole catalog to find nothing to write: it is
// skipped (the pipeline ends as synced), and the reconcile costs O(1). The content is published
// again from the cache (a no-op when it is served). After a full sync, what it left is
// remembered.
import { canonicalize } from '../../../api/v1/index.js';
import { syncTargetKey } from '../../../sync/index.js';
import type { ReconcileState, Step } from '../pipeline/state.js';
import { required, syncTarget } from '../pipeline/state.js';
import { recordObjects, serveRevision } from '../pipeline/views.js';

/** What the result of a sync depends on, besides the cluster: the memo's key. */
function syncKey(state: ReconcileState): string {
  const pulled = required(state.pulled, 'the pulled image');
  return canonicalize({
    ref: pulled.ref,
    generation: state.generation,
    // The owner's uid is in the target (a catalog deleted and created again is another owner).
    target: syncTargetKey(syncTarget(state, pulled.configsDir)),
  });
}

/** The last sync reused (then status says what it synced): the pipeline ends; else plan in full. */
export const reuseUnchangedSync: Step = async (state) => {
  const memo = state.deps.ports.syncMemo;
  if (!memo) return;
  state.syncKey = syncKey(state);
  const revision = memo.lookup(state.name, state.syncKey);
  if (!revision) return;
  state.omitted = revision.omitted;
  const pulled = required(state.pulled, 'the pulled image');
  await serveRevision(state, pulled, revision.contentHash);
  recordObjects(state, pulled.ref, revision);
  return { kind: 'synced' };
};

/** After a successful full sync: what it left, for the next reconcile to reuse. */
export const rememberSync: Step = (state) => {
  const memo = state.deps.ports.syncMemo;
  if (!memo || !state.memoToken || state.syncKey === undefined) return Promise.resolve();
  const { status } = state;
  memo.remember(state.memoToken, state.syncKey, {
    contentHash: required(status.contentHash, 'the synced contentHash'),
    objectCount: status.objectCount ?? 0,
    omitted: state.omitted,
    storedBytes: status.storedBytes ?? 0,
  });
  return Promise.resolve();
};
