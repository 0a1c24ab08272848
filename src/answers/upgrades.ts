// One-step upgrades of an installed bundle within a channel, and the path to the channel head,
// with the successor rule OLM applies to registry+v1 bundles (operator-controller's legacy
// successor predicate, operator-registry's `opm alpha render-graph` edges): entry E of the
// channel is a one-step upgrade of the installed bundle B when
//   E.replaces == B.name, or E.skips contains B.name, or B's version is in E.skipRange
// (ranges as github.com/blang/semver/v4 reads them: see semver.ts; an unparsable range or
// version never matches). B itself is never its own upgrade.
import type { BundleBlob, ChannelBlob, ChannelEntry, DeprecationsBlob } from './fbc-types.js';
import { SCHEMA_BUNDLE, bundleVersion, deprecationMessage, str, strs } from './fbc-types.js';
import type { EdgeKind } from './graph.js';
import { channelHead } from './graph.js';
import type { SemVer } from './semver.js';
import { compareVersions, parseRange, satisfies, tryParseVersion } from './semver.js';

export interface UpgradeCandidate {
  /** The bundle to upgrade to (an entry of the channel). */
  name: string;
  /** Its olm.package version, when the bundle is known. */
  version?: string;
  /** Every rule that makes it an upgrade, in the order replaces, skips, skipRange. */
  via: EdgeKind[];
  /** The entry's skipRange, when via has skipRange. */
  skipRange?: string;
  /** Whether it is the channel head. */
  head: boolean;
  /** The bundle's deprecation message (olm.deprecations), when it is deprecated. */
  deprecated?: string;
}

export interface PathStep {
  name: string;
  version?: string;
  deprecated?: string;
}

export interface Upgrades {
  /** The installed bundle. */
  from: PathStep;
  /** One-step upgrades, newest version first (unversioned last, by name). */
  items: UpgradeCandidate[];
  /** The channel head, when the channel has exactly one. */
  head?: string;
  /**
   * The installed bundle, then each step to the head: fewest steps, and at each step the
   * newest candidate that still lies on a shortest path. Empty when the head cannot be reached
   * (or there is no single head); just the installed bundle when it is the head.
   */
  path: PathStep[];
  /** Problems found (no single head, unparsable skipRange, unparsable versions). */
  warnings: string[];
}

/** Whether entry e is a one-step upgrade of bundle `from` (version: its parsed version). */
export function upgradeVia(
  e: Pick<ChannelEntry, 'name' | 'replaces' | 'skips' | 'skipRange'>,
  from: string,
  version: SemVer | undefined,
): EdgeKind[] {
  if (e.name === from) return [];
  const via: EdgeKind[] = [];
  if (e.replaces === from) via.push('replaces');
  if (strs(e.skips).includes(from)) via.push('skips');
  const skipRange = str(e.skipRange);
  if (skipRange && version) {
    const range = tryParseRange(skipRange);
    if (range && satisfies(version, range)) via.push('skipRange');
  }
  return via;
}

function tryParseRange(s: string) {
  try {
    return parseRange(s);
  } catch {
    return undefined;
  }
}

/**
 * The one-step upgrades of `from` (a bundle name) in the channel, the path to the head and the
 * deprecation marks. `versions` maps bundle names to versions (versionMap of the package's
 * bundles); `deprecations` is the package's olm.deprecations blob, if any.
 */
export function upgradesFrom(
  channel: Pick<ChannelBlob, 'entries'>,
  from: string,
  versions: ReadonlyMap<string, string>,
  deprecations?: DeprecationsBlob,
): Upgrades {
  const warnings: string[] = [];
  const parsed = new Map<string, SemVer | undefined>();
  const version = (name: string) => {
    if (!parsed.has(name)) parsed.set(name, tryParseVersion(versions.get(name)));
    return parsed.get(name);
  };
  for (const e of channel.entries) {
    if (typeof e.skipRange === 'string' && e.skipRange !== '' && !tryParseRange(e.skipRange))
      warnings.push(`${e.name}: ignoring unparsable skipRange ${JSON.stringify(e.skipRange)}`);
  }
  const h = channelHead(channel);
  if (h.error) warnings.push(h.error);
  const step = (name: string): PathStep => {
    const deprecated = deprecationMessage(deprecations, SCHEMA_BUNDLE, name);
    return {
      name,
      ...(versions.has(name) && { version: versions.get(name)! }),
      ...(deprecated !== undefined && { deprecated }),
    };
  };
  // Successors of every node, newest first: for the path search, and once for `from`.
  const successors = (name: string): UpgradeCandidate[] => {
    const byName = new Map<string, UpgradeCandidate>();
    for (const e of channel.entries) {
      const via = upgradeVia(e, name, version(name));
      if (via.length === 0) continue;
      const prev = byName.get(e.name);
      // An entry listed twice: the union of its rules.
      const all = [...new Set([...(prev?.via ?? []), ...via])].sort(
        (a, b) => VIA_ORDER.indexOf(a) - VIA_ORDER.indexOf(b),
      );
      byName.set(e.name, {
        ...step(e.name),
        via: all,
        ...(all.includes('skipRange') && { skipRange: str(e.skipRange) ?? prev?.skipRange }),
        head: e.name === h.head,
      });
    }
    return [...byName.values()].sort((a, b) => newestFirst(a.name, b.name, version));
  };
  const items = successors(from);
  return {
    from: step(from),
    items,
    ...(h.head !== undefined && { head: h.head }),
    path: h.head === undefined ? [] : pathToHead(from, h.head, successors).map(step),
    warnings,
  };
}

