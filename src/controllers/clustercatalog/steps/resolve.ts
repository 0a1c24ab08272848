// Step 2, resolve and pull: the digest the reference points at now, and the image pulled (or
// found in the cache) by that digest, within the attempt's time bound.
import {
  findSourceError,
  formatReference,
  parseReference,
  withDigest,
} from '../../../source/index.js';
import { isTerminal, TerminalError } from '../../../util/errors.js';
import type { ReconcileState } from './state.js';

export async function resolveAndPull(state: ReconcileState): Promise<void> {
  const { puller } = state.deps;
  const { attempt } = state;
  const opts = { signal: attempt.signal, activity: attempt };
  try {
    // Resolve first: an invalid reference fails there, with the puller's message.
    const digest = await puller.resolve(state.ref, opts);
    state.image = parseReference(state.ref);
    state.pulled = await puller.pull(formatReference(withDigest(state.image, digest)), opts);
  } catch (err) {
    throw classifyPullError(state, err);
  }
}

/**
 * A blob whose size or digest disagrees with its descriptor: under a digest the content can
 * never change, so the attempt is final (Blocked); under a tag the image may be re-pushed, so it
 * is tried again on the poll interval (or with backoff when the catalog does not poll).
 */
function classifyPullError(state: ReconcileState, err: unknown): unknown {
  const code = findSourceError(err)?.code;
  if ((code !== 'SizeMismatch' && code !== 'DigestMismatch') || isTerminal(err)) return err;
  if (parseDigestPinned(state.ref)) return TerminalError.wrap(err);
  const poll = state.catalog.spec.source.image?.pollIntervalMinutes;
  if (poll) state.requeueAfterMs = poll * 60_000;
  return err;
}

function parseDigestPinned(ref: string): boolean {
  try {
    return parseReference(ref).digest !== undefined;
  } catch {
    return false;
  }
}
