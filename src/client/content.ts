// What an object's spec holds of its blob (SPEC §2.2): the whole blob, a lean part of it
// (contentOmitted.parts: the display-only parts left out), or nothing (contentOmitted without
// parts: the blob was too large). The union makes the caller say which it accepts, so that a
// lean bundle is never taken for a whole one; the whole blob is fetched from the content server
// (contentOmitted.url) and checked against the object's content-hash annotation.
import type { CatalogMetadata, ContentPart } from '../api/v1/catalogmetadata.js';
import { ANNOTATION_CONTENT_HASH } from '../api/v1/catalogmetadata.js';
import { blobHash, canonicalize } from '../api/v1/canonical.js';
import type { AnyBlob } from './fbc-types.js';
import { typedBlob } from './fbc-types.js';
import { readLimited } from '../util/limits.js';
import { untrustedReason } from './trust.js';

/** spec.content is the whole blob. */
export interface FullContent {
  state: 'full';
  blob: AnyBlob;
}

/**
 * spec.content is the lean part of the blob: everything resolvers read (identity, package and
 * channel fields, image, relatedImages, properties other than those in `parts`); what `parts`
 * names (the package icon, olm.csv.metadata, olm.bundle.object) is only in the whole blob.
 */
export interface PartialContent {
  state: 'partial';
  partial: AnyBlob;
  parts: ContentPart[];
  /** The whole blob on the content server. */
  url: string;
  /** Size of the whole blob (canonical JSON). */
  bytes: number;
}

/** spec.content is absent: the whole blob is only on the content server. */
export interface AbsentContent {
  state: 'absent';
  url: string;
  bytes: number;
}

export type ObjectContent = FullContent | PartialContent | AbsentContent;

/**
 * What an object holds of its blob (no I/O). The blob is read as typedBlob reads it: a field of
 * the wrong JSON type is absent (fbc-types.ts).
 */
export function contentOf(obj: CatalogMetadata): ObjectContent {
  const { content, contentOmitted } = obj.spec;
  if (!contentOmitted) return { state: 'full', blob: typedBlob((content ?? {}) as AnyBlob) };
  const { url, bytes, parts } = contentOmitted;
  if (content !== undefined && Array.isArray(parts))
    return { state: 'partial', partial: typedBlob(content as AnyBlob), parts, url, bytes };
  return { state: 'absent', url, bytes };
}

/** The blob with everything resolvers read: the whole blob, or its lean part. */
export function resolverBlob(c: FullContent | PartialContent): AnyBlob {
  return c.state === 'full' ? c.blob : c.partial;
}

/** A catalog left out of an answer across catalogs, and why (one line). */
export interface CatalogFailure {
  catalog: string;
  reason: string;
}

/** An error's message, as a CatalogFailure's reason. */
export function failureReason(err: unknown): string {
  return err instanceof Error ? err.message : typeof err === 'string' ? err : 'unknown error';
}

/**
 * `read` over each catalog's objects in turn (in their order): a catalog whose read fails is left
 * out and named in `failed`, so that one catalog's content (a blob that cannot be fetched, a URL
 * that is not its own) never takes the other catalogs' answers down (SPEC §5.2). An abort is
 * thrown as it is. `read` returns one result per object, in order.
 */
export async function perCatalog<T>(
  objs: readonly CatalogMetadata[],
  read: (objs: CatalogMetadata[]) => Promise<T[]>,
  signal?: AbortSignal,
): Promise<{ results: Array<[CatalogMetadata, T]>; failed: CatalogFailure[] }> {
  const byCatalog = new Map<string, CatalogMetadata[]>();
  for (const o of objs) {
    const c = o.spec.catalog.name;
    const some = byCatalog.get(c);
    if (some) some.push(o);
    else byCatalog.set(c, [o]);
  }
  const results: Array<[CatalogMetadata, T]> = [];
  const failed: CatalogFailure[] = [];
  for (const [catalog, some] of byCatalog) {
    try {
      const got = await read(some);
      some.forEach((o, i) => results.push([o, got[i]!]));
    } catch (err) {
      if (signal?.aborted) throw err;
      failed.push({ catalog, reason: failureReason(err) });
    }
  }
  return { results, failed };
}

/** Whether the lean part left out the part at `path` (e.g. "icon"). */
export function leftOut(c: ObjectContent, path: string): boolean {
  return c.state === 'partial' && c.parts.some((p) => p.path === path);
}

/** The whole blob could not be read from the content server (unreachable, HTTP error, not there). */
export class ContentOmittedError extends Error {
  override name = 'ContentOmittedError';
}

