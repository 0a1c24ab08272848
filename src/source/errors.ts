// Errors of the source (pull/push) layer, classified for the controller: a terminal error can only
// be fixed by a spec change (bad reference, a digest that does not exist, an image whose content
// can never be unpacked); a retryable one may go away by itself (network, 5xx, 429, auth server
// down, credentials not yet present, a tag that does not exist yet). Messages are deterministic:
// they name the image reference the user wrote, never ephemeral ports or temp paths.
import { errorCode, findInChain, isTerminal, TerminalError } from '../util/errors.js';

export type SourceErrorCode =
  | 'InvalidReference'
  | 'InvalidConfig'
  | 'NotFound'
  | 'Unauthorized'
  | 'Unavailable'
  | 'BadResponse'
  | 'DigestMismatch'
  | 'SizeMismatch'
  | 'UnsupportedMediaType'
  | 'NoMatchingPlatform'
  | 'CatalogDirMissing'
  | 'UnsafeLayer'
  | 'InvalidLayer'
  | 'LimitExceeded'
  | 'CacheFull'
  | 'Timeout'
  | 'SignatureRejected';

/**
 * A classified source error: its code says what went wrong. Whether it is terminal is not a
 * property of this class: terminal ones are wrapped in a TerminalError (see terminal()), so
 * that isTerminal(err) answers the same way for every layer.
 */
export class SourceError extends Error {
  override readonly name = 'SourceError';
  constructor(
    readonly code: SourceErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether it is about the image's content (IMAGE_CONTENT_ERRORS; util/errors' contentFault). */
  get contentFault(): boolean {
    return IMAGE_CONTENT_ERRORS.has(this.code);
  }
}

/** A SourceError that only a spec change can fix: wrapped in TerminalError. */
export function terminal(code: SourceErrorCode, message: string, cause?: unknown): TerminalError {
  return TerminalError.wrap(
    new SourceError(code, message, cause === undefined ? undefined : { cause }),
  );
}

/** A SourceError that may go away by itself. */
export function retryable(code: SourceErrorCode, message: string, cause?: unknown): SourceError {
  return new SourceError(code, message, cause === undefined ? undefined : { cause });
}

/**
 * Errors about an image's content (its layers, config, platforms, a blob that disagrees with its
 * descriptor): final for the digest, but the tag that named it may be re-pushed
 * (withContentFinality in src/util/errors.ts).
 */
const IMAGE_CONTENT_ERRORS: ReadonlySet<SourceErrorCode> = new Set<SourceErrorCode>([
  'UnsafeLayer',
  'InvalidLayer',
  'LimitExceeded',
  'CatalogDirMissing',
  'NoMatchingPlatform',
  'UnsupportedMediaType',
  'SizeMismatch',
  'DigestMismatch',
  // The signatures of a digest may be added later, under a tag a signed image may be pushed.
  'SignatureRejected',
]);

/** The first SourceError in err's cause chain, if any. */
export function findSourceError(err: unknown): SourceError | undefined {
  return findInChain(err, SourceError);
}

/** p's value, or undefined when it fails with NotFound (the registry has no such object). */
export async function unlessNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (findSourceError(err)?.code === 'NotFound') return undefined;
    throw err;
  }
}

/** Whether retrying later may succeed (no TerminalError in err's cause chain). */
export function isRetryable(err: unknown): boolean {
  return !isTerminal(err);
}

export { isTerminal };

/** A short, deterministic name for a Node network error (ECONNREFUSED, ...), never its message. */
export function networkErrorCode(err: unknown): string {
  return errorCode(err) ?? 'network error';
}

/** A network error as a cause: its code alone (NetworkError). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * err as the cause of a SourceError, saying no more than its code: a Node network error's message
 * names the address and port it tried (a redirect's target), a TLS error's the certificate's names
 * (the remote's text), and messages reach ClusterCatalog status through the cause chain. Errors of
 * ours (SourceError, an abort's reason, a deadline) are kept as they are.
 */
export function networkCause(err: unknown): unknown {
  const code = errorCode(err);
  if (code === undefined || code === 'ABORT_ERR' || findSourceError(err)) return err;
  return new NetworkError(code);
}
