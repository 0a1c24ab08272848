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
import { planSync } from './steps/plan.js';
import { prepareContent } from './steps/prepare.js';
import { publishContent } from './steps/publish.js';
import { resolveAndPull } from './steps/resolve.js';
import { takeSyncSlot } from './steps/sync-slot.js';
import type { ReconcileState } from './steps/state.js';
import { newReconcileState } from './steps/state.js';
import { summarize } from './steps/summarize.js';
import { writeObjects } from './steps/write.js';

export * from './ports.js';

/** The steps of a sync, in order; each reads what the ones before it put in the state. */
export const SYNC_STEPS: ReadonlyArray<(state: ReconcileState) => Promise<void>> = [
  checkContentProfile,
  resolveAndPull,
  takeSyncSlot,
  planSync,
  prepareContent,
  writeObjects,
  publishContent,
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
  try {
    for (const step of SYNC_STEPS) await step(state);
    return summarize(state, { kind: 'synced' });
  } catch (err) {
    // Shutdown or lost leadership is not the catalog's failure: report nothing, and leave any
    // syncingTo journal for the next leader to finish. Nor is an interrupt (the catalog was
    // deleted or changed): its new state is reconciled next.
    if (state.signal?.aborted) throw err;
    if (state.interrupted?.aborted) throw state.interrupted.reason;
    return summarize(state, { kind: 'failed', err });
  } finally {
    state.attempt.dispose();
    state.releaseSlot?.();
    await state.planned?.dispose();
  }
}
