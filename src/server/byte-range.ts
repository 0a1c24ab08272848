// Single byte ranges of a whole-catalog body (RFC 9110 §14): what Go's http.ServeContent, and so
// upstream catalogd, answers for /api/v1/all. One range only; a list of ranges, or a header that
// does not parse, is ignored (the whole body is sent), as the RFC allows.

/** `[start, end)` of the body, or the whole body's size for a range no byte of it satisfies. */
export type RangeAnswer =
  { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' } | { kind: 'whole' };

const SPEC = /^bytes=(\d*)-(\d*)$/i;

/** The part of a body of `size` bytes that a `Range` header asks for. */
export function parseByteRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const m = SPEC.exec(header.trim());
  if (!m) return { kind: 'whole' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // A suffix: the last N bytes.
    const n = Number(last);
    if (n === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - n), end: size };
  }
  const start = Number(first);
  const end = last === '' ? size : Math.min(size, Number(last) + 1);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end };
}

/**
 * Whether a request's `If-Range` lets its Range apply: absent, the body's strong ETag, or its
 * Last-Modified date exactly (RFC 9110 §13.1.5). Otherwise the whole body is sent.
 */
export function ifRangeHolds(
  ifRange: string | undefined,
  etag: string,
  lastModified: string,
): boolean {
  if (ifRange === undefined) return true;
  const v = ifRange.trim();
  if (v.startsWith('"') || v.startsWith('W/')) return v === etag;
  return v === lastModified;
}

export function contentRange(start: number, end: number, size: number): string {
  return `bytes ${start}-${end - 1}/${size}`;
}
