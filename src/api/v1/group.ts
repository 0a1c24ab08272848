/** API group and version of every resource this project serves. */
export const GROUP = 'olm.operatorframework.io';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/**
 * The served view's group (SPEC §2.3, docs/served.md): CatalogMetadata answered by catalogd-ts
 * itself through the aggregation layer. Its own group: the ClusterCatalog CRD owns GROUP/VERSION,
 * and one group-version has one backend.
 */
export const SERVED_GROUP = 'content.olm.operatorframework.io';
export const SERVED_API_VERSION = `${SERVED_GROUP}/${VERSION}`;

/** Where CatalogMetadata objects live: written as custom resources (crd) or served (served). */
export type ObjectView = 'crd' | 'served';
export const OBJECT_VIEWS: readonly ObjectView[] = ['crd', 'served'];
export function isObjectView(v: string): v is ObjectView {
  return (OBJECT_VIEWS as readonly string[]).includes(v);
}
