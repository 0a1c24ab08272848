// What the endpoint across catalogs needs to know of the ClusterCatalogs that the content
// server does not: each catalog's priority, availabilityMode and Serving condition. A port the
// GraphQL layer owns; the controller's wiring plugs its ClusterCatalog informer into it
// (src/cmd/controller-parts.ts), tests a list.

/** One ClusterCatalog as the endpoint across catalogs sees it. */
export interface CatalogEntry {
  name: string;
  /** spec.priority (default 0): higher first. */
  priority: number;
  /** spec.availabilityMode (default Available): Unavailable catalogs are left out. */
  availabilityMode: string;
  /** Whether its Serving condition is True (else it is named in the answer's errors). */
  serving: boolean;
}

export interface CatalogDirectory {
  /** Every ClusterCatalog, in any order. */
  catalogs(): readonly CatalogEntry[];
}

/** Priority, higher first, then name: the order of the answers across catalogs. */
export function byPriority(a: CatalogEntry, b: CatalogEntry): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The catalogs a query across catalogs reads, as operator-controller reads them: Unavailable
 * ones left out (its CatalogWalker drops them), the others by priority; a catalog that is not
 * Serving is kept, to be named in the answer's errors (its catalog client refuses one).
 */
export function catalogsToRead(all: readonly CatalogEntry[]): CatalogEntry[] {
  return all.filter((c) => c.availabilityMode !== 'Unavailable').sort(byPriority);
}
