// Typed FBC blobs (operator-registry's declcfg schemas) and small accessors. Blobs are read as
// they are: fields this module does not name are kept (index signatures), and the accessors
// tolerate missing or ill-typed fields rather than throwing, as a catalog client should.

export const SCHEMA_PACKAGE = 'olm.package';
export const SCHEMA_CHANNEL = 'olm.channel';
export const SCHEMA_BUNDLE = 'olm.bundle';
export const SCHEMA_DEPRECATIONS = 'olm.deprecations';

export const PROPERTY_PACKAGE = 'olm.package';
export const PROPERTY_GVK = 'olm.gvk';
export const PROPERTY_CSV_METADATA = 'olm.csv.metadata';
export const PROPERTY_BUNDLE_OBJECT = 'olm.bundle.object';

export interface Icon {
  base64data: string;
  mediatype: string;
}

export interface PackageBlob {
  schema: typeof SCHEMA_PACKAGE;
  name: string;
  defaultChannel?: string;
  description?: string;
  icon?: Icon;
  [key: string]: unknown;
}

export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
  [key: string]: unknown;
}

export interface ChannelBlob {
  schema: typeof SCHEMA_CHANNEL;
  package: string;
  name: string;
  entries: ChannelEntry[];
  [key: string]: unknown;
}

export interface Property {
  type: string;
  value: unknown;
}

export interface RelatedImage {
  name: string;
  image: string;
}

export interface BundleBlob {
  schema: typeof SCHEMA_BUNDLE;
  package: string;
  name: string;
  image: string;
  properties?: Property[];
  relatedImages?: RelatedImage[];
  [key: string]: unknown;
}

export interface DeprecationEntry {
  reference: { schema: string; name?: string };
  message: string;
}

export interface DeprecationsBlob {
  schema: typeof SCHEMA_DEPRECATIONS;
  package: string;
  entries: DeprecationEntry[];
  [key: string]: unknown;
}

/** Any blob: every blob has a schema; other schemas are passed through untyped. */
export interface AnyBlob {
  schema: string;
  [key: string]: unknown;
}

export interface GVK {
  group: string;
  version: string;
  kind: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function isPackageBlob(b: AnyBlob): b is PackageBlob {
  return b.schema === SCHEMA_PACKAGE && typeof b.name === 'string';
}

export function isChannelBlob(b: AnyBlob): b is ChannelBlob {
  return (
    b.schema === SCHEMA_CHANNEL &&
    typeof b.name === 'string' &&
    typeof b.package === 'string' &&
    Array.isArray(b.entries) &&
    b.entries.every((e) => isObject(e) && typeof e.name === 'string')
  );
}

export function isBundleBlob(b: AnyBlob): b is BundleBlob {
  return b.schema === SCHEMA_BUNDLE && typeof b.name === 'string' && typeof b.package === 'string';
}

export function isDeprecationsBlob(b: AnyBlob): b is DeprecationsBlob {
  return (
    b.schema === SCHEMA_DEPRECATIONS && typeof b.package === 'string' && Array.isArray(b.entries)
  );
}

/** The bundle's properties of one type (values only). */
export function bundleProperties(b: BundleBlob, type: string): unknown[] {
  if (!Array.isArray(b.properties)) return [];
  return b.properties.filter((p) => isObject(p) && p.type === type).map((p) => p.value);
}

/** The version of the bundle's olm.package property (as written; may not be valid semver). */
export function bundleVersion(b: BundleBlob): string | undefined {
  for (const v of bundleProperties(b, PROPERTY_PACKAGE)) {
    if (isObject(v) && typeof v.version === 'string') return v.version;
  }
  return undefined;
}

/** The APIs the bundle provides (its olm.gvk properties), in property order. */
export function bundleGvks(b: BundleBlob): GVK[] {
  const out: GVK[] = [];
  for (const v of bundleProperties(b, PROPERTY_GVK)) {
    if (
      isObject(v) &&
      typeof v.group === 'string' &&
      typeof v.version === 'string' &&
      typeof v.kind === 'string'
    )
      out.push({ group: v.group, version: v.version, kind: v.kind });
  }
  return out;
}

/**
 * The bundle's CSV metadata: the olm.csv.metadata property's value; else, for catalogs that
 * carry the CSV only as an olm.bundle.object (base64 JSON of the manifest), the same fields taken
 * from that ClusterServiceVersion, as operator-registry builds olm.csv.metadata from it
 * (property.MustBuildCSVMetadata: metadata.annotations and labels, and the spec fields).
 */
export function bundleCsvMetadata(b: BundleBlob): Record<string, unknown> | undefined {
  const v = bundleProperties(b, PROPERTY_CSV_METADATA)[0];
  if (isObject(v)) return v;
  for (const o of bundleProperties(b, PROPERTY_BUNDLE_OBJECT)) {
    if (!isObject(o) || typeof o.data !== 'string') continue;
    let manifest: unknown;
    try {
      manifest = JSON.parse(Buffer.from(o.data, 'base64').toString('utf8'));
    } catch {
      continue;
    }
    if (!isObject(manifest) || manifest.kind !== 'ClusterServiceVersion') continue;
    const meta = isObject(manifest.metadata) ? manifest.metadata : {};
    const spec = isObject(manifest.spec) ? manifest.spec : {};
    const out: Record<string, unknown> = {};
    if (isObject(meta.annotations)) out.annotations = meta.annotations;
    if (isObject(meta.labels)) out.labels = meta.labels;
    for (const [from, to] of CSV_SPEC_FIELDS) if (spec[from] !== undefined) out[to] = spec[from];
    return out;
  }
  return undefined;
}

/** ClusterServiceVersion spec field → olm.csv.metadata field (operator-registry's names). */
const CSV_SPEC_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['apiservicedefinitions', 'apiServiceDefinitions'],
  ['customresourcedefinitions', 'crdDescriptions'],
  ['description', 'description'],
  ['displayName', 'displayName'],
  ['installModes', 'installModes'],
  ['keywords', 'keywords'],
  ['links', 'links'],
  ['maintainers', 'maintainers'],
  ['maturity', 'maturity'],
  ['minKubeVersion', 'minKubeVersion'],
  ['nativeAPIs', 'nativeAPIs'],
  ['provider', 'provider'],
];

/** `group/version/kind`; `version/kind` for the core group. */
export function formatGvk(g: GVK): string {
  return g.group === '' ? `${g.version}/${g.kind}` : `${g.group}/${g.version}/${g.kind}`;
}

/** Parses `group/version/kind` (or `version/kind` for the core group); undefined when malformed. */
export function parseGvk(s: string): GVK | undefined {
  const parts = s.split('/');
  if (parts.some((p) => p === '')) return undefined;
  if (parts.length === 3) return { group: parts[0]!, version: parts[1]!, kind: parts[2]! };
  if (parts.length === 2) return { group: '', version: parts[0]!, kind: parts[1]! };
  return undefined;
}

export function sameGvk(a: GVK, b: GVK): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

/** The deprecation message of a package, channel or bundle, from the package's olm.deprecations blob. */
export function deprecationMessage(
  deprecations: DeprecationsBlob | undefined,
  schema: typeof SCHEMA_PACKAGE | typeof SCHEMA_CHANNEL | typeof SCHEMA_BUNDLE,
  name?: string,
): string | undefined {
  if (!deprecations) return undefined;
  for (const e of deprecations.entries) {
    if (!isObject(e) || !isObject(e.reference) || e.reference.schema !== schema) continue;
    if (schema === SCHEMA_PACKAGE || e.reference.name === name) return String(e.message ?? '');
  }
  return undefined;
}
