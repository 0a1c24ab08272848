// The answers `kubectl catalog` and its console give about packages, read from the cluster once
// for both (and for any program): which catalog holds a package, one package's blobs (its view),
// and the rows of every package.
//
// A package's view: its blobs (package, channels, bundles, deprecations) of one revision, read
// with one label-selected consistent list (`packageOrName=P`). Each reader words what it finds.
//
// The rows: channel count, deprecation and, with heads, the facts the compatibility filters
// read (the default channel head's CSV metadata). Without heads: the olm.package and
// olm.deprecations blobs, and a metadata-only list of channels for the counts. With heads: the
// package, channel and deprecations blobs, then only the default channels' head bundles,
// selected by name, of the same revisions (retried otherwise); a lean head is fetched whole (a
// few at a time) for its CSV metadata.
import type { CatalogMetadata } from '../api/v1/catalogmetadata.js';
import type { ClusterCatalog } from '../api/v1/clustercatalog.js';
import { labelValue } from '../api/v1/identity.js';
import type { CatalogClient } from './client.js';
import type { ConsistentList } from './client-types.js';
import { InconsistentListError, isServing } from './client.js';
import type { CatalogFailure } from './content.js';
import { contentOf, failureReason, perCatalog, resolverBlob } from './content.js';
import type {
  BundleBlob,
  ChannelBlob,
  DeprecationsBlob,
  PackageBlob,
} from '../answers/fbc-types.js';
import {
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
  deprecationMessage,
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
} from '../answers/fbc-types.js';
import { channelHead } from '../answers/graph.js';
import type { PackageFacts } from '../answers/packages.js';
import { packageFacts } from '../answers/packages.js';

// ---- one package ----------------------------------------------------------------------------

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

// ---- every package's row ---------------------------------------------------------------------

export interface PackageRow {
  catalog: string;
  /** The catalog's contentHash the row is of. */
  contentHash: string;
  pkg: PackageBlob;
  /** The package's object when it holds only its lean part (its icon left out): blobOf reads it whole. */
  leanObject?: CatalogMetadata;
  /** How many channels the package has. */
  channels: number;
  /** The package's deprecation message. */
  deprecated?: string;
  /** With heads: what the filters read of the package. */
  facts?: PackageFacts;
}

export interface PackageRowsOptions {
  /** Only this catalog (default: every catalog). */
  catalog?: string;
  /** Read the default channels' heads for the rows' facts (the filters need them). */
  withHeads?: boolean;
  signal?: AbortSignal;
}

export interface PackageRows {
  /** By package name, then catalog. */
  rows: PackageRow[];
  /** Catalogs left out because they were syncing. */
  skipped: string[];
  /**
   * Catalogs left out because their blobs could not be read (a blob not fetched, its URL not
   * the catalog's own): the other catalogs' rows are answered all the same.
   */
  failed: CatalogFailure[];
}

/** By package name, then catalog: the order every list of packages shows. */
export function comparePackageRows(a: PackageRow, b: PackageRow): number {
  if (a.pkg.name !== b.pkg.name) return a.pkg.name < b.pkg.name ? -1 : 1;
  return a.catalog < b.catalog ? -1 : a.catalog > b.catalog ? 1 : 0;
}

/** Head bundle names per request: keeps the request line well under the apiserver's limits. */
const HEAD_CHUNK = 100;

/** How often the lists are taken again when the catalogs change between them. */
const ATTEMPTS = 3;

const byCatalogAndName = (catalog: string, name: string) => `${catalog}\0${name}`;

/** The blobs of one list, grouped per package (keys: byCatalogAndName). */
interface Listed {
  pkgs: Array<{ catalog: string; pkg: PackageBlob; object: CatalogMetadata }>;
  channels: Map<string, ChannelBlob[]>;
  deprecations: Map<string, DeprecationsBlob>;
  /** Catalogs left out, with why: their rows are not answered. */
  failed: Map<string, string>;
}

/** The rows of the packages `row` words; a catalog whose row fails is left out (Listed.failed). */
function rowsOf(listed: Listed, row: (p: Listed['pkgs'][number]) => PackageRow): PackageRow[] {
  const rows: PackageRow[] = [];
  for (const p of listed.pkgs) {
    if (listed.failed.has(p.catalog)) continue;
    try {
      rows.push(row(p));
    } catch (err) {
      listed.failed.set(p.catalog, failureReason(err));
    }
  }
  return rows.filter((r) => !listed.failed.has(r.catalog));
}

/** The packages of the catalogs (one with `catalog`), Serving ones only, sorted. */
export async function packageRows(
  client: CatalogClient,
  opts: PackageRowsOptions = {},
): Promise<PackageRows> {
  const { catalog, withHeads = false, signal } = opts;
  const inCatalog = catalog !== undefined ? { catalog } : {};
  for (let attempt = 1; ; attempt++) {
    const list = await client.consistentList(
      {
        schema: [SCHEMA_PACKAGE, SCHEMA_DEPRECATIONS, ...(withHeads ? [SCHEMA_CHANNEL] : [])],
        ...inCatalog,
      },
      { skipSyncing: true, ...(signal && { signal }) },
    );
    const listed = await groupBlobs(client, list.items, signal);
    let rows: PackageRow[] | undefined;
    if (!withHeads) rows = await rowsWithCounts(client, list, listed, inCatalog, signal);
    else rows = await rowsWithHeads(client, list, listed, inCatalog, signal);
    if (rows) {
      const failed = [...listed.failed].map(([c, reason]) => ({ catalog: c, reason }));
      return { rows: rows.sort(comparePackageRows), skipped: list.skipped, failed };
    }
    if (attempt === ATTEMPTS)
      throw new InconsistentListError(
        `the catalogs changed between the list of packages and the list of their head bundles ${ATTEMPTS} times; try again later`,
      );
  }
}

