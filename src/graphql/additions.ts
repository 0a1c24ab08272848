// The root fields of the additions (docs/graphql.md, "Additions"), in every catalog's schema
// after upstream's generated fields and `summary`: a package by name, packages filtered as
// `kubectl catalog packages` filters them, one package's channels and bundles, who provides an
// API, and one-step upgrades, answered by the client library's code (src/answers). Every read
// but fbcPackages with a filter on the head and fbcProvides without a package goes through the
// revision's package and name indexes: a query for one package reads that package's blobs only.
import { GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql';
import type { GraphQLFieldConfig } from 'graphql';
import type { BundleBlob, PackageBlob } from '../answers/fbc-types.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_PACKAGE,
  isBundleBlob,
  isPackageBlob,
} from '../answers/fbc-types.js';
import { gvkProviders, sortProviders, versionMap } from '../answers/graph.js';
import { matchesPackageFilter, needsHead } from '../answers/packages.js';
import type { InstallMode, PackageFilter } from '../answers/packages.js';
import { resolveInstalled, upgradesFrom } from '../answers/upgrades.js';
import {
  BundleType,
  ChannelType,
  InstallModeType,
  PackageType,
  packageBundles,
  readerOf,
} from './additions-types.js';
import type { BundleArgs } from './additions-types.js';
import { UpgradesType } from './additions-upgrades.js';
import type { UpgradesSource } from './additions-upgrades.js';
import type { QueryReads } from './fbc-reader.js';
import { pageOffset, pageSize } from './limits.js';

type Field = GraphQLFieldConfig<unknown, QueryReads>;

const limitArgs = {
  limit: {
    type: GraphQLInt,
    defaultValue: 100,
    description: 'Maximum number of items to return (0 or less, or over 100: 100)',
  },
  offset: { type: GraphQLInt, defaultValue: 0, description: 'Number of items to skip' },
};

const text = (description: string) => ({ type: GraphQLString, description });
const required = (description: string) => ({
  type: new GraphQLNonNull(GraphQLString),
  description,
});

interface PackagesArgs {
  name?: string | null;
  installMode?: InstallMode | null;
  kubeVersion?: string | null;
  openshiftVersion?: string | null;
  arch?: string | null;
  os?: string | null;
  category?: string | null;
  capability?: string | null;
  provider?: string | null;
  keyword?: string | null;
  search?: string | null;
  limit?: unknown;
  offset?: unknown;
}

const FILTER_KEYS = [
  'installMode',
  'kubeVersion',
  'openshiftVersion',
  'arch',
  'os',
  'category',
  'capability',
  'provider',
  'keyword',
  'search',
] as const;

/** The client library's PackageFilter of the arguments given. */
function packageFilterOf(args: PackagesArgs): PackageFilter {
  const f: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = args[k];
    if (v != null) f[k] = v;
  }
  return f;
}

/**
 * Packages in blob order (by name), those that pass every filter (the filters of `kubectl
 * catalog packages`, on the default channel head), paged. With no filter on the head, the page
 * is read alone; with one, the packages are streamed and each one's channels and head read
 * until the page is full (the query's read budget bounds a long search).
 */
async function packages(run: QueryReads, args: PackagesArgs): Promise<PackageBlob[]> {
  const reader = readerOf(run);
  const filter = packageFilterOf(args);
  const offset = pageOffset(args.offset);
  const limit = pageSize(args.limit);
  if (args.name != null) {
    const p = await reader.pkg(args.name);
    const pass =
      p !== undefined &&
      (!needsHead(filter) || matchesPackageFilter(await reader.facts(p), filter));
    return pass && offset === 0 ? [p] : [];
  }
  if (!needsHead(filter)) return reader.page(SCHEMA_PACKAGE, isPackageBlob, offset, limit);
  return reader.where(
    SCHEMA_PACKAGE,
    isPackageBlob,
    async (p) => matchesPackageFilter(await reader.facts(p), filter),
    offset,
    limit,
  );
}

interface ProvidesArgs {
  group: string;
  version: string;
  kind: string;
  package?: string | null;
  limit?: unknown;
  offset?: unknown;
}

/**
 * The bundles that provide an API (an olm.gvk property), as `kubectl catalog provides` lists
 * them: by package, newest version first. With a package, only its bundles are read; without
 * one, every bundle is streamed and only the providers kept.
 */
async function provides(run: QueryReads, args: ProvidesArgs): Promise<BundleBlob[]> {
  const gvk = { group: args.group, version: args.version, kind: args.kind };
  const provider = (b: BundleBlob): boolean => gvkProviders([b], gvk).length > 0;
  const found =
    args.package != null
      ? await readerOf(run).bundlesWhere(args.package, provider)
      : await readerOf(run).where(SCHEMA_BUNDLE, isBundleBlob, provider);
  const sorted = sortProviders(found.map((bundle) => ({ catalog: '', bundle }))).map(
    (f) => f.bundle,
  );
  const offset = pageOffset(args.offset);
  return sorted.slice(offset, offset + pageSize(args.limit));
}

interface UpgradesArgs {
  package: string;
  from: string;
  channel?: string | null;
}

