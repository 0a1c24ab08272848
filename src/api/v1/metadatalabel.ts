// The label olm.operatorframework.io/metadata.name=<name> on every ClusterCatalog (SPEC §2.1).
// Upstream sets it with a mutating webhook; here the controller sets it on every reconcile
// (one merge patch when it is missing or wrong), so a selector on it finds each catalog by name.
import type { ObjectMeta } from './catalogmetadata.js';
import { LABEL_METADATA_NAME } from './clustercatalog.js';

/**
 * The labels to merge-patch onto a ClusterCatalog so that it carries its name label, or
 * undefined when it already does (no write needed).
 */
export function metadataNameLabelPatch(
  meta: Pick<ObjectMeta, 'name' | 'labels'>,
): Record<string, string> | undefined {
  if (meta.labels?.[LABEL_METADATA_NAME] === meta.name) return undefined;
  return { [LABEL_METADATA_NAME]: meta.name };
}
