// Compatibility filters on packages (issue 24): what a package's default channel head declares
// in its olm.csv.metadata property (install modes, minKubeVersion, provider, keywords, the
// categories and capabilities annotations, operatorframework.io/arch.* and os.* labels) and its
// olm.maxOpenShiftVersion property. Pure: the caller reads the blobs.
import type { BundleBlob, ChannelBlob, PackageBlob } from './fbc-types.js';
import { bundleCsvMetadata, bundleProperties, bundleVersion, obj, str, strs } from './fbc-types.js';
import { channelHead } from './graph.js';
import { compareVersions, tryParseVersion } from './semver.js';

export const INSTALL_MODES = [
  'OwnNamespace',
  'SingleNamespace',
  'MultiNamespace',
  'AllNamespaces',
] as const;
export type InstallMode = (typeof INSTALL_MODES)[number];

export const PROPERTY_MAX_OPENSHIFT_VERSION = 'olm.maxOpenShiftVersion';

/** Filters of `kubectl catalog packages`; every one given must hold (AND). */
export interface PackageFilter {
  /** The head's installModes has this mode with supported=true. */
  installMode?: InstallMode;
  /** The head's minKubeVersion is absent or <= this version. */
  kubeVersion?: string;
  /** The head has no olm.maxOpenShiftVersion below this version (MAJOR.MINOR). */
  openshiftVersion?: string;
  /** The head's labels have operatorframework.io/arch.<arch>=supported. */
  arch?: string;
  /** The head's labels have operatorframework.io/os.<os>=supported. */
  os?: string;
  /** One of the head's categories (annotation `categories`, comma-separated), case-insensitive. */
  category?: string;
  /** The head's capabilities annotation, case-insensitive. */
  capability?: string;
  /** Substring of the head's provider name, case-insensitive. */
  provider?: string;
  /** One of the head's keywords, case-insensitive. */
  keyword?: string;
  /** Substring of the name, display name, keywords or description, case-insensitive. */
  search?: string;
}

/** What the filters read of a package: its default channel's head and that bundle's metadata. */
export interface PackageFacts {
  name: string;
  defaultChannel?: string;
  /** The default channel's head (undefined: no default channel, or no single head). */
  head?: string;
  headVersion?: string;
  /** The olm.package blob's description. */
  description?: string;
  /** From the head's olm.csv.metadata; absent when the head has none. */
  displayName?: string;
  csvDescription?: string;
  provider?: string;
  keywords?: string[];
  categories?: string[];
  capabilities?: string;
  minKubeVersion?: string;
  /** Modes with supported=true. */
  installModes?: InstallMode[];
  /** operatorframework.io/arch.X and os.X labels with value "supported" (none: amd64, linux). */
  archs?: string[];
  oses?: string[];
  /** The head's olm.maxOpenShiftVersion property. */
  maxOpenShiftVersion?: string;
  /** Whether the head has olm.csv.metadata (the CSV filters need it). */
  hasCsvMetadata: boolean;
}

/** The facts of a package from its blobs (channels and bundles of that package). */
export function packageFacts(
  pkg: PackageBlob,
  channels: readonly ChannelBlob[],
  bundles: readonly BundleBlob[],
): PackageFacts {
  const defaultChannel = str(pkg.defaultChannel);
  const description = str(pkg.description);
  const facts: PackageFacts = {
    name: pkg.name,
    hasCsvMetadata: false,
    ...(defaultChannel !== undefined && { defaultChannel }),
    ...(description !== undefined && { description }),
  };
  const ch =
    defaultChannel !== undefined ? channels.find((c) => c.name === defaultChannel) : undefined;
  const head = ch ? channelHead(ch).head : undefined;
  if (head === undefined) return facts;
  facts.head = head;
  const b = bundles.find((x) => x.name === head);
  if (!b) return facts;
  const version = bundleVersion(b);
  if (version !== undefined) facts.headVersion = version;
  const maxOcp = bundleProperties(b, PROPERTY_MAX_OPENSHIFT_VERSION)[0];
  // The value is a string ("4.16") or, in some catalogs, a number (4.16).
  if (typeof maxOcp === 'string' || typeof maxOcp === 'number')
    facts.maxOpenShiftVersion = String(maxOcp);
  const csv = bundleCsvMetadata(b);
  if (!csv) return facts;
  facts.hasCsvMetadata = true;
  const annotations = obj(csv.annotations) ?? {};
  const labels = obj(csv.labels) ?? {};
  const displayName = str(csv.displayName);
  if (displayName) facts.displayName = displayName;
  const csvDescription = str(csv.description);
  if (csvDescription) facts.csvDescription = csvDescription;
  const provider = str(obj(csv.provider)?.name);
  if (provider) facts.provider = provider;
  if (Array.isArray(csv.keywords)) facts.keywords = strs(csv.keywords);
  const categories = str(annotations.categories);
  if (categories)
    facts.categories = categories
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
  const capabilities = str(annotations.capabilities);
  if (capabilities) facts.capabilities = capabilities;
  const minKube = str(csv.minKubeVersion);
  if (minKube) facts.minKubeVersion = minKube;
  if (Array.isArray(csv.installModes))
    facts.installModes = INSTALL_MODES.filter((m) =>
      (csv.installModes as unknown[]).some((x) => obj(x)?.type === m && obj(x)?.supported === true),
    );
  const supported = (prefix: string) =>
    Object.entries(labels)
      .filter(([k, v]) => k.startsWith(prefix) && v === 'supported')
      .map(([k]) => k.slice(prefix.length))
      .sort();
  // OLM's defaults for a CSV without such labels: amd64 and linux.
  const archs = supported('operatorframework.io/arch.');
  const oses = supported('operatorframework.io/os.');
  facts.archs = archs.length > 0 ? archs : ['amd64'];
  facts.oses = oses.length > 0 ? oses : ['linux'];
  return facts;
}