/** One-step upgrades from a bundle (name or version), as `kubectl catalog upgrades` answers. */
async function upgrades(run: QueryReads, args: UpgradesArgs): Promise<UpgradesSource> {
  const reader = readerOf(run);
  const p = await reader.pkg(args.package);
  if (!p) throw new Error(`package ${JSON.stringify(args.package)} is not in this catalog`);
  const channels = await reader.channels(p.name);
  const name = args.channel ?? p.defaultChannel;
  const ch = channels.find((c) => c.name === name);
  if (!ch)
    throw new Error(
      `package ${JSON.stringify(p.name)} has no channel ${JSON.stringify(name ?? '')}; its channels: ${channels.map((c) => c.name).join(', ') || '<none>'}`,
    );
  const bundles = await reader.bundleVersions(p.name);
  const installed = resolveInstalled(bundles, args.from, ch);
  const deprecations = await reader.deprecations(p.name);
  return {
    upgrades: upgradesFrom(ch, installed.name, versionMap(bundles), deprecations),
    pkg: p.name,
    channel: ch.name,
  };
}

/** What a list of the additions without a limit counts in the join cost (limits.ts). */
const NOMINAL_LIST_SIZE = 10;

const PAGED_LISTS = new Set(['fbcPackages', 'fbcBundles', 'fbcProvides', 'bundles']);
const UNPAGED_LISTS = new Set([
  'fbcChannels',
  'channels',
  'entries',
  'items',
  'path',
  'deprecations',
  'properties',
  'provides',
  'relatedImages',
]);

/** The size of a list field of the additions in the join cost; undefined for other fields. */
export function additionListSize(name: string, limit: unknown): number | undefined {
  if (PAGED_LISTS.has(name)) return pageSize(limit);
  return UNPAGED_LISTS.has(name) ? NOMINAL_LIST_SIZE : undefined;
}

/** The additions' root fields, in the order they follow upstream's. */
export const ADDITION_ROOT_FIELDS: ReadonlyArray<[string, Field]> = [
  [
    'fbcPackage',
    {
      type: PackageType,
      description: 'One package by name (null when the catalog has none)',
      args: { name: required('The package') },
      resolve: async (_root, args: { name: string }, run) =>
        (await readerOf(run).pkg(args.name)) ?? null,
    },
  ],
  [
    'fbcPackages',
    {
      type: new GraphQLList(PackageType),
      description:
        'Packages by name, filtered as `kubectl catalog packages` filters them (on the default channel head; every filter given must hold)',
      args: {
        name: text('Only the package of this name'),
        installMode: { type: InstallModeType, description: 'The head supports this install mode' },
        kubeVersion: text('The head’s minKubeVersion is absent or at most this version'),
        openshiftVersion: text('The head has no olm.maxOpenShiftVersion below this MAJOR.MINOR'),
        arch: text(
          'The head supports this architecture (operatorframework.io/arch.*; none: amd64)',
        ),
        os: text('The head supports this OS (operatorframework.io/os.*; none: linux)'),
        category: text('One of the head’s categories, case-insensitive'),
        capability: text('The head’s capabilities annotation, case-insensitive'),
        provider: text('Substring of the head’s provider name, case-insensitive'),
        keyword: text('One of the head’s keywords, case-insensitive'),
        search: text('Substring of the name, display name, keywords or descriptions'),
        ...limitArgs,
      },
      resolve: (_root, args: PackagesArgs, run) => packages(run, args),
    },
  ],
  [
    'fbcChannels',
    {
      type: new GraphQLList(ChannelType),
      description: 'One package’s channels, by name',
      args: { package: required('The package'), name: text('Only the channel of this name') },
      resolve: async (_root, args: { package: string; name?: string | null }, run) =>
        (await readerOf(run).channels(args.package)).filter(
          (c) => args.name == null || c.name === args.name,
        ),
    },
  ],
  [
    'fbcBundles',
    {
      type: new GraphQLList(BundleType),
      description: 'One package’s bundles, by name',
      args: {
        package: required('The package'),
        name: text('Only the bundle of this name'),
        channel: text('Only the bundles in this channel'),
        ...limitArgs,
      },
      resolve: (_root, args: BundleArgs & { package: string }, run) =>
        packageBundles(readerOf(run), args.package, args),
    },
  ],
  [
    'fbcProvides',
    {
      type: new GraphQLList(BundleType),
      description: 'The bundles that provide an API (olm.gvk), by package, newest version first',
      args: {
        group: required('The API group ("" for the core group)'),
        version: required('The API version'),
        kind: required('The kind'),
        package: text('Only bundles of this package (reads that package only)'),
        ...limitArgs,
      },
      resolve: (_root, args: ProvidesArgs, run) => provides(run, args),
    },
  ],
  [
    'fbcUpgrades',
    {
      type: UpgradesType,
      description: 'One-step upgrades from an installed bundle, and the path to the channel head',
      args: {
        package: required('The package'),
        from: required('The installed bundle: its name or its version'),
        channel: text('The channel (default: the package’s default channel)'),
      },
      resolve: (_root, args: UpgradesArgs, run) => upgrades(run, args),
    },
  ],
];
