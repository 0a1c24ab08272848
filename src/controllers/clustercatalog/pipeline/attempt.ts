// A parse under the attempt's time bound (the prepare and plan steps): what it is doing is said
// for a timeout's message, and its failure is classified once, here.
import { classifyPlanError } from '../../../sync/index.js';
import type { ReconcileState } from './state.js';

/**
 * Runs `parse` with the attempt's signal. A timeout says what was slow (the deadline's reason),
 * not the parser's abort error; content faults are final under a digest (classifyPlanError).
 */
export async function parseUnderAttempt<T>(
  state: ReconcileState,
  parse: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { attempt } = state;
  attempt.doing(`parsing the catalog of ${state.ref}`);
  try {
    return await parse(attempt.signal);
  } catch (err) {
    throw classifyPlanError(
      attempt.signal.aborted ? attempt.signal.reason : err,
      state.digestPinned,
    );
  }
}