async function groupBlobs(
  client: CatalogClient,
  items: CatalogMetadata[],
  signal: AbortSignal | undefined,
): Promise<Listed> {
  const { results, failed } = await perCatalog(
    items,
    (objs) => client.resolverContents(objs, signal),
    signal,
  );
  const listed: Listed = {
    pkgs: [],
    channels: new Map(),
    deprecations: new Map(),
    failed: new Map(failed.map((f) => [f.catalog, f.reason])),
  };
  for (const [object, content] of results) {
    const b = resolverBlob(content);
    const cat = object.spec.catalog.name;
    if (isPackageBlob(b)) listed.pkgs.push({ catalog: cat, pkg: b, object });
    else if (isDeprecationsBlob(b)) listed.deprecations.set(byCatalogAndName(cat, b.package), b);
    else if (isChannelBlob(b)) {
      const k = byCatalogAndName(cat, b.package);
      listed.channels.set(k, [...(listed.channels.get(k) ?? []), b]);
    }
  }
  return listed;
}

function rowOf(
  list: ConsistentList,
  listed: Listed,
  p: Listed['pkgs'][number],
  channels: number,
): PackageRow {
  const deprecations = listed.deprecations.get(byCatalogAndName(p.catalog, p.pkg.name));
  const deprecated = deprecationMessage(deprecations, SCHEMA_PACKAGE);
  return {
    catalog: p.catalog,
    contentHash: list.revisions[p.catalog]!,
    pkg: p.pkg,
    ...(contentOf(p.object).state === 'partial' && { leanObject: p.object }),
    channels,
    ...(deprecated !== undefined && { deprecated }),
  };
}

/** Rows whose channel counts come from labels only (a metadata-only list, no content). */
async function rowsWithCounts(
  client: CatalogClient,
  list: ConsistentList,
  listed: Listed,
  inCatalog: { catalog?: string },
  signal: AbortSignal | undefined,
): Promise<PackageRow[]> {
  const counts = new Map<string, number>();
  if (listed.pkgs.length > 0) {
    const q = { schema: SCHEMA_CHANNEL, ...inCatalog };
    for await (const o of client.listMetadataLabels(q, { ...(signal && { signal }) })) {
      const l = o.metadata.labels ?? {};
      const key = byCatalogAndName(l.catalog ?? '', l.package ?? '');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return rowsOf(listed, (p) => {
    const key = byCatalogAndName(labelValue(p.catalog), labelValue(p.pkg.name));
    return rowOf(list, listed, p, counts.get(key) ?? 0);
  });
}

/**
 * Rows with facts: the default channels' head bundles, selected by name (`name in (...)`,
 * HEAD_CHUNK names a request) and read whole; undefined when a catalog changed meanwhile.
 */
async function rowsWithHeads(
  client: CatalogClient,
  list: ConsistentList,
  listed: Listed,
  inCatalog: { catalog?: string },
  signal: AbortSignal | undefined,
): Promise<PackageRow[] | undefined> {
  const heads = new Set<string>();
  for (const p of listed.pkgs) {
    if (listed.failed.has(p.catalog)) continue;
    const chs = listed.channels.get(byCatalogAndName(p.catalog, p.pkg.name)) ?? [];
    const ch = chs.find((c) => c.name === p.pkg.defaultChannel);
    const head = ch ? channelHead(ch).head : undefined;
    if (head !== undefined) heads.add(byCatalogAndName(p.catalog, head));
  }
  const headNames = [...new Set([...heads].map((k) => k.slice(k.indexOf('\0') + 1)))].sort();
  const bundleItems: CatalogMetadata[] = [];
  for (let i = 0; i < headNames.length; i += HEAD_CHUNK) {
    const part = await client.consistentList(
      { schema: SCHEMA_BUNDLE, name: headNames.slice(i, i + HEAD_CHUNK), ...inCatalog },
      {
        skipSyncing: true,
        keep: (o) => heads.has(byCatalogAndName(o.spec.catalog.name, o.spec.name ?? '')),
        ...(signal && { signal }),
      },
    );
    const same = Object.entries(list.revisions).every(([c, h]) => part.revisions[c] === h);
    if (!same) return undefined;
    bundleItems.push(...part.items);
  }
  const bundles = new Map<string, BundleBlob[]>();
  const whole = await perCatalog(bundleItems, (objs) => client.blobsOf(objs, signal), signal);
  for (const f of whole.failed) listed.failed.set(f.catalog, f.reason);
  for (const [o, b] of whole.results) {
    if (!isBundleBlob(b)) continue;
    const k = byCatalogAndName(o.spec.catalog.name, b.package);
    bundles.set(k, [...(bundles.get(k) ?? []), b]);
  }
  return rowsOf(listed, (p) => {
    const k = byCatalogAndName(p.catalog, p.pkg.name);
    const chs = listed.channels.get(k) ?? [];
    const facts = packageFacts(p.pkg, chs, bundles.get(k) ?? []);
    return { ...rowOf(list, listed, p, chs.length), facts };
  });
}
