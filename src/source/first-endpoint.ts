// The endpoints of an image reference tried in order, mirrors from the registries config before
// the registry itself: the first that succeeds answers, a mirror's failure falls through to the
// next, and when all fail the error joins their messages (terminal only if every one was).
import { isTerminal, TerminalError } from '../util/errors.js';
import { findSourceError, SourceError } from './errors.js';
import type { ImageReference } from './reference.js';
import { endpointsFor, type Endpoint, type RegistriesConfig } from './registries-conf.js';

/** Runs op against each endpoint in order until one succeeds; mirrors' failures fall through. */
export async function firstEndpoint<T>(
  registries: RegistriesConfig,
  ref: ImageReference,
  input: string,
  signal: AbortSignal | undefined,
  op: (ep: Endpoint, what: string) => Promise<T>,
): Promise<{ value: T; ep: Endpoint }> {
  const eps = endpointsFor(registries, ref);
  const failures: { err: unknown; source: SourceError }[] = [];
  let mirrorNo = 0;
  for (const ep of eps) {
    const what = ep.mirror ? `${input} (mirror ${++mirrorNo})` : input;
    try {
      return { value: await op(ep, what), ep };
    } catch (err) {
      // Aborted: no other endpoint is tried.
      if (signal?.aborted) throw signal.reason;
      const source = findSourceError(err);
      if (!source) throw err;
      failures.push({ err, source });
    }
  }
  const last = failures.at(-1)!;
  if (failures.length === 1) throw last.err;
  // Terminal only if every endpoint said so: a mirror that is merely down may come back.
  const joined = new SourceError(
    last.source.code,
    failures.map((f) => f.source.message).join('; '),
    { cause: last.source },
  );
  throw failures.every((f) => isTerminal(f.err)) ? TerminalError.wrap(joined) : joined;
}
