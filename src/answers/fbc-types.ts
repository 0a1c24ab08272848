// Typed FBC blobs (operator-registry's declcfg schemas) and small accessors. Blobs are read as
// they are: fields this module does not name are kept (index signatures), and the accessors
// tolerate missing or ill-typed fields rather than throwing, as a catalog client should.
//
// A catalog's author controls every value in it (SPEC §5.2): a field of the wrong JSON type is
// absent, never a throw. The readers below (str, strs, arr, obj) are how catalog values are read;
// typedBlob gives the four schemas' blobs the field types declared here, and the client reads
// every object's content through it (content.ts), so that a `{"toString": 1}` where a string
// belongs never reaches a template string, a `.map` or a `String()`.

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
  /** Absent when the blob's image is not a string. */
  image?: string;
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

// ---- readers: a catalog value of the wrong JSON type is absent ------------------------------

/** The value if it is a string, else undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The value if it is an array, else []. */
export const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);

/** The value if it is an object (not null, not an array), else undefined. */
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  isObject(v) ? v : undefined;

/** The strings of an array (other elements left out); [] when it is not an array. */
export const strs = (v: unknown): string[] =>
  arr(v).filter((x): x is string => typeof x === 'string');

// ---- typed blobs ------------------------------------------------------------------------------

/** `b` with `fields` set (a field undefined: left out), copied only when something changes. */
function withFields(
  b: Record<string, unknown>,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  let out = b;
  for (const [k, v] of Object.entries(fields)) {
    if (b[k] === v) continue;
    if (out === b) out = { ...b };
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** `a` mapped by `f` (undefined: left out): `a` itself when every element maps to itself. */
function keptArray(a: readonly unknown[], f: (x: unknown) => unknown): unknown[] {
  const out: unknown[] = [];
  let same = true;
  for (const x of a) {
    const y = f(x);
    if (y !== x) same = false;
    if (y !== undefined) out.push(y);
  }
  return same ? (a as unknown[]) : out;
}

/** An array field: its strings (the array itself when all are), undefined when not an array. */
const strsField = (v: unknown) =>
  Array.isArray(v) ? keptArray(v, (x) => (typeof x === 'string' ? x : undefined)) : undefined;

const typedEntry = (e: unknown) =>
  isObject(e) && typeof e.name === 'string'
    ? withFields(e, {
        replaces: str(e.replaces),
        skips: strsField(e.skips),
        skipRange: str(e.skipRange),
      })
    : undefined;

function typedDeprecation(e: unknown) {
  if (!isObject(e) || !isObject(e.reference) || typeof e.reference.schema !== 'string')
    return undefined;
  return withFields(e, {
    reference: withFields(e.reference, { name: str(e.reference.name) }),
    message: str(e.message) ?? '',
  });
}

const typedIcon = (v: unknown) =>
  isObject(v) && typeof v.base64data === 'string' && typeof v.mediatype === 'string'
    ? v
    : undefined;

const typedProperty = (p: unknown) => (isObject(p) && typeof p.type === 'string' ? p : undefined);

const typedRelatedImage = (r: unknown) =>
  isObject(r) && typeof r.image === 'string' ? withFields(r, { name: str(r.name) }) : undefined;

/**
 * The blob with the fields this module declares of the types it declares (a field of another
 * type left out; an array's elements of another type left out): olm.package's defaultChannel,
 * description and icon; olm.channel's entries (each with a string name; replaces, skips,
 * skipRange); olm.bundle's image, properties (each with a string type) and relatedImages;
 * olm.deprecations' entries (each with a reference with a string schema; a message that is not
 * a string is ''). Other schemas, and blobs whose identity fields are not strings (which the
 * isXBlob guards refuse), are returned as they are. The same object when nothing is ill-typed.
 */
export function typedBlob(b: AnyBlob): AnyBlob {
  if (!isObject(b)) return b;
  switch (b.schema) {
    case SCHEMA_PACKAGE:
      return withFields(b, {
        defaultChannel: str(b.defaultChannel),
        description: str(b.description),
        icon: typedIcon(b.icon),
      }) as AnyBlob;
    case SCHEMA_CHANNEL:
      return withFields(b, { entries: keptArray(arr(b.entries), typedEntry) }) as AnyBlob;
    case SCHEMA_BUNDLE:
      return withFields(b, {
        image: str(b.image),
        properties: Array.isArray(b.properties)
          ? keptArray(b.properties, typedProperty)
          : undefined,
        relatedImages: Array.isArray(b.relatedImages)
          ? keptArray(b.relatedImages, typedRelatedImage)
          : undefined,
      }) as AnyBlob;
    case SCHEMA_DEPRECATIONS:
      return withFields(b, { entries: keptArray(arr(b.entries), typedDeprecation) }) as AnyBlob;
    default:
      return b;
  }
}

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
  for (const e of arr(deprecations.entries)) {
    if (!isObject(e) || !isObject(e.reference) || e.reference.schema !== schema) continue;
    if (schema === SCHEMA_PACKAGE || e.reference.name === name) return str(e.message) ?? '';
  }
  return undefined;
}
