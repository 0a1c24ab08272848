// The revision a ClusterCatalog's status.urls.base names (docs/api.md, "status.urls.base"):
// `<server>/catalogs/<name>/revisions/<key>`, the key being the first REVISION_KEY_HEX hex digits
// of the contentHash. urls.base is an upstream status field, so it survives any ClusterCatalog CRD
// (upstream's prunes contentHash): replicas read the revision to serve from it, and a client that
// fetches from it gets that revision or a retryable answer, never another revision.

/** The path segment before a revision key. */
export const REVISION_SEGMENT = 'revisions';

/**
 * Hex digits of the contentHash in a revision URL: 64 bits, enough to tell one catalog's
 * revisions apart (a replica compares the key with the full contentHash it built).
 */
export const REVISION_KEY_HEX = 16;

const REVISION_KEY = new RegExp(`^[0-9a-f]{${REVISION_KEY_HEX}}$`);
const CONTENT_HASH = /^sha256:([0-9a-f]{64})$/;
const BASE_WITH_KEY = new RegExp(`/${REVISION_SEGMENT}/([0-9a-f]{${REVISION_KEY_HEX}})/?$`);

/** The key of a `sha256:<hex>` contentHash in revision URLs. */
export function revisionKey(contentHash: string): string {
  const m = CONTENT_HASH.exec(contentHash);
  if (!m) throw new Error(`invalid content hash ${JSON.stringify(contentHash)}`);
  return m[1]!.slice(0, REVISION_KEY_HEX);
}

export function isRevisionKey(s: string): boolean {
  return REVISION_KEY.test(s);
}

/** `<catalogBase>/revisions/<key>`: the status.urls.base of a catalog serving `contentHash`. */
export function revisionBaseUrl(catalogBase: string, contentHash: string): string {
  return `${catalogBase.replace(/\/+$/, '')}/${REVISION_SEGMENT}/${revisionKey(contentHash)}`;
}

/** The revision key a status.urls.base names, if it is a revision URL. */
export function revisionKeyOf(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  let pathname: string;
  try {
    pathname = new URL(baseUrl).pathname;
  } catch {
    return undefined;
  }
  return BASE_WITH_KEY.exec(pathname)?.[1];
}

/**
 * Whether `revision` names this contentHash: `revision` is a contentHash (equal) or a revision
 * key (its prefix).
 */
export function isRevisionOf(contentHash: string, revision: string): boolean {
  if (CONTENT_HASH.test(revision)) return revision === contentHash;
  return isRevisionKey(revision) && contentHash.startsWith(`sha256:${revision}`);
}
