// The write step's undo: makes the catalog's objects exactly the previous revision again,
// re-derived from the digest status's object view names (objectSourceRef: the HTTP view's
// resolvedSource may be ahead of the objects; an unpacked-image cache hit) and planned against
// what is in the cluster now. With no previous revision, or one of no objects (the content
// profile none), that is no objects at all.
import type { ReconcileState } from './state.js';
import { syncTarget } from './state.js';

export async function rollBack(state: ReconcileState): Promise<void> {
  const { name, prev, signal } = state;
  const { puller, syncer } = state.deps.ports;
  // A status written before objectSourceRef: its resolvedSource was the objects' image.
  const prevRef = prev.objectSourceRef ?? prev.resolvedSource?.image?.ref;
  if (!prevRef || !prev.contentHash || prev.objectCount === 0) {
    await syncer.deleteAll(name, signal);
    return;
  }
  const pulled = await puller.pull(prevRef);
  const planned = await syncer.plan(syncTarget(state, pulled.configsDir), signal);
  try {
    if (planned.scan.contentHash !== prev.contentHash) {
      throw new Error(`previous image ${prevRef} no longer has content ${prev.contentHash}`);
    }
    await syncer.apply(planned, () => {}, signal);
  } finally {
    await planned.dispose();
  }
}
