// Every replica serves HTTP content, not only the leader: this reconcile (run on every replica,
// not gated by leader election) makes the local store serve the revision each ClusterCatalog's
// status.urls.base names, pulling status.resolvedSource's digest (an on-disk cache hit after the
// first time). Both are upstream status fields, so another ClusterCatalog CRD (upstream's, which
// prunes contentHash) cannot make a replica serve a stale revision. It also re-activates content
// after a restart. It never writes to the apiserver.
import type { ClusterCatalog } from '../../api/v1/index.js';
import { AVAILABILITY_MODE_UNAVAILABLE, isRevisionOf, statusRevision } from '../../api/v1/index.js';
import type { ContentPublisher, Puller } from './reconcile.js';

export interface ReplicaContent extends ContentPublisher {
  /** The contentHash this replica serves for a catalog, if any. */
  served(catalog: string): string | undefined;
}

export async function replicateContent(
  name: string,
  catalog: ClusterCatalog | undefined,
  deps: { puller: Pick<Puller, 'pull'>; content: ReplicaContent },
): Promise<void> {
  const { content } = deps;
  const gone =
    !catalog ||
    catalog.metadata.deletionTimestamp !== undefined ||
    catalog.spec.availabilityMode === AVAILABILITY_MODE_UNAVAILABLE;
  if (gone) {
    if (content.served(name) !== undefined) await content.remove(name);
    return;
  }
  const revision = statusRevision(catalog.status);
  const ref = catalog.status?.resolvedSource?.image?.ref;
  const served = content.served(name);
  if (!revision || !ref || (served !== undefined && isRevisionOf(served, revision))) return;
  const pulled = await deps.puller.pull(ref);
  const lastModified = catalog.status?.lastUnpacked
    ? new Date(catalog.status.lastUnpacked)
    : new Date(0);
  await content.publish(name, revision, pulled.configsDir, lastModified);
}