const VIA_ORDER: readonly EdgeKind[] = ['replaces', 'skips', 'skipRange'];

function newestFirst(a: string, b: string, version: (n: string) => SemVer | undefined): number {
  const va = version(a);
  const vb = version(b);
  if (va && vb) return compareVersions(vb, va) || (a < b ? -1 : a > b ? 1 : 0);
  if (va) return -1;
  if (vb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Fewest steps from `from` to `head` (breadth-first over the successors); among shortest paths,
 * the one taking the newest candidate at each step. [] when the head is unreachable.
 */
function pathToHead(
  from: string,
  head: string,
  successors: (name: string) => UpgradeCandidate[],
): string[] {
  if (from === head) return [from];
  // Distance to the head of every node that reaches it, from a BFS over forward edges from
  // `from`, then a walk that always takes the newest successor one step closer.
  const order: string[] = [from];
  const next = new Map<string, string[]>();
  const seen = new Set([from]);
  for (let i = 0; i < order.length; i++) {
    const n = order[i]!;
    const succ = successors(n).map((c) => c.name);
    next.set(n, succ);
    for (const s of succ) {
      if (seen.has(s)) continue;
      seen.add(s);
      order.push(s);
    }
  }
  if (!seen.has(head)) return [];
  const dist = new Map<string, number>([[head, 0]]);
  // Relax until stable (the reached graph is small: one channel).
  for (let changed = true; changed;) {
    changed = false;
    for (const n of order) {
      for (const s of next.get(n) ?? []) {
        const d = dist.get(s);
        if (d !== undefined && (dist.get(n) ?? Infinity) > d + 1) {
          dist.set(n, d + 1);
          changed = true;
        }
      }
    }
  }
  const path = [from];
  for (let n = from; n !== head;) {
    const d = dist.get(n)!;
    n = (next.get(n) ?? []).find((s) => dist.get(s) === d - 1)!;
    path.push(n);
  }
  return path;
}

/** Why `--from` names no bundle: thrown by resolveInstalled. */
export class UnknownBundleError extends Error {
  override name = 'UnknownBundleError';
}

/**
 * The bundle an installation is at, from a bundle name or a version: a bundle of the package
 * with that name; else the bundle whose olm.package version equals it (preferring one that is
 * in `channel`). Throws UnknownBundleError naming the known versions otherwise.
 */
export function resolveInstalled(
  bundles: readonly BundleBlob[],
  fromArg: string,
  channel?: Pick<ChannelBlob, 'entries'>,
): BundleBlob {
  const byName = bundles.find((b) => b.name === fromArg);
  if (byName) return byName;
  const wanted = tryParseVersion(fromArg.replace(/^v(?=[0-9])/, ''));
  const matches = wanted
    ? bundles.filter((b) => {
        const v = tryParseVersion(bundleVersion(b));
        return v !== undefined && compareVersions(v, wanted) === 0 && sameBuild(v, wanted);
      })
    : [];
  const inChannel = channel
    ? matches.filter((b) => channel.entries.some((e) => e.name === b.name))
    : matches;
  const pick = inChannel.length > 0 ? inChannel : matches;
  if (pick.length === 1) return pick[0]!;
  const pkg = bundles[0]?.package ?? '';
  if (pick.length > 1)
    throw new UnknownBundleError(
      `version ${fromArg} of package ${JSON.stringify(pkg)} is in several bundles: ${pick
        .map((b) => b.name)
        .sort()
        .join(', ')}; name one with --from BUNDLE`,
    );
  const known = [
    ...new Set(
      bundles
        .map(bundleVersion)
        .filter((v): v is string => v !== undefined)
        .sort((a, b) => {
          const va = tryParseVersion(a);
          const vb = tryParseVersion(b);
          return va && vb ? compareVersions(va, vb) : a < b ? -1 : 1;
        }),
    ),
  ];
  throw new UnknownBundleError(
    `package ${JSON.stringify(pkg)} has no bundle named or versioned ${JSON.stringify(fromArg)}; its versions: ${known.join(', ') || '<none>'} (see: kubectl catalog bundles ${pkg})`,
  );
}

function sameBuild(a: SemVer, b: SemVer): boolean {
  return a.build.join('.') === b.build.join('.');
}
