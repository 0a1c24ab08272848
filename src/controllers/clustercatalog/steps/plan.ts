// Step 9, plan: the catalog scanned (every object built and validated) and its writes planned
// against the objects in the cluster. The parse is the last part of the attempt's time bound.
import { parseUnderAttempt } from '../pipeline/attempt.js';
import type { Step } from '../pipeline/state.js';
import { required, syncTarget } from '../pipeline/state.js';
import { serveRevision } from '../pipeline/views.js';

export const scanAndPlan: Step = async (state) => {
  const pulled = required(state.pulled, 'the pulled image');
  const target = syncTarget(state, pulled.configsDir);
  state.planned = await parseUnderAttempt(state, (signal) =>
    state.deps.ports.syncer.plan(target, signal),
  );
  // The writes are not bounded by the attempt's time: stopping them midway costs a rollback.
  state.attempt.dispose();
  state.omitted = state.planned.plan.unchangedOmitted;
  const { contentHash } = state.planned.scan;
  // The served revision was one stored from the same image (prepare step's known revision) by a
  // version of the parser that read it otherwise: serve what this one reads, objects and HTTP
  // alike.
  if (contentHash !== state.revision) {
    await serveRevision(state, pulled, contentHash);
    state.revision = contentHash;
  }
};
