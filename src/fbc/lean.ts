// The lean content profile's projection of a blob (SPEC §2.2, docs/profiles.md): the blob
// without the display-only parts resolvers never read, and a record of what was left out.
// Pure; toCatalogMetadata applies it, so the controller and `catalogd render` agree.
import { LEAN_OMITTED_PROPERTIES, LEAN_PART_ICON, leanPropertyPart } from '../api/v1/index.js';
import type { ContentPart } from '../api/v1/index.js';
import { canonicalize } from '../api/v1/index.js';

/** The schema whose `icon` the lean profile leaves out. */
const PACKAGE_SCHEMA = 'olm.package';

export interface LeanContent {
  /** The blob without the parts left out; every other member as it was (same values). */
  content: Record<string, unknown>;
  /** Canonical form of `content`. */
  canonical: string;
  /** What was left out, with canonical-JSON byte counts: the icon first, then property types. */
  parts: ContentPart[];
}

const OMITTED_TYPES: ReadonlySet<string> = new Set(LEAN_OMITTED_PROPERTIES);

function omittedType(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return undefined;
  const type = (p as Record<string, unknown>).type;
  return typeof type === 'string' && OMITTED_TYPES.has(type) ? type : undefined;
}

/**
 * The lean projection of a blob's content, or undefined when it has nothing to leave out (its
 * object is then the same in both profiles). Leaves out the `icon` of an olm.package blob and,
 * in any blob's `properties` array, every entry whose `type` is one of LEAN_OMITTED_PROPERTIES.
 * `bytes` of a property part is the sum of the canonical sizes of the entries of that type.
 */
export function leanContent(
  schema: string,
  content: Record<string, unknown>,
): LeanContent | undefined {
  const parts: ContentPart[] = [];
  const lean: Record<string, unknown> = { ...content };
  if (schema === PACKAGE_SCHEMA && Object.hasOwn(content, 'icon')) {
    parts.push({ path: LEAN_PART_ICON, bytes: Buffer.byteLength(canonicalize(content.icon)) });
    delete lean.icon;
  }
  const properties = content.properties;
  if (Array.isArray(properties) && properties.some((p) => omittedType(p) !== undefined)) {
    const bytes = new Map<string, number>();
    const kept: unknown[] = [];
    for (const p of properties) {
      const type = omittedType(p);
      if (type === undefined) kept.push(p);
      else bytes.set(type, (bytes.get(type) ?? 0) + Buffer.byteLength(canonicalize(p)));
    }
    lean.properties = kept;
    // In the fixed order of LEAN_OMITTED_PROPERTIES, so equal blobs give equal parts.
    for (const type of LEAN_OMITTED_PROPERTIES) {
      const b = bytes.get(type);
      if (b !== undefined) parts.push({ path: leanPropertyPart(type), bytes: b });
    }
  }
  if (parts.length === 0) return undefined;
  return { content: lean, canonical: canonicalize(lean), parts };
}
