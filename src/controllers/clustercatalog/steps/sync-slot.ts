// Step 2b, take a write slot: the parse and the writes run in one of --workers slots. The wait
// is not the source's time, so the attempt's deadline stops while the catalog waits.
import type { ReconcileState } from './state.js';

export async function takeSyncSlot(state: ReconcileState): Promise<void> {
  const slots = state.deps.syncSlots;
  if (!slots) return;
  state.attempt.pause();
  state.releaseSlot = await slots.acquire(
    AbortSignal.any([state.signal, state.interrupted].filter((s) => s !== undefined)),
  );
  state.attempt.resume();
}
