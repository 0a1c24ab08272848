// Errors of the source (pull/push) layer, classified for the controller: a terminal error can only
// be fixed by a spec change (bad reference, a digest that does not exist, an image whose content
// can never be unpacked); a retryable one may go away by itself (network, 5xx, 429, auth server
// down, credentials not yet present, a tag that does not exist yet). Messages are deterministic:
// they name the image reference the user wrote, never ephemeral ports or temp paths.

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
  | 'LimitExceeded';

export class SourceError extends Error {
  override readonly name = 'SourceError';
  constructor(
    readonly code: SourceErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The same error with another retry class (e.g. content errors of a tag ref are retryable). */
  withRetryable(retryable: boolean): SourceError {
    if (retryable === this.retryable) return this;
    return new SourceError(this.code, this.message, retryable, { cause: this.cause });
  }
}

export function terminal(code: SourceErrorCode, message: string, cause?: unknown): SourceError {
  return new SourceError(code, message, false, cause === undefined ? undefined : { cause });
}

export function retryable(code: SourceErrorCode, message: string, cause?: unknown): SourceError {
  return new SourceError(code, message, true, cause === undefined ? undefined : { cause });
}

/** The first SourceError in err's cause chain, if any. */
export function findSourceError(err: unknown): SourceError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 16; depth++) {
    if (e instanceof SourceError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

/** Whether retrying later may succeed. Errors not classified by this layer count as retryable. */
export function isRetryable(err: unknown): boolean {
  return findSourceError(err)?.retryable ?? true;
}

/** Whether only a spec change can fix the error. */
export function isTerminal(err: unknown): boolean {
  return !isRetryable(err);
}

/** A short, deterministic name for a Node network error (ECONNREFUSED, ...), never its message. */
export function networkErrorCode(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    e = e instanceof Error ? e.cause : undefined;
  }
  return 'network error';
}
