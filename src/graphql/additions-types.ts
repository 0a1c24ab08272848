// The object types of the additions (docs/graphql.md, "Additions"): fixed, not generated from
// the catalog, each named `Fbc_…` (names.ts says why no catalog can generate one). Their
// fields are the client library's answers (src/answers: channel heads, package facts,
// deprecations, upgrades), computed by the same code as `kubectl catalog`, and the joins
// between a package, its channels, their entries and the bundles, read per package
// (FbcReader). Each resolver's source is a typed blob as src/answers reads it; a bundle reached
// through a join (a head, an entry's bundle) is a stub (name, package, version), kept across
// queries, and the fields a stub lacks read the bundle whole (FbcReader.wholeBundle).
import {
  GraphQLEnumType,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import type {
  BundleBlob,
  ChannelBlob,
  ChannelEntry,
  DeprecationsBlob,
  PackageBlob,
  Property,
} from '../answers/fbc-types.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
  bundleGvks,
  bundleVersion,
  deprecationMessage,
  str,
  strs,
} from '../answers/fbc-types.js';
import { channelHead, channelsOf } from '../answers/graph.js';
import { INSTALL_MODES } from '../answers/packages.js';
import type { PackageFacts } from '../answers/packages.js';
import { FbcReader } from './fbc-reader.js';
import type { QueryReads } from './fbc-reader.js';
import { goJson } from './go-values.js';
import { pageOffset, pageSize } from './limits.js';

const readers = new WeakMap<QueryReads, FbcReader>();

/** The query's reader (one per query: what it reads is kept for the query's other fields). */
export function readerOf(run: QueryReads): FbcReader {
  let r = readers.get(run);
  if (!r) {
    r = new FbcReader(run);
    readers.set(run, r);
  }
  return r;
}

export const InstallModeType = new GraphQLEnumType({
  name: 'Fbc_InstallMode',
  values: Object.fromEntries(INSTALL_MODES.map((m) => [m, { value: m }])),
});

const IconType = new GraphQLObjectType({
  name: 'Fbc_Icon',
  fields: { mediatype: { type: GraphQLString }, base64data: { type: GraphQLString } },
});

const PropertyType = new GraphQLObjectType<Property>({
  name: 'Fbc_Property',
  fields: {
    type: { type: GraphQLString },
    value: {
      type: GraphQLString,
      description: 'The value as JSON (keys sorted, as the generated fields write objects)',
      resolve: (p) => goJson(p.value ?? null),
    },
  },
});

const GvkType = new GraphQLObjectType({
  name: 'Fbc_Gvk',
  fields: {
    group: { type: GraphQLString },
    version: { type: GraphQLString },
    kind: { type: GraphQLString },
  },
});

const RelatedImageType = new GraphQLObjectType({
  name: 'Fbc_RelatedImage',
  fields: { name: { type: GraphQLString }, image: { type: GraphQLString } },
});

const DeprecationType = new GraphQLObjectType({
  name: 'Fbc_Deprecation',
  description: 'One entry of the package’s olm.deprecations blob',
  fields: {
    schema: { type: GraphQLString, resolve: (e: DeprecationEntryOut) => e.schema },
    name: { type: GraphQLString, resolve: (e: DeprecationEntryOut) => e.name ?? null },
    message: { type: GraphQLString, resolve: (e: DeprecationEntryOut) => e.message },
  },
});

interface DeprecationEntryOut {
  schema: string;
  name?: string;
  message: string;
}

function deprecationEntries(d: DeprecationsBlob | undefined): DeprecationEntryOut[] {
  return (d?.entries ?? []).map((e) => ({
    schema: e.reference.schema,
    ...(typeof e.reference.name === 'string' && { name: e.reference.name }),
    message: typeof e.message === 'string' ? e.message : '',
  }));
}

const limitArgs = {
  limit: { type: GraphQLInt, defaultValue: 100, description: 'Maximum number of items to return' },
  offset: { type: GraphQLInt, defaultValue: 0, description: 'Number of items to skip' },
};

/** A channel entry with the channel it is in (its bundle is of the channel's package). */
interface EntrySource {
  entry: ChannelEntry;
  channel: ChannelBlob;
}

export const BundleType: GraphQLObjectType<BundleBlob, QueryReads> = new GraphQLObjectType<
  BundleBlob,
  QueryReads
