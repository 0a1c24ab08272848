// At most `running` queries execute at once; up to `waiting` more wait their turn in order,
// and one more is turned away (503): what one query may hold (docs/graphql.md, "Bounds") times
// `running` is what GraphQL may hold at once.
export class QueryGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /**
   * A turn, or false when too many wait already or `signal` aborts first. The caller calls
   * the returned release once done.
   */
  async enter(signal: AbortSignal): Promise<(() => void) | false> {
    if (this.active < this.running) {
      this.active++;
      return this.releaser();
    }
    if (this.queue.length >= this.waiting || signal.aborted) return false;
    return new Promise((resolve) => {
      const turn = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(turn);
        if (i >= 0) this.queue.splice(i, 1);
        resolve(false);
      };
      this.queue.push(turn);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Queries executing and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.queue.length };
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.queue.shift()?.();
    };
  }
}
