// Step 2, resolve and pull: the digest the reference points at now, and the image pulled (or
// found in the cache) by that digest, within the attempt's time bound.
import {
  findSourceError,
  formatReference,
  isImageContentError,
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
 * What a failed pull means for the catalog. Pulls are always made by digest (after resolving),
 * so the puller calls the image's content errors final; whether they are depends on the spec:
 * - under a digest the content can never change: a blob whose size or digest disagrees with its
 *   descriptor, like any content error, is final (Blocked);
 * - under a tag the image may be re-pushed: content errors (an invalid or unsafe layer, no
 *   catalog directory, a size or digest mismatch, ...) are tried again on the poll interval (or
 *   with backoff when the catalog does not poll), Retrying.
 */
function classifyPullError(state: ReconcileState, err: unknown): unknown {
  const source = findSourceError(err);
  if (!source) return err;
  const mismatch = source.code === 'SizeMismatch' || source.code === 'DigestMismatch';
  if (parseDigestPinned(state.ref))
    return mismatch && !isTerminal(err) ? TerminalError.wrap(err) : err;
  if (!mismatch && !(isImageContentError(source.code) && isTerminal(err))) return err;
  const poll = state.catalog.spec.source.image?.pollIntervalMinutes;
  if (poll) state.requeueAfterMs = poll * 60_000;
  // The same message, without the TerminalError of the digest the tag pointed at.
  return isTerminal(err) ? new Error((err as Error).message, { cause: source }) : err;
}

function parseDigestPinned(ref: string): boolean {
  try {
    return parseReference(ref).digest !== undefined;
  } catch {
    return false;
  }
}