>({
  name: 'Fbc_Bundle',
  fields: (): GraphQLFieldConfigMap<BundleBlob, QueryReads> => ({
    name: { type: GraphQLString },
    package: { type: GraphQLString },
    image: {
      type: GraphQLString,
      resolve: async (b, _args, run) => (await readerOf(run).wholeBundle(b)).image ?? null,
    },
    version: {
      type: GraphQLString,
      description: 'Its olm.package property’s version',
      resolve: (b) => bundleVersion(b) ?? null,
    },
    properties: {
      type: new GraphQLList(PropertyType),
      args: { type: { type: GraphQLString, description: 'Only properties of this type' } },
      resolve: async (b, args: { type?: string | null }, run) =>
        ((await readerOf(run).wholeBundle(b)).properties ?? []).filter(
          (p) => args.type == null || p.type === args.type,
        ),
    },
    provides: {
      type: new GraphQLList(GvkType),
      description: 'The APIs it provides (olm.gvk properties)',
      resolve: async (b, _args, run) => bundleGvks(await readerOf(run).wholeBundle(b)),
    },
    relatedImages: {
      type: new GraphQLList(RelatedImageType),
      resolve: async (b, _args, run) => (await readerOf(run).wholeBundle(b)).relatedImages ?? [],
    },
    channels: {
      type: new GraphQLList(ChannelType),
      description: 'The channels of its package whose entries include it, by name',
      resolve: async (b, _args, run) => {
        const channels = await readerOf(run).channels(b.package);
        const names = new Set(channelsOf(b.name, channels));
        return channels.filter((c) => names.has(c.name));
      },
    },
    deprecation: {
      type: GraphQLString,
      description: 'Its deprecation message (olm.deprecations), when it is deprecated',
      resolve: async (b, _args, run) =>
        deprecationMessage(await readerOf(run).deprecations(b.package), SCHEMA_BUNDLE, b.name) ??
        null,
    },
  }),
});

const EntryType: GraphQLObjectType<EntrySource, QueryReads> = new GraphQLObjectType<
  EntrySource,
  QueryReads
>({
  name: 'Fbc_ChannelEntry',
  fields: () => ({
    name: { type: GraphQLString, resolve: (s) => s.entry.name },
    replaces: { type: GraphQLString, resolve: (s) => str(s.entry.replaces) ?? null },
    skips: { type: new GraphQLList(GraphQLString), resolve: (s) => strs(s.entry.skips) },
    skipRange: { type: GraphQLString, resolve: (s) => str(s.entry.skipRange) ?? null },
    bundle: {
      type: BundleType,
      description: 'The entry’s bundle (null when the catalog has none of that name)',
      resolve: async (s, _args, run) =>
        (await readerOf(run).bundleStub(s.channel.package, s.entry.name)) ?? null,
    },
  }),
});

export const ChannelType: GraphQLObjectType<ChannelBlob, QueryReads> = new GraphQLObjectType<
  ChannelBlob,
  QueryReads
>({
  name: 'Fbc_Channel',
  fields: () => ({
    name: { type: GraphQLString },
    package: { type: GraphQLString },
    entries: {
      type: new GraphQLList(EntryType),
      resolve: (c) => c.entries.map((entry) => ({ entry, channel: c })),
    },
    headName: {
      type: GraphQLString,
      description: 'The entry nothing in the channel replaces or skips, when there is one',
      resolve: (c) => channelHead(c).head ?? null,
    },
    headError: {
      type: GraphQLString,
      description: 'Why the channel has no single head (operator-registry’s words)',
      resolve: (c) => channelHead(c).error ?? null,
    },
    head: {
      type: BundleType,
      description: 'The head’s bundle',
      resolve: async (c, _args, run) => {
        const head = channelHead(c).head;
        return head === undefined
          ? null
          : ((await readerOf(run).bundleStub(c.package, head)) ?? null);
      },
    },
    deprecation: {
      type: GraphQLString,
      resolve: async (c, _args, run) =>
        deprecationMessage(await readerOf(run).deprecations(c.package), SCHEMA_CHANNEL, c.name) ??
        null,
    },
  }),
});

/** A field of the package's facts (its default channel head's metadata). */
function fact<K extends keyof PackageFacts>(
  key: K,
  type: GraphQLList<typeof GraphQLString> | typeof GraphQLString,
  description: string,
) {
  return {
    type,
    description,
    resolve: async (p: PackageBlob, _args: unknown, run: QueryReads) =>
      (await readerOf(run).facts(p))[key] ?? null,
  };
}

export const PackageType: GraphQLObjectType<PackageBlob, QueryReads> = new GraphQLObjectType<
  PackageBlob,
  QueryReads
