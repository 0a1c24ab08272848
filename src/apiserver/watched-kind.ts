// What a watch reads of one kind (watch.ts): the per-revision index its diff is computed from
// (an object's name and hash at its sequence number) and the objects at given sequence numbers
// of a revision, rendered as the request negotiated. CatalogMetadata's is here; CatalogPackage's
// is packages/package-watch.ts.
import type { RevisionLease } from '../server/index.js';
import { readBlobs, type ObjectIndex, type ObjectIndexCache } from './blob-entries.js';
import type { ViewCatalog } from './ports.js';
import { matchesSelectors, parseSelectors, unionRanges } from './selection.js';
import type { Selectors } from './selection.js';
import { servedObject } from './served-object.js';
import type { ObjectSettings } from './served-object.js';
import { partialObjectMetadata, TABLE_COLUMNS, tableRowJson } from './table.js';
import type { WatchRequest } from './watch-request.js';

/** An object of a revision at a sequence number, for one watch event. */
export interface WatchedObject {
  seq: number;
  /** Whether the watch's selectors match it. */
  matches: boolean;
  /** The event's object (as the request negotiated) at that resourceVersion. */
  render(resourceVersion: string): string;
}

export interface WatchedKind {
  /** The kind of BOOKMARK events' objects. */
  kind: string;
  parseSelectors(query: URLSearchParams): Selectors;
  index(catalog: string, lease: RevisionLease): Promise<ObjectIndex>;
  /** The objects at `seqs` (sorted), in that order. */
  read(
    catalog: ViewCatalog,
    lease: RevisionLease,
    seqs: number[],
    w: WatchRequest,
    now: () => number,
  ): AsyncIterable<WatchedObject>;
}

export function catalogMetadataKind(
  settings: ObjectSettings,
  index: ObjectIndexCache,
): WatchedKind {
  return {
    kind: 'CatalogMetadata',
    parseSelectors,
    index: (catalog, lease) => index.get(catalog, lease),
    async *read(catalog, lease, seqs, w, now) {
      const wanted = new Set(seqs);
      // The blob before each too: a repeated identity's name depends on it.
      const ranges = unionRanges([
        seqs.map((s) => [Math.max(0, s - 1), s + 1] as [number, number]),
      ]);
      for await (const blob of readBlobs(catalog.name, lease, ranges)) {
        if (!wanted.has(blob.entry.seq)) continue;
        yield {
          seq: blob.entry.seq,
          matches: matchesSelectors(w.selectors, blob.entry),
          render: (rv) => {
            const built = servedObject(catalog, blob.entry, blob.content, blob.line, settings, rv);
            if (w.representation === 'object') return built.json;
            if (w.representation === 'metadata')
              return JSON.stringify(partialObjectMetadata(built.object));
            return (
              `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":${JSON.stringify(rv)}},` +
              `"columnDefinitions":${JSON.stringify(TABLE_COLUMNS)},"rows":[${tableRowJson(built.object, built.json, w.includeObject, now())}]}`
            );
          },
        };
      }
    },
  };
}
