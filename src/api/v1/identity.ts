// Blob identity → CatalogMetadata object name and label values (SPEC §2.2). Pure and in src/api
// because both sides compute them: the controller (src/fbc re-exports them) and the client
// library, whose entry point must not load the FBC parser. Rules are documented in docs/fbc.md.

import { sha256Hex } from './canonical.js';

export interface BlobIdentity {
  catalog: string;
  schema: string;
  /** Absent when the blob has no (or an empty) package. */
  package?: string;
  /** Absent when the blob has no (or an empty) name. */
  name?: string;
  /**
   * Set to the blob's content hash hex when the identity alone does not tell blobs apart: blobs
   * with neither package nor name, and repeated identities of custom schemas.
   */
  disambiguator?: string;
}

/** An unambiguous encoding of the exact identity (what the name's hash is computed over). */
export function identityKey(id: BlobIdentity): string {
  return JSON.stringify([
    id.catalog,
    id.schema,
    id.package ?? null,
    id.name ?? null,
    id.disambiguator ?? null,
  ]);
}

export const MAX_NAME_LENGTH = 253;
const NAME_HASH_LENGTH = 16;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isDNS1123Subdomain(s: string): boolean {
  return s.length <= MAX_NAME_LENGTH && DNS1123_SUBDOMAIN.test(s);
}

/** `olm.bundle` → `bundle`; other schemas as they are. */
function schemaWord(schema: string): string {
  return schema.startsWith('olm.') ? schema.slice(4) : schema;
}

/** Lower-cased, invalid runs to '-', cut to `max`, each dot-separated label trimmed to alphanumeric ends. */
function readable(parts: string[], max: number): string {
  const s = parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, max);
  return s
    .split('.')
    .map((l) => l.replace(/^-+|-+$/g, ''))
    .filter((l) => l !== '')
    .join('.');
}

/**
 * The object name: `<catalog>-<schema>-<package>-<name>` made DNS-safe and cut to fit, then `-`
 * and the first 16 hex digits of sha256(identityKey). The hash makes it injective (up to a
 * 64-bit hash collision); it depends on the identity only, so content changes keep the name.
 */
export function objectName(id: BlobIdentity): string {
  const hash = sha256Hex(identityKey(id)).slice(0, NAME_HASH_LENGTH);
  const parts = [id.catalog, schemaWord(id.schema), id.package ?? '', id.name ?? ''].filter(
    (p) => p !== '',
  );
  const prefix = readable(parts, MAX_NAME_LENGTH - NAME_HASH_LENGTH - 1);
  return prefix === '' ? hash : `${prefix}-${hash}`;
}

export const MAX_LABEL_VALUE_LENGTH = 63;
const LABEL_HASH_LENGTH = 16;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isValidLabelValue(s: string): boolean {
  return s.length <= MAX_LABEL_VALUE_LENGTH && LABEL_VALUE.test(s);
}

/**
 * A label value for any string: the string itself when it is a valid label value; otherwise a
 * readable prefix (invalid runs → '_', at most 46 chars, alphanumeric ends), `-`, and the
 * first 16 hex digits of sha256(value). The exact value is always in spec.
 */
export function labelValue(value: string): string {
  if (isValidLabelValue(value)) return value;
  const hash = sha256Hex(value).slice(0, LABEL_HASH_LENGTH);
  const prefix = value
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, MAX_LABEL_VALUE_LENGTH - LABEL_HASH_LENGTH - 1)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return prefix === '' ? hash : `${prefix}-${hash}`;
}
