// get and list answers: one object or a streamed list, in the representation the request
// negotiated (the object's JSON, a Table, or metadata only).
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { encodeContinue } from './list-query.js';
import type { ListPosition } from './matching.js';
import type { Representation } from './negotiate.js';
import { SERVED_API_VERSION } from './ports.js';
import type { BuiltObject, ListedObject, ServedKind } from './served-kind.js';
import { partialObjectMetadata, tableRowJson } from './table.js';
import type { IncludeObject, TableColumnDefinition } from './table.js';
import { FIELD_METADATA_NAME } from './field-selector.js';
import type { Selectors } from './selection.js';
import type { View } from './view.js';

export interface Rendering {
  representation: Representation;
  includeObject: IncludeObject;
  now: number;
}

/** One object of a list in the representation: its JSON, its PartialObjectMetadata or its Table row. */
function itemJson(o: BuiltObject, r: Rendering): string {
  if (r.representation === 'table')
    return tableRowJson(o.cells(r.now), r.includeObject, o.json, o.object.metadata);
  if (r.representation === 'metadata')
    return JSON.stringify(partialObjectMetadata(o.object.metadata));
  return o.json();
}

/** The body of one object (a get, a watch event's object): a Table is the Table of its row. */
export function objectBody(
  o: BuiltObject,
  columns: readonly TableColumnDefinition[],
  r: Rendering,
  resourceVersion: string,
): string {
  if (r.representation !== 'table') return itemJson(o, r);
  return (
    `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":${JSON.stringify(resourceVersion)}},` +
    `"columnDefinitions":${JSON.stringify(columns)},"rows":[${itemJson(o, r)}]}`
  );
}

/** A get: the object of that name in the view, built at its resourceVersion, or undefined. */
export async function findObject(
  kind: ServedKind,
  view: View,
  name: string,
): Promise<BuiltObject | undefined> {
  const selectors: Selectors = {
    labels: [],
    fields: [{ field: FIELD_METADATA_NAME, operator: '=', value: name }],
  };
  for await (const listed of kind.matching(view, selectors))
    return listed.build(view.resourceVersion);
  return undefined;
}

/** Items are written in batches of about this many characters (fewer, larger chunks). */
const WRITE_BATCH = 64 * 1024;
/**
 * As kube-apiserver compresses a response (k8s.io/apiserver responsewriters): gzip level 1, and
 * only a body past 128 KiB. A list is a stream whose size is not known first, so the status line
 * waits for the first 128 KiB (or the end); level 6, zlib's default, cost the single-threaded
 * controller about three times the CPU per byte for a few percent smaller lists.
 */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
const GZIP_LEVEL = 1;

/**
 * Where a list's text goes: held until the status line is sent (the first GZIP_THRESHOLD_BYTES
 * or the end decide whether the body is gzipped), then the response or a gzip stream into it.
 */
class ListBody {
  private pending = '';
  private gone = false;
  private out: Writable | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly gzipAccepted: boolean,
  ) {
    res.once('close', () => {
      if (res.writableFinished) return;
      // The client left: unblock a waiting write, and free the gzip stream.
      this.gone = true;
      this.out?.emit('drain');
      if (this.out !== undefined && this.out !== res) this.out.destroy();
    });
  }

  async write(text: string): Promise<void> {
    this.pending += text;
    const batch = this.out === undefined ? GZIP_THRESHOLD_BYTES : WRITE_BATCH;
    if (this.pending.length >= batch) await this.flush();
  }

  /** The status line and headers, then the body's stream: gzip only past the threshold. */
  private start(ending: boolean): Writable {
    const gzip = this.gzipAccepted && !ending;
    this.res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      Vary: 'Accept-Encoding',
      ...(gzip && { 'Content-Encoding': 'gzip' }),
    });
    if (!gzip) return this.res;
    const z = createGzip({ level: GZIP_LEVEL });
    z.pipe(this.res);
    return z;
  }

  private async flush(): Promise<void> {
    if (this.gone) throw new Error('the client went away');
    const text = this.pending;
    this.pending = '';
    this.out ??= this.start(false);
    if (this.out.write(text)) return;
    await new Promise<void>((resolve) => this.out!.once('drain', resolve));
    if (this.gone) throw new Error('the client went away');
  }

  end(text: string): void {
    this.out ??= this.start(true);
    this.out.end(this.pending + text);
  }
}

/**
 * Streams a list of the view's matching objects of a kind (`objects`: from the list's position
 * on), at most `limit` (0: all); the continue token names the next match. The list's metadata
 * comes after its items (known once they are written); JSON readers do not mind the order.
 */
export async function sendList(
  res: ServerResponse,
  kind: ServedKind,
  view: View,
  objects: AsyncGenerator<ListedObject>,
  r: Rendering,
  limit: number,
  gzip = false,
): Promise<void> {
  const rv = view.resourceVersion;
  const head =
    r.representation === 'table'
      ? `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":${JSON.stringify(kind.columns)},"rows":[`
      : r.representation === 'metadata'
        ? '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","items":['
        : `{"kind":"${kind.listKind}","apiVersion":"${SERVED_API_VERSION}","items":[`;
  // The status line waits for the first objects (ListBody), so that an error before them (a
  // revision file gone) is still a Status and not a cut body.
  let next = await objects.next();
  const body = new ListBody(res, gzip);
  await body.write(head);
  let count = 0;
  let continueAt: ListPosition | undefined;
  while (!next.done) {
    if (limit > 0 && count === limit) {
      continueAt = next.value.position;
      await objects.return(undefined);
      break;
    }
    await body.write((count === 0 ? '' : ',') + itemJson(next.value.build(rv), r));
    count++;
    next = await objects.next();
  }
  const metadata: Record<string, string> = { resourceVersion: rv };
  if (continueAt) metadata.continue = encodeContinue(rv, continueAt);
  body.end(`],"metadata":${JSON.stringify(metadata)}}`);
}