/** A version for comparison: strict semver, or MAJOR[.MINOR[.PATCH]] padded with zeros. */
export function looseVersion(s: string) {
  const t = s.trim().replace(/^v/, '');
  return (
    tryParseVersion(t) ??
    tryParseVersion(/^[0-9]+$/.test(t) ? `${t}.0.0` : /^[0-9]+\.[0-9]+$/.test(t) ? `${t}.0` : '')
  );
}

/** Whether the filter needs the head bundle (every filter except none). */
export function needsHead(f: PackageFilter): boolean {
  return Object.values(f).some((v) => v !== undefined);
}

const lower = (s: string | undefined) => (s ?? '').toLowerCase();

/**
 * Whether the package passes every filter given. A package whose head has no CSV metadata
 * (or no single head) fails every CSV filter (install mode, kube version, arch, os, category,
 * capability, provider, keyword): nothing says it qualifies. --openshift-version reads the
 * olm.maxOpenShiftVersion property, so a package without one passes. --search reads the name
 * and the package description too, so it can match without CSV metadata.
 */
export function matchesPackageFilter(p: PackageFacts, f: PackageFilter): boolean {
  const csvFilter =
    f.installMode !== undefined ||
    f.kubeVersion !== undefined ||
    f.arch !== undefined ||
    f.os !== undefined ||
    f.category !== undefined ||
    f.capability !== undefined ||
    f.provider !== undefined ||
    f.keyword !== undefined;
  if (csvFilter && !p.hasCsvMetadata) return false;
  if (f.installMode !== undefined && !(p.installModes ?? []).includes(f.installMode)) return false;
  if (f.kubeVersion !== undefined && p.minKubeVersion !== undefined) {
    const want = looseVersion(f.kubeVersion);
    const min = looseVersion(p.minKubeVersion);
    // An unparsable minKubeVersion says nothing reliable: the package does not qualify.
    if (!want || !min || compareVersions(min, want) > 0) return false;
  }
  if (f.openshiftVersion !== undefined && p.maxOpenShiftVersion !== undefined) {
    const want = looseVersion(f.openshiftVersion);
    const max = looseVersion(p.maxOpenShiftVersion);
    if (!want || !max) return false;
    // maxOpenShiftVersion is MAJOR.MINOR: compare those only (4.16 allows 4.16.z).
    if (max.major < want.major || (max.major === want.major && max.minor < want.minor))
      return false;
  }
  if (f.arch !== undefined && !(p.archs ?? []).includes(f.arch)) return false;
  if (f.os !== undefined && !(p.oses ?? []).includes(f.os)) return false;
  if (f.category !== undefined && !(p.categories ?? []).some((c) => lower(c) === lower(f.category)))
    return false;
  if (f.capability !== undefined && lower(p.capabilities) !== lower(f.capability)) return false;
  if (f.provider !== undefined && !lower(p.provider).includes(lower(f.provider))) return false;
  if (f.keyword !== undefined && !(p.keywords ?? []).some((k) => lower(k) === lower(f.keyword)))
    return false;
  if (f.search !== undefined) {
    const needle = lower(f.search);
    const hay = [p.name, p.displayName, p.description, p.csvDescription, ...(p.keywords ?? [])];
    if (!hay.some((h) => lower(h).includes(needle))) return false;
  }
  return true;
}