>({
  name: 'Fbc_Package',
  fields: () => ({
    name: { type: GraphQLString },
    description: { type: GraphQLString, resolve: (p) => p.description ?? null },
    icon: { type: IconType, resolve: (p) => p.icon ?? null },
    defaultChannelName: { type: GraphQLString, resolve: (p) => p.defaultChannel ?? null },
    defaultChannel: {
      type: ChannelType,
      resolve: async (p, _args, run) =>
        (await readerOf(run).channels(p.name)).find((c) => c.name === p.defaultChannel) ?? null,
    },
    head: {
      type: BundleType,
      description: 'The default channel’s head bundle',
      resolve: async (p, _args, run) => {
        const reader = readerOf(run);
        const def = (await reader.channels(p.name)).find((c) => c.name === p.defaultChannel);
        const head = def ? channelHead(def).head : undefined;
        return head === undefined ? null : ((await reader.bundleStub(p.name, head)) ?? null);
      },
    },
    channels: {
      type: new GraphQLList(ChannelType),
      args: { name: { type: GraphQLString, description: 'Only the channel of this name' } },
      resolve: async (p, args: { name?: string | null }, run) =>
        (await readerOf(run).channels(p.name)).filter(
          (c) => args.name == null || c.name === args.name,
        ),
    },
    bundles: {
      type: new GraphQLList(BundleType),
      args: {
        name: { type: GraphQLString, description: 'Only the bundle of this name' },
        channel: { type: GraphQLString, description: 'Only bundles in this channel' },
        ...limitArgs,
      },
      resolve: async (p, args: BundleArgs, run) => packageBundles(readerOf(run), p.name, args),
    },
    deprecation: {
      type: GraphQLString,
      description: 'The package’s deprecation message, when it is deprecated',
      resolve: async (p, _args, run) =>
        deprecationMessage(await readerOf(run).deprecations(p.name), SCHEMA_PACKAGE) ?? null,
    },
    deprecations: {
      type: new GraphQLList(DeprecationType),
      description: 'Every entry of its olm.deprecations blob (package, channels, bundles)',
      resolve: async (p, _args, run) =>
        deprecationEntries(await readerOf(run).deprecations(p.name)),
    },
    headVersion: fact('headVersion', GraphQLString, 'The default channel head’s version'),
    displayName: fact('displayName', GraphQLString, 'From the head’s olm.csv.metadata'),
    provider: fact('provider', GraphQLString, 'The head’s provider name'),
    keywords: fact('keywords', new GraphQLList(GraphQLString), 'The head’s keywords'),
    categories: fact(
      'categories',
      new GraphQLList(GraphQLString),
      'The head’s categories annotation',
    ),
    capabilities: fact('capabilities', GraphQLString, 'The head’s capabilities annotation'),
    minKubeVersion: fact('minKubeVersion', GraphQLString, 'The head’s minKubeVersion'),
    installModes: fact(
      'installModes',
      new GraphQLList(GraphQLString),
      'The head’s supported install modes',
    ),
    archs: fact(
      'archs',
      new GraphQLList(GraphQLString),
      'operatorframework.io/arch.* labels (none: amd64)',
    ),
    oses: fact(
      'oses',
      new GraphQLList(GraphQLString),
      'operatorframework.io/os.* labels (none: linux)',
    ),
    maxOpenShiftVersion: fact(
      'maxOpenShiftVersion',
      GraphQLString,
      'The head’s olm.maxOpenShiftVersion',
    ),
  }),
});

export interface BundleArgs {
  name?: string | null;
  channel?: string | null;
  limit?: unknown;
  offset?: unknown;
}

/**
 * A package's bundles by name, channel and page (blob order: by name). Without a channel only
 * the page is read; with one, the package's bundles are read and the page of those in the
 * channel kept.
 */
export async function packageBundles(
  reader: FbcReader,
  pkg: string,
  args: BundleArgs,
): Promise<BundleBlob[]> {
  const offset = pageOffset(args.offset);
  const limit = pageSize(args.limit);
  if (args.name != null) {
    const b = await reader.bundle(pkg, args.name);
    const inChannel =
      b !== undefined &&
      (args.channel == null ||
        (await reader.channels(pkg)).some(
          (c) => c.name === args.channel && c.entries.some((e) => e.name === b.name),
        ));
    return inChannel && offset === 0 ? [b] : [];
  }
  if (args.channel == null) return reader.bundlePage(pkg, offset, limit);
  const ch = (await reader.channels(pkg)).find((c) => c.name === args.channel);
  if (!ch) return [];
  const names = new Set(ch.entries.map((e) => e.name));
  return reader.bundlesWhere(pkg, (b) => names.has(b.name), offset, limit);
}
