// How a failed plan is reported: a content error of the catalog (not an I/O error such as
// EMFILE or EIO, which may pass) repeats for ever under a digest, so it is terminal there; under
// a tag the image may be re-pushed.
import { FbcError } from '../fbc/index.js';
import { findInChain, TerminalError } from '../util/errors.js';

/** err as the plan step reports it, for a catalog pinned by digest or not. */
export function classifyPlanError(err: unknown, digestRef: boolean): unknown {
  const fbc = findInChain(err, FbcError);
  return digestRef && fbc?.retryClass === 'content' ? TerminalError.wrap(err) : err;
}
