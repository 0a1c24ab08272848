// The meta keys of a blob (schema, package, name), read the way operator-registry's
// declcfg.Meta.UnmarshalJSON reads them: case-insensitively, with top-level keys that differ
// only in case rejected, and values that must be strings.
import { detachString } from '../util/strings.js';

export interface Meta {
  /** '' when absent (an error for the catalog, reported by the caller with the position). */
  schema: string;
  package: string;
  name: string;
}

/** Unicode case folding close to Go's cases.Fold() (full folding; e.g. ß and SS fold alike). */
export function foldKey(key: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(key) ? key.toLowerCase() : key.toUpperCase().toLowerCase();
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Meta of a decoded document, or an error message. A JSON null has no keys (so no schema). */
export function extractMeta(value: unknown): { meta: Meta } | { error: string } {
  if (value === null) return { meta: { schema: '', package: '', name: '' } };
  if (typeof value !== 'object' || Array.isArray(value))
    return { error: `not an object: a blob must be a JSON object, got ${typeName(value)}` };
  const obj = value as Record<string, unknown>;
  const byFold = new Map<string, string[]>();
  for (const key of Object.keys(obj)) {
    const f = foldKey(key);
    const list = byFold.get(f);
    if (list) list.push(key);
    else byFold.set(f, [key]);
  }
  const dups = [...byFold.entries()]
    .filter(([, keys]) => keys.length > 1)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (dups.length > 0) {
    return {
      error: dups
        .map(
          ([f, keys]) => `duplicate keys for key ${JSON.stringify(f)}: [${keys.sort().join(' ')}]`,
        )
        .join('; '),
    };
  }
  const meta: Meta = { schema: '', package: '', name: '' };
  for (const field of ['schema', 'package', 'name'] as const) {
    const key = byFold.get(field)?.[0];
    if (key === undefined) continue;
    const v = obj[key];
    if (typeof v !== 'string')
      return {
        error: `expected value for key ${JSON.stringify(key)} to be a string, got ${typeName(v)}`,
      };
    // Copied: the YAML parser cuts scalars out of the document text, and a blob's meta outlives
    // the document (every other scalar dies with it, so only these three are copied).
    meta[field] = detachString(v);
  }
  return { meta };
}
