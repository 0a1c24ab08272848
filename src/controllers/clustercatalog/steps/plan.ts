// Step 3, plan: the catalog scanned (every object built and validated) and its writes planned
// against the objects in the cluster.
import { classifyPlanError } from '../errors.js';
import type { ReconcileState } from './state.js';
import { required, syncTarget } from './state.js';

export async function planSync(state: ReconcileState): Promise<void> {
  const pulled = required(state.pulled, 'the pulled image');
  const digestPinned = required(state.image, 'the image reference').digest !== undefined;
  state.planned = await state.deps.syncer
    .plan(syncTarget(state, pulled.configsDir), state.signal)
    .catch((err: unknown) => {
      throw classifyPlanError(err, digestPinned);
    });
  state.omitted = state.planned.plan.unchangedOmitted;
}
