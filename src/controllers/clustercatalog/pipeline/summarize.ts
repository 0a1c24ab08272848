// The end of every reconcile: its outcome from the state, or from the error that stopped it;
// conditions set here (through conditions.ts) and nowhere else.
import type { ReconcileOutcome } from '../ports.js';
import { markCRDProblem, markFailed, markSynced, markUnavailable } from './conditions.js';
import type { Ending, ReconcileState } from './state.js';

export function summarize(state: ReconcileState, ending: Ending): ReconcileOutcome {
  const outcome = summarizeEnding(state, ending);
  const problem = state.deps.ports.crdProblem?.();
  if (problem) {
    markCRDProblem(state, problem);
    outcome.status = state.status;
    if (outcome.error) outcome.error.message = `${problem}; ${outcome.error.message}`;
  }
  return outcome;
}

function summarizeEnding(state: ReconcileState, ending: Ending): ReconcileOutcome {
  switch (ending.kind) {
    case 'unavailable':
      markUnavailable(state);
      return { status: state.status, events: state.events };
    case 'synced': {
      markSynced(state);
      const outcome: ReconcileOutcome = { status: state.status, events: state.events };
      if (state.requeueAfterMs !== undefined) outcome.requeueAfterMs = state.requeueAfterMs;
      return outcome;
    }
    case 'failed': {
      const message = markFailed(state, ending.err);
      return {
        status: state.status,
        events: state.events,
        error: { message, cause: ending.err },
        ...(state.requeueAfterMs !== undefined && { requeueAfterMs: state.requeueAfterMs }),
      };
    }
  }
}
