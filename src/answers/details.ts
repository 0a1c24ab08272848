// What a person deciding to install a package wants on one screen (`kubectl catalog show`): the
// package blob, its default channel's head bundle and that bundle's olm.csv.metadata (fields as
// operator-registry's property.CSVMetadata names them), the channels, and deprecations. Pure.
import type { BundleBlob, ChannelBlob, DeprecationsBlob, PackageBlob } from './fbc-types.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
  arr,
  bundleCsvMetadata,
  bundleGvks,
  deprecationMessage,
  formatGvk,
  obj,
  str,
} from './fbc-types.js';
import { channelHead } from './graph.js';
import { packageFacts } from './packages.js';

export interface PackageDetails {
  name: string;
  catalog: string;
  displayName?: string;
  provider?: { name?: string; url?: string };
  /** The CSV description (else the olm.package description), whole. */
  description?: string;
  categories: string[];
  keywords: string[];
  /** The `capabilities` annotation (the operator's capability level). */
  capabilities?: string;
  maturity?: string;
  links: Array<{ name?: string; url?: string }>;
  maintainers: Array<{ name?: string; email?: string }>;
  defaultChannel?: string;
  /** The default channel's head bundle. */
  head?: { name: string; version?: string };
  channels: Array<{ name: string; head?: string; deprecated?: string }>;
  /** Install modes with supported=true. */
  installModes: string[];
  minKubeVersion?: string;
  maxOpenShiftVersion?: string;
  /**
   * Infrastructure features: the `features.operators.openshift.io/<name>: "true"` annotations
   * and the entries of the older `operators.openshift.io/infrastructure-features` JSON list.
   */
  infrastructureFeatures: string[];
  /** From the operatorframework.io/arch.* and os.* labels (none: amd64, linux, OLM's default). */
  archs: string[];
  oses: string[];
  /** The head's olm.gvk properties, `group/version/kind`. */
  providedAPIs: string[];
  /** Whether the head has olm.csv.metadata (else only the package, channel and gvk facts). */
  csvMetadata: boolean;
  /** Deprecation messages: the package, its default channel, the head bundle. */
  deprecated?: { package?: string; channel?: string; bundle?: string };
}

/** A non-empty string, else undefined. */
const text = (v: unknown): string | undefined => (str(v) === '' ? undefined : str(v));
const objects = (v: unknown): Array<Record<string, unknown>> =>
  arr(v).flatMap((x) => {
    const o = obj(x);
    return o ? [o] : [];
  });

function infrastructureFeatures(annotations: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const prefix = 'features.operators.openshift.io/';
  // The annotation's value is "true" (a string, as annotations are); a JSON true is taken too.
  for (const [k, v] of Object.entries(annotations))
    if (k.startsWith(prefix) && (v === true || str(v)?.toLowerCase() === 'true'))
      out.add(k.slice(prefix.length));
  const legacy = annotations['operators.openshift.io/infrastructure-features'];
  if (typeof legacy === 'string') {
    try {
      const list: unknown = JSON.parse(legacy);
      if (Array.isArray(list))
        for (const f of list) if (typeof f === 'string') out.add(f.toLowerCase());
    } catch {
      // not JSON: ignored, as the console does
    }
  }
  return [...out].sort();
}

export function packageDetails(
  catalog: string,
  pkg: PackageBlob,
  channels: readonly ChannelBlob[],
  bundles: readonly BundleBlob[],
  deprecations?: DeprecationsBlob,
): PackageDetails {
  const facts = packageFacts(pkg, channels, bundles);
  const headBundle = bundles.find((b) => b.name === facts.head);
  const csv = headBundle ? bundleCsvMetadata(headBundle) : undefined;
  const annotations = obj(csv?.annotations) ?? {};
  const provider = obj(csv?.provider);
  const defaultChannel = str(pkg.defaultChannel);
  const dep = {
    package: deprecationMessage(deprecations, SCHEMA_PACKAGE),
    channel:
      defaultChannel !== undefined
        ? deprecationMessage(deprecations, SCHEMA_CHANNEL, defaultChannel)
        : undefined,
    bundle:
      facts.head !== undefined
        ? deprecationMessage(deprecations, SCHEMA_BUNDLE, facts.head)
        : undefined,
  };
  const deprecated = Object.fromEntries(Object.entries(dep).filter(([, v]) => v !== undefined));
  const description = facts.csvDescription ?? facts.description;
  return {
    name: pkg.name,
    catalog,
    ...(facts.displayName !== undefined && { displayName: facts.displayName }),
    ...(provider && {
      provider: {
        ...(text(provider.name) && { name: text(provider.name) }),
        ...(text(provider.url) && { url: text(provider.url) }),
      },
    }),
    ...(description !== undefined && { description }),
    categories: facts.categories ?? [],
    keywords: facts.keywords ?? [],
    ...(facts.capabilities !== undefined && { capabilities: facts.capabilities }),
    ...(text(csv?.maturity) && { maturity: text(csv?.maturity) }),
    links: objects(csv?.links).map((l) => ({
      ...(text(l.name) && { name: text(l.name) }),
      ...(text(l.url) && { url: text(l.url) }),
    })),
    maintainers: objects(csv?.maintainers).map((m) => ({
      ...(text(m.name) && { name: text(m.name) }),
      ...(text(m.email) && { email: text(m.email) }),
    })),
    ...(defaultChannel !== undefined && { defaultChannel }),
    ...(facts.head !== undefined && {
      head: {
        name: facts.head,
        ...(facts.headVersion !== undefined && { version: facts.headVersion }),
      },
    }),
    channels: [...channels]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((c) => {
        const h = channelHead(c).head;
        const d = deprecationMessage(deprecations, SCHEMA_CHANNEL, c.name);
        return {
          name: c.name,
          ...(h !== undefined && { head: h }),
          ...(d !== undefined && { deprecated: d }),
        };
      }),
    installModes: facts.installModes ?? [],
    ...(facts.minKubeVersion !== undefined && { minKubeVersion: facts.minKubeVersion }),
    ...(facts.maxOpenShiftVersion !== undefined && {
      maxOpenShiftVersion: facts.maxOpenShiftVersion,
    }),
    infrastructureFeatures: infrastructureFeatures(annotations),
    archs: csv ? (facts.archs ?? []) : [],
    oses: csv ? (facts.oses ?? []) : [],
    providedAPIs: headBundle ? bundleGvks(headBundle).map(formatGvk) : [],
    csvMetadata: csv !== undefined,
    ...(Object.keys(deprecated).length > 0 && { deprecated }),
  };
}
