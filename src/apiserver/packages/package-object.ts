// One CatalogPackage (docs/served.md, "Packages"): what `kubectl get packagemanifests` showed on
// OLM v0, per package per ClusterCatalog, computed from the package's blobs with the client
// library's answers (src/answers/: channel heads, package facts, deprecations). Field names are
// PackageManifest's where they mean the same (packageName, defaultChannel, provider, channels[]
// with currentCSV and currentCSVDesc, deprecation). Everything is in `status`, as on
// PackageManifest: the object is observed from the catalog, nothing in it is desired.
import { labelValue, LABEL_CATALOG, LABEL_PACKAGE, objectName } from '../../api/v1/index.js';
import type { ObjectMeta } from '../../api/v1/index.js';
import { SERVED_API_VERSION } from '../ports.js';
import { packageDetails } from '../../answers/details.js';
import { bundleCsvMetadata, bundleVersion, obj, str } from '../../answers/fbc-types.js';
import type {
  BundleBlob,
  ChannelBlob,
  DeprecationsBlob,
  PackageBlob,
} from '../../answers/fbc-types.js';
import { channelHead } from '../../answers/graph.js';
import { ownerReference } from '../../fbc/index.js';
import type { ViewCatalog } from '../ports.js';
import { derivedUid } from '../served-object.js';

export const CATALOG_PACKAGE_KIND = 'CatalogPackage';
export const CATALOG_PACKAGE_LIST_KIND = 'CatalogPackageList';
export const CATALOG_PACKAGE_PLURAL = 'catalogpackages';
export const CATALOG_PACKAGE_SINGULAR = 'catalogpackage';
/** Free of clashes with kubectl's built-in short names (cm, cs, csr, cj, …). */
export const CATALOG_PACKAGE_SHORT_NAMES = ['cpkg'] as const;

/** The fields `--field-selector` can name on this kind. */
export const FIELD_PACKAGE_CATALOG = 'status.catalog.name';
export const FIELD_PACKAGE_NAME = 'status.packageName';

export interface Deprecation {
  message: string;
}

export interface PackageChannel {
  name: string;
  /** The channel's head bundle (PackageManifest's currentCSV); absent when it has no single head. */
  currentCSV?: string;
  /** What the head declares: its version, and its display name from olm.csv.metadata. */
  currentCSVDesc?: { version?: string; displayName?: string };
  deprecation?: Deprecation;
}

export interface CatalogPackageStatus {
  catalog: { name: string; priority: number };
  packageName: string;
  defaultChannel?: string;
  /** The default channel head's display name (olm.csv.metadata). */
  displayName?: string;
  /** The default channel head's short description: its CSV annotation `description`. */
  shortDescription?: string;
  provider?: { name?: string; url?: string };
  channels: PackageChannel[];
  /** The package's own deprecation (olm.deprecations). */
  deprecation?: Deprecation;
}

export interface CatalogPackage {
  apiVersion: string;
  kind: typeof CATALOG_PACKAGE_KIND;
  /** ObjectMeta, with what the object always has. */
  metadata: ObjectMeta &
    Required<
      Pick<
        ObjectMeta,
        'uid' | 'resourceVersion' | 'creationTimestamp' | 'labels' | 'ownerReferences'
      >
    >;
  status: CatalogPackageStatus;
}

/**
 * The object name of a package: the name of its olm.package blob's CatalogMetadata (the same
 * naming rule: deterministic, injective, DNS-1123), so `kubectl get catalogmetadata <name>`
 * is the package's blob, icon included.
 */
export function packageObjectName(catalog: string, pkg: string): string {
  return objectName({ catalog, schema: 'olm.package', name: pkg });
}

/** Labels as CatalogMetadata's are encoded (labelValue). */
export function packageLabels(catalog: string, pkg: string): Record<string, string> {
  return { [LABEL_CATALOG]: labelValue(catalog), [LABEL_PACKAGE]: labelValue(pkg) };
}

/** The fields a field selector reads. */
export function packageFields(catalog: string, pkg: string): Record<string, string> {
  return {
    'metadata.name': packageObjectName(catalog, pkg),
    [FIELD_PACKAGE_CATALOG]: catalog,
    [FIELD_PACKAGE_NAME]: pkg,
  };
}

/** The blobs a package's object is computed from: only the channel heads among its bundles. */
export interface PackageBlobs {
  pkg: PackageBlob;
  channels: ChannelBlob[];
  headBundles: BundleBlob[];
  deprecations?: DeprecationsBlob;
}

export function catalogPackage(
  catalog: ViewCatalog,
  blobs: PackageBlobs,
  resourceVersion: string,
): CatalogPackage {
  const d = packageDetails(
    catalog.name,
    blobs.pkg,
    blobs.channels,
    blobs.headBundles,
    blobs.deprecations,
  );
  const name = packageObjectName(catalog.name, d.name);
  const headOf = new Map(blobs.headBundles.map((b) => [b.name, b]));
  const channels = d.channels.map((c): PackageChannel => {
    const out: PackageChannel = { name: c.name };
    if (c.head !== undefined) {
      out.currentCSV = c.head;
      const b = headOf.get(c.head);
      const version = b && bundleVersion(b);
      const csv = b && bundleCsvMetadata(b);
      const displayName = str(csv?.displayName) || undefined;
      const desc = {
        ...(version !== undefined && { version }),
        ...(displayName !== undefined && { displayName }),
      };
      if (Object.keys(desc).length > 0) out.currentCSVDesc = desc;
    }
    if (c.deprecated !== undefined) out.deprecation = { message: c.deprecated };
    return out;
  });
  const head = d.head && headOf.get(d.head.name);
  const headCsv = head && bundleCsvMetadata(head);
  const shortDescription = str(obj(headCsv?.annotations)?.description) || undefined;
  const status: CatalogPackageStatus = {
    catalog: { name: catalog.name, priority: catalog.priority },
    packageName: d.name,
    ...(d.defaultChannel !== undefined && { defaultChannel: d.defaultChannel }),
    ...(d.displayName !== undefined && { displayName: d.displayName }),
    ...(shortDescription !== undefined && { shortDescription }),
    ...(d.provider !== undefined && { provider: d.provider }),
    channels,
    ...(d.deprecated?.package !== undefined && { deprecation: { message: d.deprecated.package } }),
  };
  return {
    apiVersion: SERVED_API_VERSION,
    kind: CATALOG_PACKAGE_KIND,
    metadata: {
      name,
      uid: derivedUid(catalog.uid, `${CATALOG_PACKAGE_PLURAL}/${name}`),
      resourceVersion,
      creationTimestamp: catalog.creationTimestamp,
      labels: packageLabels(catalog.name, d.name),
      ownerReferences: [ownerReference(catalog)],
    },
    status,
  };
}

/** The heads of a package's channels (what of its bundles an object reads). */
export function channelHeads(channels: readonly ChannelBlob[]): string[] {
  const heads = new Set<string>();
  for (const c of channels) {
    const h = channelHead(c).head;
    if (h !== undefined) heads.add(h);
  }
  return [...heads].sort();
}
