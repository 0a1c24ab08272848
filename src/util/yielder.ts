// Cooperative yielding for long synchronous work on the event loop (matching ignore patterns,
// parsing a catalog): the work is charged in units, and after each slice of units the caller
// awaits a macrotask turn, so timers, sockets (/healthz, content serving, other catalogs) and
// an attempt's deadline get to run. Counted, not timed: the slices are deterministic, and a
// slice's size is chosen so that it takes a few milliseconds (docs/bounds.md).
import { setImmediate as nextTurn } from 'node:timers/promises';

export class Yielder {
  private used = 0;

  /**
   * @param slice units of work between two turns of the event loop
   * @param signal checked at every turn: an aborted attempt stops here with its reason
   */
  constructor(
    private readonly slice: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Charges units; gives the event loop a turn once a slice is used up. */
  async charge(units: number): Promise<void> {
    this.used += units;
    if (this.used < this.slice) return;
    this.used = 0;
    await nextTurn();
    this.signal?.throwIfAborted();
  }
}
