// Step 8, publish: the revision is served over HTTP as soon as it is parsed and stored, before
// its objects are planned and written (docs/api.md, "Two views of a catalog"). Status's HTTP view
// (resolvedSource, urls.base, lastUnpacked, Serving) names it from here on, and is written at
// once when it changed, before the objects are scanned; the object view (contentHash,
// objectCount, syncingTo) is the write step's, so the consistent-list protocol stays exact.
import { markServed } from '../pipeline/conditions.js';
import type { Step } from '../pipeline/state.js';
import { required } from '../pipeline/state.js';
import { serveRevision } from '../pipeline/views.js';

export const publishContent: Step = async (state) => {
  const pulled = required(state.pulled, 'the pulled image');
  const revision = required(state.revision, 'the prepared revision');
  await serveRevision(state, pulled, revision);
  markServed(state, revision);
  const { prev, status } = state;
  const httpViewChanged =
    prev.resolvedSource?.image?.ref !== status.resolvedSource?.image?.ref ||
    prev.urls?.base !== status.urls?.base;
  // The objects' scan and writes follow (a scan alone is a second parse: seconds for a large
  // catalog, under any profile): say now that the revision is served.
  if (httpViewChanged) await state.deps.ports.status.write(state.status);
};
