// One package's answers: which catalog holds it, and its blobs (package, channels, bundles,
// deprecations) of one revision, read with one label-selected consistent list. The plugin
// (`kubectl catalog show|channels|bundles|graph|upgrades`) and the console's package page both
// read a package through here; each words what it finds for its own reader.
import type { ClusterCatalog } from '../api/v1/clustercatalog.js';
import type { CatalogClient } from './client.js';
import type { CatalogMetadata } from '../api/v1/catalogmetadata.js';
import { isServing } from './client.js';
import { contentOf, resolverBlob } from './content.js';
import type { BundleBlob, ChannelBlob, DeprecationsBlob, PackageBlob } from './fbc-types.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  deprecationMessage,
  isPackageBlob,
} from './fbc-types.js';
import { channelHead } from './graph.js';

/** One revision of one package's blobs in one catalog. */
export interface PackageView {
  catalog: string;
  /** The catalog's contentHash the blobs are of. */
  contentHash: string;
  pkg: PackageBlob;
  /** Sorted by name. */
  channels: ChannelBlob[];
  /** As resolvers read them (lean: without CSV metadata), but for a whole default head. */
  bundles: BundleBlob[];
  deprecations?: DeprecationsBlob;
  /** The package's deprecation message. */
  deprecated?: string;
}

/** Which catalog holds a package, as {@link resolveCatalog} finds it. */
export type CatalogResolution =
  | { catalog: string }
  /** In several Serving catalogs (sorted): the caller must choose one. */
  | { ambiguous: string[] }
  /** In no catalog; `notServing` lists the catalogs that could not be searched yet. */
  | { notServing: ClusterCatalog[] };

/**
 * The catalog that holds the package: the only catalog with an olm.package blob of that name
 * (one label-selected list: `schema=olm.package,name=P`). Objects of a deleted catalog linger
 * until garbage collection, so when several catalogs have it, only Serving ones count.
 */
export async function resolveCatalog(
  client: CatalogClient,
  pkg: string,
  signal?: AbortSignal,
): Promise<CatalogResolution> {
  const found = new Set<string>();
  for await (const o of client.listMetadata({ schema: SCHEMA_PACKAGE, name: pkg }, { signal }))
    found.add(o.spec.catalog.name);
  let catalogs = [...found].sort();
  if (catalogs.length > 1) {
    const serving = new Set(
      (await client.catalogsByName(catalogs, signal)).filter(isServing).map((c) => c.metadata.name),
    );
    catalogs = catalogs.filter((c) => serving.has(c));
  }
  if (catalogs.length === 1) return { catalog: catalogs[0]! };
  if (catalogs.length > 1) return { ambiguous: catalogs };
  return { notServing: (await client.listCatalogs(signal)).filter((c) => !isServing(c)) };
}

export class PackageNotFoundError extends Error {
  override name = 'PackageNotFoundError';
  constructor(
    readonly catalog: string,
    readonly pkg: string,
  ) {
    super(`package ${JSON.stringify(pkg)} not found in catalog ${JSON.stringify(catalog)}`);
  }
}

export interface PackageViewOptions {
  /** The schemas besides olm.package (default: channels, bundles and deprecations). */
  schemas?: readonly string[];
  /** The default channel's head bundle whole (fetched when lean), for its CSV metadata. */
  wholeHead?: boolean;
  signal?: AbortSignal;
}

/**
 * One consistent read of the package's blobs in `catalog` (`packageOrName=P`), as resolvers
 * read them; PackageNotFoundError when the catalog has no such package.
 */
export async function packageView(
  client: CatalogClient,
  catalog: string,
  pkg: string,
  opts: PackageViewOptions = {},
): Promise<PackageView> {
  const { signal } = opts;
  const schemas = opts.schemas ?? [SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS];
  const list = await client.consistentList(
    { catalog, packageOrName: pkg, schema: [SCHEMA_PACKAGE, ...schemas] },
    { ...(signal && { signal }) },
  );
  const all = (await client.resolverContents(list.items, signal)).map(resolverBlob);
  const p = all.find(isPackageBlob);
  if (!p) throw new PackageNotFoundError(catalog, pkg);
  const channels = all.filter(isChannelBlob).sort((a, b) => (a.name < b.name ? -1 : 1));
  const bundles = opts.wholeHead
    ? await withWholeDefaultHead(client, p, channels, all.filter(isBundleBlob), list.items, signal)
    : all.filter(isBundleBlob);
  const deprecations = all.find(isDeprecationsBlob);
  const deprecated = deprecationMessage(deprecations, SCHEMA_PACKAGE);
  return {
    catalog,
    contentHash: list.contentHash!,
    pkg: p,
    channels,
    bundles,
    ...(deprecations && { deprecations }),
    ...(deprecated !== undefined && { deprecated }),
  };
}

/**
 * A package's bundles as resolvers read them, with the default channel's head whole: its blob
 * fetched (client.blobOf) when its object in `objs` holds only its lean part, for the CSV
 * metadata a package's details show.
 */
async function withWholeDefaultHead(
  client: Pick<CatalogClient, 'blobOf'>,
  pkg: PackageBlob,
  channels: readonly ChannelBlob[],
  bundles: readonly BundleBlob[],
  objs: readonly CatalogMetadata[],
  signal?: AbortSignal,
): Promise<BundleBlob[]> {
  const ch = channels.find((c) => c.name === pkg.defaultChannel);
  const head = ch ? channelHead(ch).head : undefined;
  const obj = objs.find(
    (o) =>
      o.spec.schema === SCHEMA_BUNDLE &&
      o.spec.package === pkg.name &&
      o.spec.name === head &&
      contentOf(o).state === 'partial',
  );
  if (head === undefined || !obj) return [...bundles];
  const whole = await client.blobOf(obj, signal);
  return isBundleBlob(whole) ? bundles.map((b) => (b.name === head ? whole : b)) : [...bundles];
}
