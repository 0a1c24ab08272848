// The objects of a view that a request's selectors match, in list order (catalogs by name, then
// blob order), from a position on: what a list pages through and a get looks up.
import { objectName } from '../fbc/index.js';
import type { ReadBlob } from './blob-entries.js';
import { readBlobs } from './blob-entries.js';
import type { ObjectIndexCache } from './blob-entries.js';
import { FIELD_METADATA_NAME, pinnedFieldValue } from './field-selector.js';
import { candidateRanges, catalogMayMatch, intersect, matchesSelectors } from './selection.js';
import type { SeqRanges, Selectors } from './selection.js';
import type { HeldCatalog, View } from './view.js';

/** A place in list order: the catalog, and the blob's sequence number in its revision. */
export interface ListPosition {
  catalog: string;
  seq: number;
}

export interface Match {
  held: HeldCatalog;
  blob: ReadBlob;
}

/** Whether an object name may belong to the catalog (names start with the catalog's name). */
export function nameMayBelong(name: string, catalog: string): boolean {
  // objectName cuts its readable prefix to 236 characters: a longer catalog name is cut too.
  const prefix = objectName({ catalog, schema: '' }).replace(/-[0-9a-f]{16}$/, '');
  return name.startsWith(`${prefix}-`) || prefix.length >= 200;
}

export async function* matchingObjects(
  view: View,
  selectors: Selectors,
  index: ObjectIndexCache,
  from?: ListPosition,
): AsyncGenerator<Match> {
  const name = pinnedFieldValue(selectors.fields, FIELD_METADATA_NAME);
  if (name === null) return;
  for (const held of view.catalogs) {
    const catalog = held.catalog.name;
    if (from && catalog < from.catalog) continue;
    if (!catalogMayMatch(selectors, catalog)) continue;
    let start = from?.catalog === catalog ? from.seq : undefined;
    let named: SeqRanges | undefined;
    if (name !== undefined) {
      if (!nameMayBelong(name, catalog)) continue;
      const found = (await index.get(catalog, held.lease)).byName.get(name);
      if (!found) continue;
      // The blob before it too: a repeated identity's name may depend on it.
      named = [[Math.max(0, found.seq - 1), found.seq + 1]];
      start = Math.max(start ?? 0, found.seq);
    }
    const candidates = await candidateRanges(selectors, held.lease);
    const ranges = named ? intersect(candidates, named) : candidates;
    for await (const blob of readBlobs(catalog, held.lease, ranges, start))
      if (matchesSelectors(selectors, blob.entry)) yield { held, blob };
  }
}
