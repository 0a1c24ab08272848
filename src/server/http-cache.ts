// HTTP validators and content negotiation for the content server (RFC 9110 §8.8, §13, §12.5.3).
// Pure functions over header values.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The hex part of a `sha256:<hex>` content hash. */
export function contentHashHex(contentHash: string): string {
  const m = /^sha256:([0-9a-f]{64})$/.exec(contentHash);
  if (!m) throw new Error(`invalid content hash ${JSON.stringify(contentHash)}`);
  return m[1]!;
}

/** The opaque tag of /api/v1/all: the revision's content hash (hex). */
export function allEntityTag(contentHash: string): string {
  return contentHashHex(contentHash);
}

/** The opaque tag of a metas answer: sha256 of the content hash and the normalized query. */
export function metasEntityTag(contentHash: string, normalizedQuery: string): string {
  return createHash('sha256').update(`${contentHash}\n${normalizedQuery}`).digest('hex');
}

/**
 * The ETag header value of one representation. A gzip body is a different sequence of bytes,
 * so it carries its own strong tag (`-gzip` suffix), as a strong validator must.
 */
export function etagHeader(tag: string, gzip: boolean): string {
  return `"${tag}${gzip ? '-gzip' : ''}"`;
}

/**
 * Whether an If-None-Match value matches (weak comparison, as the RFC requires for this header).
 * A tag given for either coding of the same content matches: both are current.
 */
export function ifNoneMatchMatches(header: string, tag: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  for (const part of value.split(',')) {
    let t = part.trim();
    if (t.startsWith('W/')) t = t.slice(2);
    if (t.length < 2 || !t.startsWith('"') || !t.endsWith('"')) continue;
    t = t.slice(1, -1);
    if (t.endsWith('-gzip')) t = t.slice(0, -'-gzip'.length);
    if (t === tag) return true;
  }
  return false;
}

/** Last-Modified has one-second resolution; comparisons use the truncated time. */
export function httpDate(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString();
}

export interface ConditionalHeaders {
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
}

/**
 * Whether a GET/HEAD is answered with 304 Not Modified. If-None-Match, when present, decides
 * alone; If-Modified-Since is used only without it, and an unparsable date is ignored.
 */
export function isNotModified(h: ConditionalHeaders, tag: string, lastModified: Date): boolean {
  if (h.ifNoneMatch !== undefined) return ifNoneMatchMatches(h.ifNoneMatch, tag);
  if (h.ifModifiedSince === undefined) return false;
  const since = Date.parse(h.ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/** isNotModified over a request's If-None-Match and If-Modified-Since headers. */
export function requestIsNotModified(
  headers: IncomingHttpHeaders,
  tag: string,
  lastModified: Date,
): boolean {
  const conditional = {
    ifNoneMatch: headers['if-none-match'],
    ifModifiedSince: headers['if-modified-since'],
  };
  return isNotModified(conditional, tag, lastModified);
}

/**
 * Whether the client accepts a gzip body: `gzip` (or `x-gzip`) with a non-zero weight, or `*`
 * with a non-zero weight when gzip is not named.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  let star: boolean | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [coding, ...params] = part.trim().split(';');
    const name = coding!.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (name === 'gzip' || name === 'x-gzip') return q > 0;
    if (name === '*') star = q > 0;
  }
  return star === true;
}
