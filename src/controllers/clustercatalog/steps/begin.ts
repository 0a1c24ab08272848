// Step 2, begin the sync: from here on a failure is the sync's, reported in status (an
// Unavailable catalog's removal fails as the reconcile's, retried with backoff). The memo's token
// is taken before anything is looked at: drift seen after this voids what this sync remembers.
import type { Step } from '../pipeline/state.js';

export const beginSync: Step = async (state) => {
  state.syncing = true;
  state.memoToken = state.deps.ports.syncMemo?.begin(state.name);
  return Promise.resolve();
};
