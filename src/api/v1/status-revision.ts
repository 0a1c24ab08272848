// Which revision of a catalog a ClusterCatalog's status names: read by every replica's content
// replicator (what to serve) and by the served API (what to answer from), so both agree.
import type { ClusterCatalogStatus } from './clustercatalog.js';
import { revisionKeyOf } from './revision-url.js';

/**
 * The revision a status names: the key in urls.base, else (a status written before revision
 * URLs) its contentHash.
 */
export function statusRevision(status: ClusterCatalogStatus | undefined): string | undefined {
  return revisionKeyOf(status?.urls?.base) ?? status?.contentHash;
}
