// The one error model of the project, after controller-runtime's reconcile.TerminalError:
// whether an error is terminal (only a spec change can fix it, so retrying is pointless) travels
// in its cause chain, as a TerminalError somewhere in it. Every layer that knows an error is
// terminal wraps it (or throws one); every layer that decides what to do next asks isTerminal.
// A leaf module: src/source, src/fbc, src/sync and src/controllers import it; it imports nothing.

/** How deep cause chains are followed: a guard against cycles, far above any real chain. */
const MAX_CHAIN_DEPTH = 16;

/** err and its causes, outermost first. */
export function* causes(err: unknown): Generator<unknown> {
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < MAX_CHAIN_DEPTH; depth++) {
    yield e;
    e = e instanceof Error ? e.cause : undefined;
  }
}

/** The first error in err's cause chain that is an instance of type, if any. */
export function findInChain<T>(
  err: unknown,
  type: abstract new (...args: never[]) => T,
): T | undefined {
  for (const e of causes(err)) if (e instanceof type) return e;
  return undefined;
}

/**
 * An error that retrying cannot fix (only a change of the object can): it is reported, and the
 * work queue does not requeue the key. Wrap a classified error with `TerminalError.wrap(err)`.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }

  /** err marked terminal; the message is err's own, so message chains say it once. */
  static wrap(err: unknown): TerminalError {
    return new TerminalError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** Whether only a spec change can fix err: a TerminalError is somewhere in its cause chain. */
export function isTerminal(err: unknown): boolean {
  return findInChain(err, TerminalError) !== undefined;
}

/**
 * The first error in err's cause chain about content that a digest names (an image's layers,
 * config or signatures), if any: such an error carries `contentFault: true`, set by the layer
 * that knows what content is (src/source's SourceError).
 */
export function contentFault(err: unknown): Error | undefined {
  for (const e of causes(err)) {
    if ((e as { contentFault?: unknown }).contentFault === true) return e as Error;
  }
  return undefined;
}

/**
 * err with the finality the user's reference gives it, the one rule for the puller and the
 * reconcile: an error about content (contentFault) is terminal when the reference pins a digest
 * (that content can never change) and retryable when it names a tag (which may be re-pushed);
 * other errors keep theirs. The message is kept.
 */
export function withContentFinality(err: unknown, pinsDigest: boolean): unknown {
  const fault = contentFault(err);
  if (!fault) return err;
  if (pinsDigest) return isTerminal(err) ? err : TerminalError.wrap(err);
  return isTerminal(err) ? new Error((err as Error).message, { cause: fault }) : err;
}

/** The messages of an error and its causes, joined as `outer: inner: …`, each said once. */
export function errorChain(err: unknown): string {
  const parts: string[] = [];
  for (const e of causes(err)) {
    const msg = e instanceof Error ? e.message : String(e);
    const last = parts[parts.length - 1];
    if (msg && !(last !== undefined && last.includes(msg))) parts.push(msg);
  }
  return parts.join(': ');
}

/** The first string `code` in err's cause chain (Node's ECONNREFUSED, EMFILE, ...), if any. */
export function errorCode(err: unknown): string | undefined {
  for (const e of causes(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
  }
  return undefined;
}
