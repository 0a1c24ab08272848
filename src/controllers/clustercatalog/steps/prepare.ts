// Step 7, prepare content: the HTTP revision is built from the pulled catalog first (one parse,
// no objects), so it is served as soon as it is parsed (publish) and a failure to store it (a
// full disk) costs no writes and no rollback. The parse is part of the attempt's time bound.
import { revisionKeyOf } from '../../../api/v1/index.js';
import { parseUnderAttempt } from '../pipeline/attempt.js';
import type { ReconcileState, Step } from '../pipeline/state.js';
import { required } from '../pipeline/state.js';

export const prepareContent: Step = async (state) => {
  const pulled = required(state.pulled, 'the pulled image');
  const known = knownRevision(state, pulled.ref);
  state.revision = await parseUnderAttempt(state, (signal) =>
    state.deps.ports.content.prepare(state.name, pulled.configsDir, { known, signal }),
  );
};

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
