// Reads a revision's blobs at given sequence ranges as entries (identity, object name, labels,
// fields) with their parsed content, in blob order. A repeated identity is told apart by the
// revision's record of the blob the parser kept plain (lease.repeatPlainSeq) or else by the blob
// before it (served-object.ts, blobIdentity), so a read that starts inside a range reads the blob
// before its start too.
import type { BlobIdentity } from '../fbc/index.js';
import type { RevisionLease } from '../server/index.js';
import { blobEntry } from './served-object.js';
import type { BlobEntry } from './served-object.js';
import type { SeqRanges } from './selection.js';

export interface ReadBlob {
  entry: BlobEntry;
  content: Record<string, unknown>;
  line: string;
}

/** The ranges from `from` on (undefined: all), each clipped range with the blob before it. */
function fromSeq(ranges: SeqRanges, from: number | undefined): SeqRanges {
  if (from === undefined) return ranges;
  const out: SeqRanges = [];
  for (const [s, e] of ranges) {
    if (e <= from) continue;
    out.push([s < from ? from - 1 : s, e]);
  }
  return out;
}

export async function* readBlobs(
  catalog: string,
  lease: RevisionLease,
  ranges: SeqRanges,
  from?: number,
): AsyncGenerator<ReadBlob> {
  let previous: { seq: number; identity: BlobIdentity } | undefined;
  for await (const { seq, line } of lease.blobsIn(fromSeq(ranges, from))) {
    const content = JSON.parse(line) as Record<string, unknown>;
    const before = previous?.seq === seq - 1 ? previous.identity : undefined;
    const entry = blobEntry(catalog, seq, content, line, before, lease.repeatPlainSeq(seq));
    previous = { seq, identity: entry.identity };
    if (from !== undefined && seq < from) continue;
    yield { entry, content, line };
  }
}

/** What a revision's object index keeps per blob: enough for a get by name and a watch's diff. */
export interface IndexedObject {
  seq: number;
  name: string;
  /** The blob's content hash. */
  hash: string;
}

/** Builds a revision's object index by reading it. */
type BuildIndex = (catalog: string, lease: RevisionLease) => Promise<ObjectIndex>;

/**
 * Per revision, its objects' names and content hashes in blob order (and by name), built once by
 * reading the revision (`build`: CatalogMetadata's by default, one per blob) and kept for the
 * `size` revisions used last.
 */
export class ObjectIndexCache {
  private readonly entries = new Map<string, Promise<ObjectIndex>>();

  constructor(
    private readonly size = 8,
    private readonly build: BuildIndex = buildIndex,
  ) {}

  get(catalog: string, lease: RevisionLease): Promise<ObjectIndex> {
    const key = `${catalog}\n${lease.contentHash}`;
    let index = this.entries.get(key);
    if (index) {
      this.entries.delete(key);
      this.entries.set(key, index);
      return index;
    }
    index = this.build(catalog, lease);
    this.entries.set(key, index);
    index.catch(() => this.entries.delete(key));
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    return index;
  }
}

export interface ObjectIndex {
  objects: IndexedObject[];
  byName: Map<string, IndexedObject>;
}

async function buildIndex(catalog: string, lease: RevisionLease): Promise<ObjectIndex> {
  const objects: IndexedObject[] = [];
  for await (const { entry } of readBlobs(
    catalog,
    lease,
    lease.blobs > 0 ? [[0, lease.blobs]] : [],
  ))
    objects.push({ seq: entry.seq, name: entry.name, hash: entry.hash });
  return { objects, byName: new Map(objects.map((o) => [o.name, o])) };
}
