// Which ClusterCatalog updates need a reconcile. Its own status writes come back as watch
// events; reconciling on them would bypass the retry backoff after a failure and cost a
// no-op reconcile after every sync. What matters: the spec (generation), deletion, and the
// metadata the controller keeps (the metadata.name label, the finalizer).
import type { ClusterCatalog } from '../../api/v1/index.js';
import { LABEL_METADATA_NAME } from '../../api/v1/index.js';

export function catalogNeedsReconcile(old: ClusterCatalog, obj: ClusterCatalog): boolean {
  const a = old.metadata;
  const b = obj.metadata;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    a.labels?.[LABEL_METADATA_NAME] !== b.labels?.[LABEL_METADATA_NAME] ||
    JSON.stringify(a.finalizers ?? []) !== JSON.stringify(b.finalizers ?? [])
  );
}
