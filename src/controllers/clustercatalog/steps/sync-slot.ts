// Step 6, take a write slot: the parse and the writes run in one of --workers slots. The wait
// is not the source's time, so the attempt's deadline stops while the catalog waits.
import type { Step } from '../pipeline/state.js';

export const takeSyncSlot: Step = async (state) => {
  const slots = state.deps.ports.syncSlots;
  if (!slots) return;
  state.attempt.pause();
  state.releaseSlot = await slots.acquire(
    AbortSignal.any([state.signal, state.interrupted].filter((s) => s !== undefined)),
  );
  state.attempt.resume();
};
