// Step 5, plan: the catalog scanned (every object built and validated) and its writes planned
// against the objects in the cluster. The parse is the last part of the attempt's time bound.
import { classifyPlanError } from '../../../sync/index.js';
import { serveRevision } from './publish.js';
import type { ReconcileState } from './state.js';
import { required, syncTarget } from './state.js';

export async function scanAndPlan(state: ReconcileState): Promise<void> {
  const pulled = required(state.pulled, 'the pulled image');
  const digestPinned = required(state.image, 'the image reference').digest !== undefined;
  const { attempt } = state;
  attempt.doing(`parsing the catalog of ${state.ref}`);
  state.planned = await state.deps.syncer
    .plan(syncTarget(state, pulled.configsDir), attempt.signal)
    .catch((err: unknown) => {
      // Timed out: the deadline's reason says what was slow, not the parser's abort error.
      throw classifyPlanError(attempt.signal.aborted ? attempt.signal.reason : err, digestPinned);
    });
  // The writes are not bounded by the attempt's time: stopping them midway costs a rollback.
  attempt.dispose();
  state.omitted = state.planned.plan.unchangedOmitted;
  const { contentHash } = state.planned.scan;
  // The served revision was one stored from the same image (prepare step's known revision) by a
  // version of the parser that read it otherwise: serve what this one reads, objects and HTTP
  // alike.
  if (contentHash !== state.revision) {
    await serveRevision(state, pulled, contentHash);
    state.revision = contentHash;
  }
}
