// Maps a reconcile failure to its retry class and a deterministic message for status.
// Terminal: only a spec change can fix it (Progressing=False/Blocked, no retry).
// Otherwise: Progressing=True/Retrying and a retry with backoff.
import { FbcError } from '../../fbc/index.js';
import { findSourceError } from '../../source/index.js';

/** The messages of an error and its causes, joined as `outer: inner: …`, each said once. */
export function errorChain(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && depth < 8; depth++) {
    const msg = e instanceof Error ? e.message : String(e);
    const last = parts[parts.length - 1];
    if (msg && !(last !== undefined && last.includes(msg))) parts.push(msg);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(': ');
}

function findFbcError(err: unknown): FbcError | undefined {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 8; e = e.cause, i++) {
    if (e instanceof FbcError) return e;
  }
  return undefined;
}

export function classifyError(
  err: unknown,
  ctx: { digestRef: boolean },
): { terminal: boolean; message: string } {
  const message = errorChain(err).slice(0, 4096);
  const source = findSourceError(err);
  if (source) return { terminal: !source.retryable, message };
  // The content of an image never changes under a digest; under a tag it may be re-pushed.
  if (findFbcError(err)) return { terminal: ctx.digestRef, message };
  return { terminal: false, message };
}
