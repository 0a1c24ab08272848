// CatalogMetadata queries: the label selector the apiserver filters by, and the exact check of
// spec fields done client-side (a label value may be a hash-encoded form of a long or unusual
// value, so two values can in principle share a label; spec always holds the exact value).
import {
  LABEL_CATALOG,
  LABEL_NAME,
  LABEL_PACKAGE,
  LABEL_PACKAGE_OR_NAME,
  LABEL_SCHEMA,
  labelValue,
} from '../api/v1/index.js';
import type { CatalogMetadataSpec } from '../api/v1/index.js';

export interface MetadataQuery {
  /** The ClusterCatalog; all catalogs when absent. */
  catalog?: string;
  /** One schema, or any of several (a set-based `schema in (...)` selector). */
  schema?: string | readonly string[];
  /** The blob's package field (olm.channel, olm.bundle, olm.deprecations). */
  package?: string;
  /** The blob's name field. */
  name?: string;
  /** package if the blob has one, else name: selects an olm.package blob together with its package's blobs. */
  packageOrName?: string;
}

function schemas(q: MetadataQuery): readonly string[] | undefined {
  if (q.schema === undefined) return undefined;
  return typeof q.schema === 'string' ? [q.schema] : q.schema;
}

/** The label selector of a query (empty string: everything). */
export function metadataSelector(q: MetadataQuery): string {
  const terms: string[] = [];
  if (q.catalog !== undefined) terms.push(`${LABEL_CATALOG}=${labelValue(q.catalog)}`);
  const s = schemas(q);
  if (s !== undefined) {
    if (s.length === 1) terms.push(`${LABEL_SCHEMA}=${labelValue(s[0]!)}`);
    else terms.push(`${LABEL_SCHEMA} in (${[...new Set(s.map(labelValue))].sort().join(',')})`);
  }
  if (q.package !== undefined) terms.push(`${LABEL_PACKAGE}=${labelValue(q.package)}`);
  if (q.name !== undefined) terms.push(`${LABEL_NAME}=${labelValue(q.name)}`);
  if (q.packageOrName !== undefined)
    terms.push(`${LABEL_PACKAGE_OR_NAME}=${labelValue(q.packageOrName)}`);
  return terms.join(',');
}

/** Whether an object's spec matches the query exactly. */
export function matchesQuery(spec: CatalogMetadataSpec | undefined, q: MetadataQuery): boolean {
  if (!spec) return false;
  if (q.catalog !== undefined && spec.catalog?.name !== q.catalog) return false;
  const s = schemas(q);
  if (s !== undefined && s.length > 0 && !s.includes(spec.schema)) return false;
  if (q.package !== undefined && spec.package !== q.package) return false;
  if (q.name !== undefined && spec.name !== q.name) return false;
  if (q.packageOrName !== undefined && (spec.package || spec.name) !== q.packageOrName)
    return false;
  return true;
}
