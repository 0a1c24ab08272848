// Errors of FBC parsing. Every error says which file and where, so that a catalog author can
// fix it from the message alone; messages are deterministic (relative paths, no temp dirs).
// File names come from the catalog image, so from whoever built it: a name that is not plain
// (a newline, an escape, a quote, a space, a colon) is quoted as a JSON string (displayName),
// so that no name forges a line or a position.
import { displayName } from '../util/terminal-text.js';

/**
 * How a caller should react: `content` errors are properties of the catalog's bytes and repeat
 * until the content changes (a digest-pinned catalog is Blocked); `io` errors may pass on retry.
 */
export type FbcRetryClass = 'content' | 'io';

/** Where in a file something is: 1-based line and column (in characters) and 0-based byte offset. */
export interface SourcePosition {
  /** Path relative to the catalog root, `/`-separated. */
  file: string;
  line: number;
  column: number;
  offset: number;
}

/** `file:line:column`, the file as displayName shows it. */
export function formatPosition(p: SourcePosition): string {
  return `${displayName(p.file)}:${p.line}:${p.column}`;
}

export class FbcError extends Error {
  override readonly name = 'FbcError';
  readonly retryClass: FbcRetryClass;
  readonly position: SourcePosition | undefined;
  /** The message without the position prefix. */
  readonly reason: string;

  constructor(
    reason: string,
    opts: {
      position?: SourcePosition;
      file?: string;
      retryClass?: FbcRetryClass;
      cause?: unknown;
    } = {},
  ) {
    const where = opts.position
      ? formatPosition(opts.position)
      : opts.file !== undefined
        ? displayName(opts.file)
        : undefined;
    super(
      where ? `${where}: ${reason}` : reason,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.reason = reason;
    this.position = opts.position;
    this.retryClass = opts.retryClass ?? 'content';
  }
}
