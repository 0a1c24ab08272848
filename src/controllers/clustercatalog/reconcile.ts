// The inner ClusterCatalog reconcile: from a copy of the catalog and narrow interfaces to the
// world (ports.ts), compute the new status, the events to record and when to look again. It
// performs no API I/O of its own except through the injected Syncer and StatusSink, and never
// asks why it was called: it compares the current state with the desired one (level-triggered).
// It runs ordered steps over one shared state (steps/), in the style of Flux source-controller's
// sub-reconcilers; the summarize step alone sets conditions.
import type { ClusterCatalog } from '../../api/v1/index.js';
import type { ReconcileDeps, ReconcileOutcome } from './ports.js';
import { removeIfUnavailable } from './steps/availability.js';
import { checkContentProfile } from './steps/content-profile.js';
import { rememberSync, reuseUnchangedSync } from './steps/memo.js';
import { scanAndPlan } from './steps/plan.js';
import { prepareContent } from './steps/prepare.js';
import { publishContent } from './steps/publish.js';
import { resolveAndPull } from './steps/resolve.js';
import { takeSyncSlot } from './steps/sync-slot.js';
import type { ReconcileState } from './steps/state.js';
import { newReconcileState } from './steps/state.js';
import { summarize } from './steps/summarize.js';
import { writeObjects } from './steps/write.js';

export * from './ports.js';

/**
 * The steps of a sync after the resolve step, in order; each reads what the ones before it put
 * in the state. Skipped when the memo says the last sync stands (steps/memo.ts). The revision is
 * built (prepare) and served over HTTP (publish) before its objects are planned and written: a
 * new catalog is usable as soon as it is parsed, and the objects follow (docs/api.md, "Two views
 * of a catalog").
 */
const SYNC_STEPS: ReadonlyArray<(state: ReconcileState) => Promise<void>> = [
  takeSyncSlot,
  prepareContent,
  publishContent,
  scanAndPlan,
  writeObjects,
];

export async function reconcileCatalog(
  catalog: ClusterCatalog,
  deps: ReconcileDeps,
  signal?: AbortSignal,
  interrupted?: AbortSignal,
): Promise<ReconcileOutcome> {
  const state = newReconcileState(catalog, deps, signal, interrupted);
  try {
    if (await removeIfUnavailable(state)) return summarize(state, { kind: 'unavailable' });
    return await sync(state);
  } finally {
    state.attempt.dispose();
  }
}

async function sync(state: ReconcileState): Promise<ReconcileOutcome> {
  // Before anything is looked at: drift seen after this voids what this sync remembers.
  const memo = state.deps.syncMemo;
  state.memoToken = memo?.begin(state.name);
  try {
    await checkContentProfile(state);
    await resolveAndPull(state);
    if (!(await reuseUnchangedSync(state))) {
      for (const step of SYNC_STEPS) await step(state);
      rememberSync(state);
    }
    return summarize(state, { kind: 'synced' });
  } catch (err) {
    // Whatever failed, the cluster may not be what the last sync left: plan in full next.
    memo?.forget(state.name);
    // Shutdown or lost leadership is not the catalog's failure: report nothing, and leave any
    // syncingTo journal for the next leader to finish. Nor is an interrupt (the catalog was
    // deleted or changed): its new state is reconciled next.
    if (state.signal?.aborted) throw err;
    if (state.interrupted?.aborted) throw state.interrupted.reason;
    return summarize(state, { kind: 'failed', err });
  } finally {
    state.releaseSlot?.();
    await state.planned?.dispose();
    state.pulled?.release?.();
  }
}
