// Maps a reconcile failure to the Progressing condition, the one place that does.
// Terminal (a TerminalError in the cause chain: only a spec change can fix it):
// Progressing=False/Blocked, no retry. Otherwise: Progressing=True/Retrying and a retry with
// backoff. Messages are deterministic: the messages of the cause chain, each said once.
// They quote catalog content (a file name of the image, a value of a blob), which its author
// controls: the message is one line with every control character made visible
// (util/terminal-text.ts), for `kubectl describe`, `kubectl get -o wide` and the SyncFailed
// Event, which carries this message.
import { REASON_BLOCKED, REASON_RETRYING } from '../../api/v1/index.js';
import { errorChain, isTerminal } from '../../util/errors.js';
import { terminalLine } from '../../util/terminal-text.js';

export { errorChain };

/** Longest Progressing message taken from an error chain (escaped). */
const MAX_MESSAGE = 4096;

export interface ProgressingFailure {
  status: 'True' | 'False';
  reason: typeof REASON_BLOCKED | typeof REASON_RETRYING;
  message: string;
}

/** The Progressing condition for a failed reconcile; `suffix` adds what the reconcile did after. */
export function progressingFor(err: unknown, suffix = ''): ProgressingFailure {
  const message = terminalLine(errorChain(err)).slice(0, MAX_MESSAGE) + terminalLine(suffix);
  return isTerminal(err)
    ? { status: 'False', reason: REASON_BLOCKED, message }
    : { status: 'True', reason: REASON_RETRYING, message };
}
