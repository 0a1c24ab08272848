// get and list answers: one object or a streamed list, in the representation the request
// negotiated (the object's JSON, a Table, or metadata only).
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Gzip } from 'node:zlib';
import { CATALOG_METADATA_LIST_KIND } from '../api/v1/index.js';
import type { ObjectIndexCache } from './blob-entries.js';
import { encodeContinue } from './list-query.js';
import { matchingObjects } from './matching.js';
import type { ListPosition, Match } from './matching.js';
import type { Representation } from './negotiate.js';
import type { Selectors } from './selection.js';
import { SERVED_API_VERSION } from './ports.js';
import { servedObject } from './served-object.js';
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

/** Items are written in batches of about this many characters (fewer, larger chunks). */
const WRITE_BATCH = 64 * 1024;

/** Where a list's text goes: the response, or a gzip stream into it; `closed` once the client left. */
export class ListBody {
  private pending = '';
  private gone = false;
  private readonly out: Writable;

  constructor(
    private readonly res: ServerResponse,
    gzip: boolean,
  ) {
    this.out = gzip ? createGzip() : res;
    if (gzip) (this.out as Gzip).pipe(res);
    res.once('close', () => {
      if (res.writableFinished) return;
      // The client left: unblock a waiting write, and free the gzip stream.
      this.gone = true;
      this.out.emit('drain');
      if (this.out !== res) this.out.destroy();
    });
  }

  async write(text: string): Promise<void> {
    this.pending += text;
    if (this.pending.length >= WRITE_BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.gone) throw new Error('the client went away');
    const text = this.pending;
    this.pending = '';
    if (this.out.write(text)) return;
    await new Promise<void>((resolve) => this.out.once('drain', resolve));
    if (this.gone) throw new Error('the client went away');
  }

  end(text: string): void {
    this.out.end(this.pending + text);
  }
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
  gzip = false,
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
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    Vary: 'Accept-Encoding',
    ...(gzip && { 'Content-Encoding': 'gzip' }),
  });
  const body = new ListBody(res, gzip);
  await body.write(head);
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
    await body.write((count === 0 ? '' : ',') + item);
    count++;
    next = await matches.next();
  }
  const metadata: Record<string, string> = { resourceVersion: rv };
  if (continueAt) metadata.continue = encodeContinue(rv, continueAt);
  body.end(`],"metadata":${JSON.stringify(metadata)}}`);
}
