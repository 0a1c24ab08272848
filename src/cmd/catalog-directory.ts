// The GraphQL endpoint across catalogs asks which ClusterCatalogs there are, with their
// priority, availabilityMode and Serving condition (its CatalogDirectory port, src/graphql):
// answered from the ClusterCatalog controller's informer, which exists only once the controller
// is set up, after the content server started. Until then it answers no catalog.
import type { ClusterCatalog } from '../api/v1/index.js';
import { AVAILABILITY_MODE_AVAILABLE, TYPE_SERVING, findCondition } from '../api/v1/index.js';
import type { CatalogDirectory, CatalogEntry } from '../graphql/index.js';

/** A ClusterCatalog as the endpoint across catalogs sees it (defaults as the CRD gives them). */
export function catalogEntry(c: ClusterCatalog): CatalogEntry {
  return {
    name: c.metadata.name,
    priority: c.spec.priority ?? 0,
    availabilityMode: c.spec.availabilityMode ?? AVAILABILITY_MODE_AVAILABLE,
    serving: findCondition(c.status?.conditions, TYPE_SERVING)?.status === 'True',
  };
}

export class InformerCatalogDirectory implements CatalogDirectory {
  private source: () => Iterable<ClusterCatalog> = () => [];

  /** The informer's catalogs, once there is one. */
  readFrom(source: () => Iterable<ClusterCatalog>): void {
    this.source = source;
  }

  catalogs(): CatalogEntry[] {
    return [...this.source()].map(catalogEntry);
  }
}
