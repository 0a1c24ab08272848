// CatalogMetadata queries: the selectors the apiserver filters by, and the exact check of spec
// fields done client-side. A value that is a valid label value is selected by its label; a
// value whose label is hash-encoded (too long, or characters a label may not hold) is selected
// by a field selector on the exact spec field (the CRD's selectableFields), so the apiserver
// returns exactly its objects. The spec check stays: it is free and keeps the results exact
// whatever the server did.
import {
  FIELD_CATALOG,
  FIELD_NAME,
  FIELD_PACKAGE,
  FIELD_SCHEMA,
  LABEL_CATALOG,
  LABEL_NAME,
  LABEL_PACKAGE,
  LABEL_PACKAGE_OR_NAME,
  LABEL_SCHEMA,
} from '../api/v1/catalogmetadata.js';
import type { CatalogMetadataSpec } from '../api/v1/catalogmetadata.js';
import { isValidLabelValue, labelValue } from '../api/v1/identity.js';

export interface MetadataQuery {
  /** The ClusterCatalog; all catalogs when absent. */
  catalog?: string;
  /** One schema, or any of several (a set-based `schema in (...)` selector). */
  schema?: string | readonly string[];
  /** The blob's package field (olm.channel, olm.bundle, olm.deprecations). */
  package?: string;
  /** The blob's name field; or any of several (a set-based `name in (...)` selector). */
  name?: string | readonly string[];
  /** package if the blob has one, else name: selects an olm.package blob together with its package's blobs. */
  packageOrName?: string;
}

/** The two selectors of a list or watch; an empty string selects everything. */
export interface MetadataSelectors {
  labelSelector: string;
  fieldSelector: string;
}

function schemas(q: MetadataQuery): readonly string[] | undefined {
  if (q.schema === undefined) return undefined;
  return typeof q.schema === 'string' ? [q.schema] : q.schema;
}

/** `key in (a,b)`: the values label-encoded, deduplicated and sorted. */
function setTerm(key: string, values: readonly string[]): string {
  return `${key} in (${[...new Set(values.map(labelValue))].sort().join(',')})`;
}

/** A field selector value as the apiserver parses it (fields.EscapeValue: `\`, `,` and `=`). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * The label and field selectors of a query: each exact-value term by its label when the value
 * is a valid label value, else by its spec field. `schema in (...)` and packageOrName have no
 * field form and always use labels (encoded when needed; the spec check makes them exact), as
 * does a set of names (`name in (...)`).
 */
export function metadataSelectors(q: MetadataQuery): MetadataSelectors {
  const labels: string[] = [];
  const fields: string[] = [];
  const exact = (label: string, field: string, value: string | undefined) => {
    if (value === undefined) return;
    if (isValidLabelValue(value)) labels.push(`${label}=${value}`);
    else fields.push(`${field}=${escapeFieldValue(value)}`);
  };
  exact(LABEL_CATALOG, FIELD_CATALOG, q.catalog);
  const s = schemas(q);
  if (s !== undefined) {
    if (s.length === 1) exact(LABEL_SCHEMA, FIELD_SCHEMA, s[0]);
    else labels.push(setTerm(LABEL_SCHEMA, s));
  }
  exact(LABEL_PACKAGE, FIELD_PACKAGE, q.package);
  if (typeof q.name === 'string') exact(LABEL_NAME, FIELD_NAME, q.name);
  else if (q.name !== undefined) labels.push(setTerm(LABEL_NAME, q.name));
  if (q.packageOrName !== undefined)
    labels.push(`${LABEL_PACKAGE_OR_NAME}=${labelValue(q.packageOrName)}`);
  return { labelSelector: labels.join(','), fieldSelector: fields.join(',') };
}

/**
 * The label selector of a query, every term as a label (hash-encoded where needed): what
 * `kubectl get -l` takes, and what metadata-only lists of labels match.
 */
export function metadataSelector(q: MetadataQuery): string {
  const terms: string[] = [];
  if (q.catalog !== undefined) terms.push(`${LABEL_CATALOG}=${labelValue(q.catalog)}`);
  const s = schemas(q);
  if (s !== undefined) {
    if (s.length === 1) terms.push(`${LABEL_SCHEMA}=${labelValue(s[0]!)}`);
    else terms.push(`${LABEL_SCHEMA} in (${[...new Set(s.map(labelValue))].sort().join(',')})`);
  }
  if (q.package !== undefined) terms.push(`${LABEL_PACKAGE}=${labelValue(q.package)}`);
  if (typeof q.name === 'string') terms.push(`${LABEL_NAME}=${labelValue(q.name)}`);
  else if (q.name !== undefined) terms.push(setTerm(LABEL_NAME, q.name));
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
  if (typeof q.name === 'string' && spec.name !== q.name) return false;
  if (Array.isArray(q.name) && !q.name.includes(spec.name ?? '')) return false;
  if (q.packageOrName !== undefined && (spec.package || spec.name) !== q.packageOrName)
    return false;
  return true;
}
