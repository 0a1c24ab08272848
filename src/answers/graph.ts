// Channel heads and upgrade graphs with operator-registry's semantics (alpha/model Channel.Head
// and the edges `opm alpha render-graph` draws):
// - the head of a channel is the entry that no entry of the channel replaces or skips (skipRange
//   does not count, as upstream); a valid channel has exactly one;
// - an upgrade edge goes from an older entry to a newer one: `replaces` (one), `skips` (each),
//   and `skipRange` (every other entry of the channel whose bundle version is in the range).
import type { BundleBlob, ChannelBlob, ChannelEntry, DeprecationsBlob, GVK } from './fbc-types.js';
import {
  SCHEMA_BUNDLE,
  bundleGvks,
  bundleVersion,
  deprecationMessage,
  sameGvk,
  str,
  strs,
} from './fbc-types.js';
import type { SemVer, SemVerRange } from './semver.js';
import { compareVersions, parseRange, satisfies, tryParseVersion } from './semver.js';

export interface ChannelHeadResult {
  /** The head, when there is exactly one. */
  head?: string;
  /** Every entry with no incoming edge, sorted (more than one: an invalid channel). */
  candidates: string[];
  /** Why there is no single head, in operator-registry's words. */
  error?: string;
}

/** The channel's head: the entry that nothing in the channel replaces or skips. */
export function channelHead(channel: Pick<ChannelBlob, 'entries'>): ChannelHeadResult {
  const incoming = new Set<string>();
  for (const e of channel.entries) {
    const replaces = str(e.replaces);
    if (replaces) incoming.add(replaces);
    for (const s of strs(e.skips)) incoming.add(s);
  }
  const candidates = [...new Set(channel.entries.map((e) => e.name))]
    .filter((n) => !incoming.has(n))
    .sort();
  if (candidates.length === 1) return { head: candidates[0]!, candidates };
  if (candidates.length === 0) return { candidates, error: 'no channel head found in graph' };
  return {
    candidates,
    error: `multiple channel heads found in graph: ${candidates.join(', ')}`,
  };
}

/** How an upgrade is reached: the field of the newer entry that names the older bundle. */
export type EdgeKind = 'replaces' | 'skips' | 'skipRange';

export interface UpgradeEdge {
  /** The entry upgraded from (may be outside the channel for replaces and skips). */
  from: string;
  /** The entry upgraded to (the one that declares the edge). */
  to: string;
  via: EdgeKind;
  /** The range, for skipRange edges. */
  range?: string;
}

export interface UpgradeGraph {
  /** The channel's entries, newest version first (entries without a version last, by name). */
  nodes: Array<{ name: string; version?: string; inChannel: boolean; deprecated?: string }>;
  edges: UpgradeEdge[];
  head?: string;
  /** Problems found on the way (unparsable skipRange, no single head). */
  warnings: string[];
}

/**
 * The upgrade graph of a channel. `versions` maps bundle names to their versions (from the
 * bundles' olm.package property); skipRange edges need them. With the package's
 * olm.deprecations blob, deprecated nodes carry its message.
 */
