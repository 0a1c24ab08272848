// Step 10, write with the sync journal: while status.syncingTo is set, the catalog's objects may
// be a mix of revisions. The journal is written before the first object (with the HTTP view the
// publish step set: the new revision is served, Serving=True, while its objects are written),
// progress while writing, and a failed write is rolled back to the previous revision (atomic at
// rest; HTTP keeps serving what parsed). Then status's object view names the new revision.
import type { PlannedSync } from '../../../sync/index.js';
import { planWrites } from '../../../sync/index.js';
import { errorChain } from '../errors.js';
import { EVENT_SYNCED } from '../ports.js';
import { markWriting } from '../pipeline/conditions.js';
import { rollBack } from '../pipeline/rollback.js';
import type { ReconcileState, Step } from '../pipeline/state.js';
import { required } from '../pipeline/state.js';
import { recordObjects } from '../pipeline/views.js';

/** Least time between two progress messages in status, by default. */
const DEFAULT_PROGRESS_INTERVAL_MS = 3000;

export const writeObjects: Step = async (state) => {
  const planned = required(state.planned, 'the planned sync');
  const pulled = required(state.pulled, 'the pulled image');
  const { scan } = planned;
  await applyWithJournal(state, planned);
  recordObjects(state, pulled.ref, {
    contentHash: scan.contentHash,
    objectCount: scan.blobs,
    storedBytes: scan.storedBytes + state.storedBytesDelta,
  });
};

async function applyWithJournal(state: ReconcileState, planned: PlannedSync): Promise<void> {
  const { scan, plan } = planned;
  const writes = planWrites(plan);
  if (writes === 0) return;
  const { deps, signal } = state;
  const { ports, settings } = deps;
  const now = () => deps.clock.date().getTime();

  state.status = { ...state.status, syncingTo: scan.contentHash };
  markWriting(state, 0, writes);
  await ports.status.write(state.status);

  let lastProgress = now();
  const progressEvery = settings.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  let pending = Promise.resolve();
  const onProgress = (done: number, total: number) => {
    const t = now();
    if (t - lastProgress < progressEvery || done === total) return;
    lastProgress = t;
    markWriting(state, done, total);
    const snapshot = state.status;
    // Progress is best effort: a failed progress write must not fail the sync.
    pending = pending.then(() => ports.status.write(snapshot)).catch(() => {});
  };
  // Its deletions' watch events are its own, not drift (sync-memo.ts).
  ports.syncMemo?.deleting(
    state.name,
    plan.delete.map((d) => d.name),
  );
  // A large sync's own events wait until its writes are sent (watch-hold.ts).
  const pauseFrom = settings.driftWatchPauseWrites ?? 0;
  const release =
    ports.driftWatchHold && pauseFrom > 0 && writes >= pauseFrom
      ? ports.driftWatchHold.hold()
      : undefined;
  try {
    const applied = await ports.syncer.apply(planned, onProgress, signal);
    await pending;
    state.omitted += applied.omitted;
    state.storedBytesDelta += applied.storedBytesDelta;
  } catch (err) {
    // Shutdown or lost leadership: leave the journal for the next leader to finish.
    if (signal?.aborted) throw err;
    await rollBackAfterFailedWrite(state);
    throw err;
  } finally {
    release?.();
  }
  state.events.push({
    type: 'Normal',
    reason: EVENT_SYNCED,
    message: `synced content ${scan.contentHash}: ${plan.create.length} created, ${plan.update.length} updated, ${plan.delete.length} deleted, ${plan.unchanged} unchanged`,
  });
}

async function rollBackAfterFailedWrite(state: ReconcileState): Promise<void> {
  const { prev } = state;
  try {
    await rollBack(state);
    delete state.status.syncingTo;
    state.failureNote = prev.contentHash
      ? `; rolled back to ${prev.contentHash}`
      : '; rolled back (no previous content)';
  } catch (rollbackErr) {
    // The journal (syncingTo) stays: the next reconcile converges to one revision.
    if (!state.signal?.aborted) state.failureNote = `; rollback failed: ${errorChain(rollbackErr)}`;
  }
}
