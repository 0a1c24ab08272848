// Reads a view's CatalogPackages in list order (catalogs by name, then packages in blob order:
// by package name), one package at a time: its olm.package blob, its channels and
// deprecations, and only its channels' head bundles, found through the revision's schema,
// package and name indexes. Memory is bounded by one package's channels and heads, whatever the
// catalog's size. Selectors that pin the catalog or the package narrow what is read; every
// object is then matched against the whole selector.
import { labelValue, LABEL_CATALOG, LABEL_PACKAGE } from '../../api/v1/index.js';
import {
  isBundleBlob,
  isChannelBlob,
  isDeprecationsBlob,
  isPackageBlob,
  typedBlob,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_DEPRECATIONS,
  SCHEMA_PACKAGE,
} from '../../answers/fbc-types.js';
import type {
  AnyBlob,
  BundleBlob,
  ChannelBlob,
  DeprecationsBlob,
} from '../../answers/fbc-types.js';
import type { RevisionLease } from '../../server/index.js';
import { matchesFields, pinnedFieldValue } from '../field-selector.js';
import { matchesLabels, pinnedLabelValues } from '../label-selector.js';
import { nameMayBelong } from '../matching.js';
import type { ListPosition } from '../matching.js';
import { parseSelectors, pinnedRaw, unionRanges } from '../selection.js';
import type { SeqRanges, Selectors } from '../selection.js';
import type { HeldCatalog, View } from '../view.js';
import {
  channelHeads,
  FIELD_PACKAGE_CATALOG,
  FIELD_PACKAGE_NAME,
  packageFields,
  packageLabels,
  packageObjectName,
} from './package-object.js';
import type { PackageBlobs } from './package-object.js';

export const PACKAGE_SELECTABLE_FIELDS = [
  'metadata.name',
  FIELD_PACKAGE_CATALOG,
  FIELD_PACKAGE_NAME,
] as const;

/** The selectors of a request's query over the package fields; a 400 when one does not parse. */
export const parsePackageSelectors = (query: URLSearchParams): Selectors =>
  parseSelectors(query, PACKAGE_SELECTABLE_FIELDS);

export function packageMatches(s: Selectors, catalog: string, pkg: string): boolean {
  return (
    matchesLabels(s.labels, packageLabels(catalog, pkg)) &&
    matchesFields(s.fields, packageFields(catalog, pkg))
  );
}

/** One package of a catalog, read. */
export interface PackageRead {
  held: HeldCatalog;
  /** The sequence number of its olm.package blob (list position). */
  seq: number;
  blobs: PackageBlobs;
}

export function parsed(line: string): AnyBlob {
  return typedBlob(JSON.parse(line) as AnyBlob);
}

async function linesOf(lease: RevisionLease, ranges: SeqRanges): Promise<AnyBlob[]> {
  const out: AnyBlob[] = [];
  if (ranges.length === 0) return out;
  for await (const { line } of lease.blobsIn(ranges)) out.push(parsed(line));
  return out;
}

/** The channels, deprecations and channel heads of one package. */
export async function readPackageParts(
  lease: RevisionLease,
  pkg: string,
): Promise<Omit<PackageBlobs, 'pkg'>> {
  const small = await linesOf(
    lease,
    unionRanges(
      await Promise.all([
        lease.selectSeqs({ schema: SCHEMA_CHANNEL, package: pkg }),
        lease.selectSeqs({ schema: SCHEMA_DEPRECATIONS, package: pkg }),
      ]),
    ),
  );
  const channels: ChannelBlob[] = small.filter(isChannelBlob);
  const deprecations: DeprecationsBlob | undefined = small.find(isDeprecationsBlob);
  const heads = channelHeads(channels);
  const headRanges = await Promise.all(
    heads.map((h) => lease.selectSeqs({ schema: SCHEMA_BUNDLE, package: pkg, name: h })),
  );
  const headBundles: BundleBlob[] = (await linesOf(lease, unionRanges(headRanges))).filter(
    isBundleBlob,
  );
  return { channels, headBundles, ...(deprecations && { deprecations }) };
}

/** The sequence ranges of the olm.package blobs the selectors may match in this revision. */
async function packageRanges(
  s: Selectors,
  catalog: string,
  lease: RevisionLease,
): Promise<SeqRanges> {
  // A get (metadata.name): the package whose object has that name, when the index knows it.
  const objectName = pinnedFieldValue(s.fields, 'metadata.name');
  const named =
    typeof objectName === 'string'
      ? lease.packageNames().find((p) => packageObjectName(catalog, p) === objectName)
      : undefined;
  if (named !== undefined) return lease.selectSeqs({ schema: SCHEMA_PACKAGE, name: named });
  const names = pinnedRaw(s, LABEL_PACKAGE, FIELD_PACKAGE_NAME, lease.packageNames());
  const labelValues = pinnedLabelValues(s.labels, LABEL_PACKAGE);
  // packageNames() lists the packages with channels or bundles: a value it does not map back
  // is taken as a raw name too (a package with an olm.package blob only).
  const extra = labelValues?.filter((v) => !(names ?? []).some((n) => labelValue(n) === v)) ?? [];
  if (names === undefined) return lease.selectSeqs({ schema: SCHEMA_PACKAGE });
  const field = pinnedFieldValue(s.fields, FIELD_PACKAGE_NAME);
  const candidates = [...names, ...extra.filter((v) => field === undefined || v === field)];
  return unionRanges(
    await Promise.all(candidates.map((n) => lease.selectSeqs({ schema: SCHEMA_PACKAGE, name: n }))),
  );
}

/**
 * The view's packages that the selectors match, from a position on, read one at a time (the
 * consumer builds and writes each before the next is read).
 */
export async function* matchingPackages(
  view: View,
  s: Selectors,
  from?: ListPosition,
): AsyncGenerator<PackageRead> {
  const name = pinnedFieldValue(s.fields, 'metadata.name');
  if (name === null) return;
  for (const held of view.catalogs) {
    const catalog = held.catalog.name;
    if (from && catalog < from.catalog) continue;
    if (name !== undefined && !nameMayBelong(name, catalog)) continue;
    const catalogs = pinnedRaw(s, LABEL_CATALOG, FIELD_PACKAGE_CATALOG, [catalog]);
    if (catalogs !== undefined && catalogs.length === 0) continue;
    const ranges = await packageRanges(s, catalog, held.lease);
    const start = from?.catalog === catalog ? from.seq : 0;
    const clipped = ranges
      .filter(([, e]) => e > start)
      .map(([b, e]): [number, number] => [Math.max(b, start), e]);
    if (clipped.length === 0) continue;
    // The package blobs are read in one pass, their parts between two of them.
    for await (const { seq, line } of held.lease.blobsIn(clipped)) {
      const pkg = parsed(line);
      if (!isPackageBlob(pkg) || !packageMatches(s, catalog, pkg.name)) continue;
      yield { held, seq, blobs: { pkg, ...(await readPackageParts(held.lease, pkg.name)) } };
    }
  }
}
