// Step 3, prepare content: the HTTP revision is built from the pulled catalog first (one parse,
// no objects), so it is served as soon as it is parsed (publish) and a failure to store it (a
// full disk) costs no writes and no rollback. The parse is part of the attempt's time bound.
import { revisionKeyOf } from '../../../api/v1/index.js';
import { classifyPlanError } from '../../../sync/index.js';
import type { ReconcileState } from './state.js';
import { required } from './state.js';

export async function prepareContent(state: ReconcileState): Promise<void> {
  const pulled = required(state.pulled, 'the pulled image');
  const digestPinned = required(state.image, 'the image reference').digest !== undefined;
  const { attempt } = state;
  attempt.doing(`parsing the catalog of ${state.ref}`);
  state.revision = await state.deps.content
    .prepare(state.name, pulled.configsDir, {
      known: knownRevision(state, pulled.ref),
      signal: attempt.signal,
    })
    .catch((err: unknown) => {
      // Timed out: the deadline's reason says what was slow, not the parser's abort error.
      throw classifyPlanError(attempt.signal.aborted ? attempt.signal.reason : err, digestPinned);
    });
}

/**
 * The revision the pulled image is known to hold, from what status says was built from the same
 * image (a reconcile after drift or a restart): no parse when it is still stored.
 */
function knownRevision(state: ReconcileState, ref: string): string | undefined {
  const { prev } = state;
  if (prev.resolvedSource?.image?.ref === ref) {
    const key = revisionKeyOf(prev.urls?.base);
    if (key !== undefined) return key;
  }
  return prev.objectSourceRef === ref ? prev.contentHash : undefined;
}
