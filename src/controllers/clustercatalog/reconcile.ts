// The inner ClusterCatalog reconcile: from a copy of the catalog and narrow interfaces to the
// world (ports.ts), compute the new status, the events to record and when to look again. It
// performs no API I/O of its own except through the injected Syncer and StatusSink, and never
// asks why it was called: it compares the current state with the desired one (level-triggered).
// It runs one ordered list of steps over one shared state (steps/, pipeline/state.ts), in the
// style of Flux source-controller's sub-reconcilers: no step calls another; what steps share
// (status's views, conditions, the rollback, a parse under the attempt) is in pipeline/, and
// summarize alone sets conditions.
import type { ClusterCatalog } from '../../api/v1/index.js';
import type { ReconcileDeps, ReconcileOutcome } from './ports.js';
import type { Ending, ReconcileState, Step } from './pipeline/state.js';
import { newReconcileState } from './pipeline/state.js';
import { summarize } from './pipeline/summarize.js';
import { removeIfUnavailable } from './steps/availability.js';
import { beginSync } from './steps/begin.js';
import { decideContentProfile } from './steps/content-profile.js';
import { rememberSync, reuseUnchangedSync } from './steps/memo.js';
import { scanAndPlan } from './steps/plan.js';
import { prepareContent } from './steps/prepare.js';
import { publishContent } from './steps/publish.js';
import { resolveAndPull } from './steps/resolve.js';
import { takeSyncSlot } from './steps/sync-slot.js';
import { writeObjects } from './steps/write.js';

export * from './ports.js';

/**
 * The steps, in order; each reads what the ones before it put in the state, and one may end the
 * pipeline (an Unavailable catalog; an unchanged sync reused). The revision is built (prepare)
 * and served over HTTP (publish) before its objects are planned and written: a new catalog is
 * usable as soon as it is parsed, and the objects follow (docs/api.md, "Two views of a
 * catalog").
 */
export const PIPELINE: readonly Step[] = [
  removeIfUnavailable,
  beginSync,
  decideContentProfile,
  resolveAndPull,
  reuseUnchangedSync,
  takeSyncSlot,
  prepareContent,
  publishContent,
  scanAndPlan,
  writeObjects,
  rememberSync,
];

export async function reconcileCatalog(
  catalog: ClusterCatalog,
  deps: ReconcileDeps,
  signal?: AbortSignal,
  interrupted?: AbortSignal,
): Promise<ReconcileOutcome> {
  const state = newReconcileState(catalog, deps, signal, interrupted);
  try {
    return summarize(state, await runPipeline(state));
  } catch (err) {
    return summarizeFailure(state, err);
  } finally {
    state.releaseSlot?.();
    await state.planned?.dispose();
    state.pulled?.release?.();
    state.attempt.dispose();
  }
}

async function runPipeline(state: ReconcileState): Promise<Ending> {
  for (const step of PIPELINE) {
    const ending = await step(state);
    if (ending) return ending;
  }
  return { kind: 'synced' };
}

function summarizeFailure(state: ReconcileState, err: unknown): ReconcileOutcome {
  // Before the sync began (an Unavailable catalog's removal): the reconcile's failure, retried.
  if (!state.syncing) throw err;
  // Whatever failed, the cluster may not be what the last sync left: plan in full next.
  state.deps.ports.syncMemo?.forget(state.name);
  // Shutdown or lost leadership is not the catalog's failure: report nothing, and leave any
  // syncingTo journal for the next leader to finish. Nor is an interrupt (the catalog was
  // deleted or changed): its new state is reconciled next.
  if (state.signal?.aborted) throw err;
  if (state.interrupted?.aborted) throw state.interrupted.reason;
  return summarize(state, { kind: 'failed', err });
}
