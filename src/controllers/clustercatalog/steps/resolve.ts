// Step 4, resolve and pull: the digest the reference points at now, and the image pulled (or
// found in the cache) by that digest, within the attempt's time bound.
import {
  formatReference,
  parseImageReference,
  withDigest,
} from '../../../api/v1/imageref-grammar.js';
import { contentFault, isTerminal, withContentFinality } from '../../../util/errors.js';
import type { ReconcileState, Step } from '../pipeline/state.js';

export const resolveAndPull: Step = async (state) => {
  const { puller } = state.deps.ports;
  const { attempt } = state;
  const opts = { signal: attempt.signal, activity: attempt };
  // Held in the image cache until the reconcile ends (reconcile.ts), so that no prune removes
  // it while it is parsed.
  try {
    // Resolve first: an invalid reference fails there, with the puller's message.
    const digest = await puller.resolve(state.ref, opts);
    const image = state.image ?? parseImageReference(state.ref);
    state.pulled = await puller.pull(formatReference(withDigest(image, digest)), {
      ...opts,
      hold: true,
    });
  } catch (err) {
    throw classifyPullError(state, err);
  }
};

/**
 * What a failed pull means for the catalog. Pulls are made by digest (after resolving), so the
 * puller calls content errors final for that digest; whether they are is the spec's reference's
 * to say (withContentFinality): Blocked under a digest, whose content can never change; Retrying
 * under a tag, which may be re-pushed, looked at again on the poll interval (or with backoff when
 * the catalog does not poll).
 */
function classifyPullError(state: ReconcileState, err: unknown): unknown {
  const classified = withContentFinality(err, state.digestPinned);
  const poll = state.catalog.spec.source.image?.pollIntervalMinutes;
  if (poll && contentFault(err) && !isTerminal(classified)) state.requeueAfterMs = poll * 60_000;
  return classified;
}
