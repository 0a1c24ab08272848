// One served kind, as every verb reads it (served-api.ts, watch.ts): its resource and list kind,
// its Table columns, its selectors, the objects a get or list reads (in list order, from a
// position on), and what a watch reads (watch.ts): the per-revision index its diff is computed
// from (an object's name and hash at its sequence number) and the objects at given sequence
// numbers of a revision. CatalogMetadata's is here; CatalogPackage's is packages/package-kind.ts.
import {
  CATALOG_METADATA_KIND,
  CATALOG_METADATA_LIST_KIND,
  CATALOG_METADATA_PLURAL,
} from '../api/v1/index.js';
import type { RevisionLease } from '../server/index.js';
import { readBlobs } from './blob-entries.js';
import type { ObjectIndex, ObjectIndexCache, ReadBlob } from './blob-entries.js';
import { matchingObjects } from './matching.js';
import type { ListPosition } from './matching.js';
import type { PatchTarget } from './patch.js';
import type { ViewCatalog } from './ports.js';
import { matchesSelectors, parseSelectors, unionRanges } from './selection.js';
import type { Selectors } from './selection.js';
import { servedObject } from './served-object.js';
import type { ObjectSettings } from './served-object.js';
import { catalogMetadataCells, TABLE_COLUMNS } from './table.js';
import type { TableColumnDefinition } from './table.js';
import type { View } from './view.js';

/** An object built at a resourceVersion, as the representations write it. */
export interface BuiltObject {
  /** The object (its metadata for PartialObjectMetadata; what a dry-run PATCH applies to). */
  object: PatchTarget;
  /** The object's JSON. */
  json: () => string;
  /** Its Table row's cells (`now`: what ages are counted from). */
  cells: (now: number) => unknown[];
}

/** An object of a get or list: its position in list order (what a continue token names). */
export interface ListedObject {
  position: ListPosition;
  build(resourceVersion: string): BuiltObject;
}

/** An object of a revision at a sequence number, for one watch event. */
export interface WatchedObject {
  seq: number;
  /** The event's object; undefined when the watch's selectors do not match it (not sent). */
  build: ((resourceVersion: string) => BuiltObject) | undefined;
}

export interface ServedKind {
  /** The kind (of objects, and of BOOKMARK events' objects). */
  kind: string;
  plural: string;
  listKind: string;
  columns: readonly TableColumnDefinition[];
  parseSelectors(query: URLSearchParams): Selectors;
  /** The view's objects the selectors match, from a position on, in list order. */
  matching(view: View, selectors: Selectors, from?: ListPosition): AsyncGenerator<ListedObject>;
  index(catalog: string, lease: RevisionLease): Promise<ObjectIndex>;
  /** The objects at `seqs` (sorted), in that order. */
  read(
    catalog: ViewCatalog,
    lease: RevisionLease,
    seqs: number[],
    selectors: Selectors,
  ): AsyncIterable<WatchedObject>;
}

/** A blob's CatalogMetadata object at a resourceVersion. */
function built(
  catalog: ViewCatalog,
  { entry, content, line }: ReadBlob,
  settings: ObjectSettings,
  resourceVersion: string,
): BuiltObject {
  const b = servedObject(catalog, entry, content, line, settings, resourceVersion);
  return {
    object: b.object,
    json: () => b.json,
    cells: (now) => catalogMetadataCells(b.object, now),
  };
}

export function catalogMetadataKind(settings: ObjectSettings, index: ObjectIndexCache): ServedKind {
  return {
    kind: CATALOG_METADATA_KIND,
    plural: CATALOG_METADATA_PLURAL,
    listKind: CATALOG_METADATA_LIST_KIND,
    columns: TABLE_COLUMNS,
    parseSelectors,
    async *matching(view, selectors, from) {
      for await (const { held, blob } of matchingObjects(view, selectors, index, from))
        yield {
          position: { catalog: held.catalog.name, seq: blob.entry.seq },
          build: (rv) => built(held.catalog, blob, settings, rv),
        };
    },
    index: (catalog, lease) => index.get(catalog, lease),
    async *read(catalog, lease, seqs, selectors) {
      const wanted = new Set(seqs);
      // The blob before each too: a repeated identity's name may depend on it.
      const ranges = unionRanges([
        seqs.map((s) => [Math.max(0, s - 1), s + 1] as [number, number]),
      ]);
      for await (const blob of readBlobs(catalog.name, lease, ranges)) {
        if (!wanted.has(blob.entry.seq)) continue;
        yield {
          seq: blob.entry.seq,
          build: matchesSelectors(selectors, blob.entry)
            ? (rv) => built(catalog, blob, settings, rv)
            : undefined,
        };
      }
    },
  };
}
