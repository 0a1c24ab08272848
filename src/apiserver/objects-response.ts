// get and list answers: one object or a streamed list, in the representation the request
// negotiated (the object's JSON, a Table, or metadata only).
import type { ServerResponse } from 'node:http';
import { CATALOG_METADATA_LIST_KIND } from '../api/v1/index.js';
import type { ObjectIndexCache } from './blob-entries.js';
import { encodeContinue } from './list-query.js';
import { matchingObjects } from './matching.js';
import type { ListPosition, Match } from './matching.js';
import type { Representation } from './negotiate.js';
import type { Selectors } from './selection.js';
import { servedObject, SERVED_API_VERSION } from './served-object.js';
import type { ObjectSettings, ServedObject } from './served-object.js';
import { partialObjectMetadata, TABLE_COLUMNS, tableRowJson } from './table.js';
import type { IncludeObject } from './table.js';
import type { View } from './view.js';

export interface Rendering {
  representation: Representation;
  includeObject: IncludeObject;
  now: number;
}

export function buildObject(match: Match, settings: ObjectSettings, resourceVersion: string) {
  const { held, blob } = match;
  return servedObject(held.catalog, blob.entry, blob.content, blob.line, settings, resourceVersion);
}

/** A get: the object of that name in the view, or undefined. */
export async function findObject(
  view: View,
  name: string,
  index: ObjectIndexCache,
  settings: ObjectSettings,
): Promise<{ object: ServedObject; json: string } | undefined> {
  const selectors: Selectors = {
    labels: [],
    fields: [{ field: 'metadata.name', operator: '=', value: name }],
  };
  for await (const match of matchingObjects(view, selectors, index))
    return buildObject(match, settings, view.resourceVersion);
  return undefined;
}

/** The body of one object in a representation. */
export function objectBody(
  found: { object: ServedObject; json: string },
  r: Rendering,
  resourceVersion: string,
): string {
  if (r.representation === 'object') return found.json;
  if (r.representation === 'metadata') return JSON.stringify(partialObjectMetadata(found.object));
  return (
    `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":${JSON.stringify(resourceVersion)}},` +
    `"columnDefinitions":${JSON.stringify(TABLE_COLUMNS)},"rows":[${tableRowJson(found.object, found.json, r.includeObject, r.now)}]}`
  );
}

async function write(res: ServerResponse, text: string): Promise<void> {
  if (res.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', closed);
      resolve();
    };
    const closed = () => {
      res.off('drain', done);
      reject(new Error('the client went away'));
    };
    res.once('drain', done);
    res.once('close', closed);
  });
}

/**
 * Streams a list of the view's matching objects, from `from`, at most `limit` (0: all); the
 * continue token names the next match. The list's metadata comes after its items (known once
 * they are written); JSON readers do not mind the order.
 */
export async function sendList(
  res: ServerResponse,
  view: View,
  selectors: Selectors,
  index: ObjectIndexCache,
  settings: ObjectSettings,
  r: Rendering,
  limit: number,
  from?: ListPosition,
): Promise<void> {
  const rv = view.resourceVersion;
  const head =
    r.representation === 'table'
      ? `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":${JSON.stringify(TABLE_COLUMNS)},"rows":[`
      : r.representation === 'metadata'
        ? '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","items":['
        : `{"kind":"${CATALOG_METADATA_LIST_KIND}","apiVersion":"${SERVED_API_VERSION}","items":[`;
  const matches = matchingObjects(view, selectors, index, from);
  // The first match is read before the status line, so that an error (a revision file gone)
  // is still a Status and not a cut body.
  let next = await matches.next();
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  await write(res, head);
  let count = 0;
  let continueAt: ListPosition | undefined;
  while (!next.done) {
    if (limit > 0 && count === limit) {
      continueAt = { catalog: next.value.held.catalog.name, seq: next.value.blob.entry.seq };
      await matches.return(undefined);
      break;
    }
    const found = buildObject(next.value, settings, rv);
    const item =
      r.representation === 'table'
        ? tableRowJson(found.object, found.json, r.includeObject, r.now)
        : r.representation === 'metadata'
          ? JSON.stringify(partialObjectMetadata(found.object))
          : found.json;
    await write(res, (count === 0 ? '' : ',') + item);
    count++;
    next = await matches.next();
  }
  const metadata: Record<string, string> = { resourceVersion: rv };
  if (continueAt) metadata.continue = encodeContinue(rv, continueAt);
  res.end(`],"metadata":${JSON.stringify(metadata)}}`);
}