export function upgradeGraph(
  channel: Pick<ChannelBlob, 'entries'>,
  versions: ReadonlyMap<string, string>,
  deprecations?: DeprecationsBlob,
): UpgradeGraph {
  const warnings: string[] = [];
  const edges: UpgradeEdge[] = [];
  const seen = new Set<string>();
  const add = (e: UpgradeEdge) => {
    const key = `${e.from}\0${e.to}\0${e.via}`;
    if (e.from === e.to || seen.has(key)) return;
    seen.add(key);
    edges.push(e);
  };
  const parsed = new Map<string, SemVer | undefined>();
  const version = (name: string) => {
    if (!parsed.has(name)) parsed.set(name, tryParseVersion(versions.get(name)));
    return parsed.get(name);
  };
  const names = [...new Set(channel.entries.map((e) => e.name))];
  for (const e of channel.entries) {
    for (const s of strs(e.skips)) add({ from: s, to: e.name, via: 'skips' });
    const skipRange = str(e.skipRange);
    if (skipRange) {
      let range: SemVerRange | undefined;
      try {
        range = parseRange(skipRange);
      } catch (err) {
        warnings.push(`${e.name}: ignoring skipRange: ${(err as Error).message}`);
      }
      if (range) {
        for (const n of names) {
          const v = version(n);
          if (v && satisfies(v, range))
            add({ from: n, to: e.name, via: 'skipRange', range: skipRange });
        }
      }
    }
    const replaces = str(e.replaces);
    if (replaces) add({ from: replaces, to: e.name, via: 'replaces' });
  }
  const h = channelHead(channel);
  if (h.error) warnings.push(h.error);
  const nodeNames = new Set(names);
  const extra = edges.map((e) => e.from).filter((n) => !nodeNames.has(n));
  const nodes = [
    ...names.map((name) => ({ name, inChannel: true })),
    ...[...new Set(extra)].map((name) => ({ name, inChannel: false })),
  ]
    .map((n) => {
      const deprecated = deprecationMessage(deprecations, SCHEMA_BUNDLE, n.name);
      return {
        ...n,
        ...(versions.has(n.name) && { version: versions.get(n.name)! }),
        ...(deprecated !== undefined && { deprecated }),
      };
    })
    .sort((a, b) => compareByVersionDesc(a, b, version));
  return { nodes, edges, ...(h.head !== undefined && { head: h.head }), warnings };
}

function compareByVersionDesc(
  a: { name: string },
  b: { name: string },
  version: (name: string) => SemVer | undefined,
): number {
  const va = version(a.name);
  const vb = version(b.name);
  if (va && vb) return compareVersions(vb, va) || (a.name < b.name ? -1 : 1);
  if (va) return -1;
  if (vb) return 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Bundle name → version, for upgradeGraph. */
export function versionMap(bundles: readonly BundleBlob[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const b of bundles) {
    const v = bundleVersion(b);
    if (v !== undefined) m.set(b.name, v);
  }
  return m;
}

/** Bundles sorted newest first by their olm.package version (unversioned last, by name). */
export function sortBundlesByVersion<B extends BundleBlob>(bundles: readonly B[]): B[] {
  const versions = new Map(bundles.map((b) => [b.name, tryParseVersion(bundleVersion(b))]));
  return [...bundles].sort((a, b) => compareByVersionDesc(a, b, (n) => versions.get(n)));
}

/** The bundles that provide an API (an olm.gvk property equal to gvk). */
export function gvkProviders<B extends BundleBlob>(bundles: Iterable<B>, gvk: GVK): B[] {
  const out: B[] = [];
  for (const b of bundles) if (bundleGvks(b).some((g) => sameGvk(g, gvk))) out.push(b);
  return out;
}

/** A bundle that provides an API, with its catalog. */
export interface Provider<B extends BundleBlob = BundleBlob> {
  catalog: string;
  bundle: B;
}

/**
 * Providers in the order `kubectl catalog provides` and the console list them: by package, then
 * catalog, newest version first within each.
 */
export function sortProviders<B extends BundleBlob>(found: readonly Provider<B>[]): Provider<B>[] {
  const groups = new Map<string, Provider<B>[]>();
  for (const f of found) {
    const k = `${f.bundle.package}\0${f.catalog}`;
    groups.set(k, [...(groups.get(k) ?? []), f]);
  }
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...groups.keys()].sort(byKey).flatMap((k) => {
    const g = groups.get(k)!;
    const byName = new Map(g.map((f) => [f.bundle.name, f]));
    return sortBundlesByVersion(g.map((f) => f.bundle)).map((b) => byName.get(b.name)!);
  });
}

/** The channels (by name) whose entries include the bundle. */
export function channelsOf(bundle: string, channels: readonly ChannelBlob[]): string[] {
  return channels
    .filter((c) => c.entries.some((e: ChannelEntry) => e.name === bundle))
    .map((c) => c.name)
    .sort();
}
