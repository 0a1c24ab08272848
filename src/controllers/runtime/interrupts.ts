// Interrupting one key's reconcile in flight: the runtime gives every reconcile a signal of its
// own key, which aborts when something outside says the work has become moot (the object was
// deleted or its spec changed), so that a slow reconcile stops within moments instead of
// finishing work for a state that no longer exists.

/** Why a reconcile was interrupted (the signal's reason): never the key's failure. */
export class KeyInterrupted extends Error {
  override readonly name = 'KeyInterrupted';
  constructor(
    readonly key: string,
    readonly why: string,
  ) {
    super(`${key}: ${why}`);
  }
}

export class KeyInterrupts {
  readonly #inFlight = new Map<string, AbortController>();

  /** A reconcile of key starts: its interrupt signal. */
  begin(key: string): AbortSignal {
    const c = new AbortController();
    this.#inFlight.set(key, c);
    return c.signal;
  }

  end(key: string): void {
    this.#inFlight.delete(key);
  }

  /** Aborts key's reconcile in flight, if there is one; returns whether there was. */
  interrupt(key: string, why: string): boolean {
    const c = this.#inFlight.get(key);
    if (!c || c.signal.aborted) return false;
    c.abort(new KeyInterrupted(key, why));
    return true;
  }
}
