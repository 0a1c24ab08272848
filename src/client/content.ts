// What an object's spec holds of its blob (SPEC §2.2): the whole blob, a lean part of it
// (contentOmitted.parts: the display-only parts left out), or nothing (contentOmitted without
// parts: the blob was too large). The union makes the caller say which it accepts, so that a
// lean bundle is never taken for a whole one; the whole blob is fetched from the content server
// (contentOmitted.url) and checked against the object's content-hash annotation.
//
// contentOmitted.url is followed only when it is the metas endpoint under the catalog's own
// status.urls.base (SPEC §5.2: "URLs found in objects are followed only to the catalog's own
// base"): an object can be written by anyone allowed to, and a URL under the apiserver's is
// fetched with the user's kube credentials (trust.ts). Any other URL is not requested at all.
import type { CatalogMetadata, ContentPart } from '../api/v1/catalogmetadata.js';
import type { ClusterCatalog } from '../api/v1/clustercatalog.js';
import { ANNOTATION_CONTENT_HASH } from '../api/v1/catalogmetadata.js';
import { blobHash, canonicalize } from '../api/v1/canonical.js';
import type { AnyBlob } from '../answers/fbc-types.js';
import { typedBlob } from '../answers/fbc-types.js';
import { readLimited } from '../util/limits.js';
import { fetchFailureReason, untrustedReason } from './trust.js';

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

/**
 * The object's contentOmitted.url is not the catalog's own (not under its status.urls.base):
 * nothing was requested.
 */
export class ContentUrlRefusedError extends ContentOmittedError {
  override name = 'ContentUrlRefusedError';
}

/**
 * A status.urls.base names a revision, `<catalog URL>/revisions/<key>` (api/v1/revision-url.ts,
 * which the client's entry point does not load: content.test.ts checks the two agree).
 */
const REVISION_SUFFIX = /\/revisions\/[0-9a-f]{16}$/;

/**
 * Whether `url` is the content server's metas endpoint of the catalog whose status.urls.base is
 * `base`: `<catalog URL>/api/v1/metas?...` (the URL the controller writes, server's blobUrl;
 * the catalog URL is the base without its `/revisions/<key>`), or the same under the revision's
 * base. http(s), the same origin, exactly that path once the URL is parsed (dot segments
 * resolved), no user information, no fragment.
 */
export function isCatalogContentUrl(url: string, base: string | undefined): boolean {
  if (base === undefined || !URL.canParse(url) || !URL.canParse(base)) return false;
  const u = new URL(url);
  const b = new URL(base);
  const revision = b.pathname.replace(/\/+$/, '');
  const catalog = revision.replace(REVISION_SUFFIX, '');
  return (
    (u.protocol === 'http:' || u.protocol === 'https:') &&
    u.origin === b.origin &&
    u.username === '' &&
    u.password === '' &&
    u.hash === '' &&
    (u.pathname === `${catalog}/api/v1/metas` || u.pathname === `${revision}/api/v1/metas`)
  );
}

/**
 * Every catalog's status.urls.base as the client last read it: the consistent list reads every
 * status it covers (saw); a catalog not seen yet, or whose object names a URL under another
 * base (the base may have changed since), is read again (`read`: one GET).
 */
export class CatalogBases {
  private readonly known = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly read: (
      catalog: string,
      signal?: AbortSignal,
    ) => Promise<ClusterCatalog | undefined>,
  ) {}

  saw(c: ClusterCatalog): void {
    this.known.set(c.metadata.name, Promise.resolve(c.status?.urls?.base));
  }

  /** The catalog's base; `fresh`: read again. */
  async of(catalog: string, fresh = false, signal?: AbortSignal): Promise<string | undefined> {
    let base = fresh ? undefined : this.known.get(catalog);
    if (base === undefined) {
      base = this.read(catalog, signal).then((c) => c?.status?.urls?.base);
      this.known.set(catalog, base);
      // A failed read is not kept: the next blob asks again.
      base.catch(() => this.known.delete(catalog));
    }
    return base;
  }
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
  /**
   * The catalog's status.urls.base (`fresh`: read again, not as cached): an object's
   * contentOmitted.url is fetched only when it is under it (isCatalogContentUrl). Without this
   * option no URL is known to be the catalog's, and nothing is fetched.
   */
  catalogBase?: (
    catalog: string,
    fresh: boolean,
    signal?: AbortSignal,
  ) => Promise<string | undefined>;
}

/** A URL as an error names it: quoted, and not longer than a line. */
function urlText(url: string): string {
  return JSON.stringify(url.length > 200 ? `${url.slice(0, 200)}...` : url);
}

/**
 * The object's contentOmitted.url, parsed, when it is under the catalog's own status.urls.base
 * (the cached base first, then the catalog read again); ContentUrlRefusedError otherwise.
 */
async function ownContentUrl(
  obj: CatalogMetadata,
  url: string,
  what: string,
  opts: ContentFetchOptions,
  signal?: AbortSignal,
): Promise<string> {
  const catalog = obj.spec.catalog.name;
  let base: string | undefined;
  try {
    base = await opts.catalogBase?.(catalog, false, signal);
    if (base !== undefined && !isCatalogContentUrl(url, base))
      base = await opts.catalogBase?.(catalog, true, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ContentOmittedError(
      `cannot read the whole blob of ${what}: cannot read ClusterCatalog ${JSON.stringify(catalog)}'s status.urls.base, the only place its content is read from: ${fetchFailureReason(err)}`,
    );
  }
  if (!isCatalogContentUrl(url, base))
    throw new ContentUrlRefusedError(
      `the whole blob of ${what} is unavailable: its contentOmitted.url ${urlText(url)} is not a content URL of ClusterCatalog ${JSON.stringify(catalog)} (status.urls.base: ${base === undefined ? 'none' : urlText(base)}), the only place its content is read from; nothing was requested`,
    );
  return new URL(url).href;
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
  const what = `${obj.spec.schema} ${JSON.stringify(obj.spec.name ?? obj.spec.package ?? '')} of catalog ${obj.spec.catalog.name}`;
  const url = fetchUrl(await ownContentUrl(obj, c.url, what, opts, signal), opts.serverUrl);
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
      `cannot read the whole blob of ${what} (${c.bytes} bytes, ${c.state === 'partial' ? 'the object holds its lean part' : 'not in the object'}) from ${url}: ${fetchFailureReason(err)}${hint}`,
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
