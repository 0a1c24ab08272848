// Step 2, resolve and pull: the digest the reference points at now, and the image pulled (or
// found in the cache) by that digest.
import { formatReference, parseReference, withDigest } from '../../../source/index.js';
import type { ReconcileState } from './state.js';

export async function resolveAndPull(state: ReconcileState): Promise<void> {
  const { puller } = state.deps;
  // Resolve first: an invalid reference fails there, with the puller's message.
  const digest = await puller.resolve(state.ref);
  state.image = parseReference(state.ref);
  state.pulled = await puller.pull(formatReference(withDigest(state.image, digest)));
}