/** The blob read from the content server is not the one the object's content-hash names. */
export class ContentHashMismatchError extends ContentOmittedError {
  override name = 'ContentHashMismatchError';
}

export interface ContentFetchOptions {
  /**
   * Where the content server is reached from here, e.g. `http://localhost:8090` through
   * `kubectl -n catalogd-system port-forward svc/catalogd-ts 8090:80`: replaces the scheme, host
   * and port of each contentOmitted.url (its path and query are kept).
   */
  serverUrl?: string;
  /** The HTTP client (default: global fetch); tests inject one. */
  fetch?: typeof fetch;
  /** Per-request limit (default 30 s). */
  timeoutMs?: number;
}

/** The URL to read: contentOmitted.url, with serverUrl's origin when given. */
export function fetchUrl(url: string, serverUrl?: string): string {
  if (serverUrl === undefined) return url;
  const u = new URL(url);
  const to = new URL(serverUrl);
  const prefix = to.pathname.replace(/\/+$/, '');
  return `${to.origin}${prefix}${u.pathname}${u.search}`;
}

/** A response larger than this (a few times the blob) is not read further. */
const responseLimit = (bytes: number) => Math.max(2 * bytes, 64 * 1024);

/**
 * The whole blob of an object whose content is partial or absent, read from the content server
 * (one metas query, a response bounded by the blob's size) and verified: its canonical sha256
 * must equal the object's content-hash annotation.
 */
export async function fetchWholeBlob(
  obj: CatalogMetadata,
  c: PartialContent | AbsentContent,
  opts: ContentFetchOptions = {},
  signal?: AbortSignal,
): Promise<AnyBlob> {
  const url = fetchUrl(c.url, opts.serverUrl);
  const what = `${obj.spec.schema} ${JSON.stringify(obj.spec.name ?? obj.spec.package ?? '')} of catalog ${obj.spec.catalog.name}`;
  let text: string;
  try {
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
    const res = await (opts.fetch ?? fetch)(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const limit = responseLimit(c.bytes);
    const tooLarge = () => new Error(`the response passed ${limit} bytes, more than the blob`);
    const body = res.body as AsyncIterable<Uint8Array> | null;
    text = body ? (await readLimited(body, limit, tooLarge)).toString('utf8') : '';
  } catch (err) {
    if (signal?.aborted) throw err;
    // An untrusted certificate is reached and answered: the port-forward hint would mislead.
    const hint = untrustedReason(err)
      ? ''
      : ". The catalog's content server must be reachable from here: from outside the cluster, port-forward it (kubectl -n catalogd-system port-forward svc/catalogd-ts 8090:80) and pass its URL (kubectl catalog --server-url http://localhost:8090; the client library's serverUrl option)";
    throw new ContentOmittedError(
      `cannot read the whole blob of ${what} (${c.bytes} bytes, ${c.state === 'partial' ? 'the object holds its lean part' : 'not in the object'}) from ${url}: ${causeText(err)}${hint}`,
    );
  }
  const blob = pickBlob(text, obj);
  if (!blob)
    throw new ContentOmittedError(
      `the content server does not serve ${what} at ${url}: the catalog may have changed since the objects were listed; try again`,
    );
  const want = obj.metadata.annotations?.[ANNOTATION_CONTENT_HASH];
  const got = blobHash(canonicalize(blob));
  if (want === undefined || got !== want)
    throw new ContentHashMismatchError(
      `the blob of ${what} read from ${url} has ${got}, but the object's ${ANNOTATION_CONTENT_HASH} is ${want ?? '<none>'}: the server serves another revision than the objects (the catalog changed, or --server-url points to another server); try again`,
    );
  return typedBlob(blob);
}

/** The line of a metas response with the object's identity (schema, package, name). */
function pickBlob(text: string, obj: CatalogMetadata): AnyBlob | undefined {
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let b: AnyBlob;
    try {
      b = JSON.parse(line) as AnyBlob;
    } catch {
      return undefined;
    }
    if (
      typeof b === 'object' &&
      b !== null &&
      b.schema === obj.spec.schema &&
      (b.package ?? '') === (obj.spec.package ?? '') &&
      (b.name ?? '') === (obj.spec.name ?? '')
    )
      return b;
  }
  return undefined;
}

/**
 * The reason of a fetch failure: an untrusted certificate said as such, else the network error's
 * code (ECONNREFUSED...) when there is one.
 */
function causeText(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'no answer in time';
  const untrusted = untrustedReason(err);
  if (untrusted) return untrusted;
  const why = e.cause?.code ?? e.cause?.message;
  return why ? `${e.message} (${why})` : (e.message ?? String(err));
}
