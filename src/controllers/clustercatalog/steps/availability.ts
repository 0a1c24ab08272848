// Step 1, availability: a catalog the user made Unavailable serves nothing and has no objects;
// the pipeline ends here.
import { AVAILABILITY_MODE_UNAVAILABLE } from '../../../api/v1/index.js';
import { EVENT_UNAVAILABLE } from '../ports.js';
import type { Step } from '../pipeline/state.js';

export const removeIfUnavailable: Step = async (state) => {
  if (state.catalog.spec.availabilityMode !== AVAILABILITY_MODE_UNAVAILABLE) return;
  const { name } = state;
  const { syncMemo, content, syncer } = state.deps.ports;
  syncMemo?.forget(name);
  await content.remove(name);
  const deleted = await syncer.deleteAll(name, state.signal);
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
  return { kind: 'unavailable' };
};
