// Step 4, prepare content: the HTTP revision is built from the catalog before any object is
// written, so a failure to store it (a full disk) costs no writes and no rollback.
import type { ReconcileState } from './state.js';
import { required } from './state.js';

export async function prepareContent(state: ReconcileState): Promise<void> {
  const pulled = required(state.pulled, 'the pulled image');
  const { scan } = required(state.planned, 'the planned sync');
  await state.deps.content.prepare(state.name, scan.contentHash, pulled.configsDir);
}
