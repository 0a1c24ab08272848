// Step 1, availability: a catalog the user made Unavailable serves nothing and has no objects.
import { AVAILABILITY_MODE_UNAVAILABLE } from '../../../api/v1/index.js';
import { EVENT_UNAVAILABLE } from '../ports.js';
import type { ReconcileState } from './state.js';

/** Whether the catalog is Unavailable; then its content and objects are removed. */
export async function removeIfUnavailable(state: ReconcileState): Promise<boolean> {
  if (state.catalog.spec.availabilityMode !== AVAILABILITY_MODE_UNAVAILABLE) return false;
  const { deps, name } = state;
  deps.syncMemo?.forget(name);
  await deps.content.remove(name);
  const deleted = await deps.syncer.deleteAll(name, state.signal);
  const status = {
    ...state.prev,
    objectCount: 0,
    storedBytes: 0,
    observedGeneration: state.generation,
  };
  delete status.urls;
  delete status.contentHash;
  delete status.syncingTo;
  delete status.resolvedSource;
  state.status = status;
  if (deleted > 0) {
    state.events.push({
      type: 'Normal',
      reason: EVENT_UNAVAILABLE,
      message: `deleted ${deleted} CatalogMetadata objects`,
    });
  }
  return true;
}
