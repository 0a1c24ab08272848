// One served revision: its open files and the small in-memory part of its index (schema and
// package runs, name fences, line offsets). Answers metas queries with ranges of blobs and
// streams those ranges; a query reads only index blocks and the matching lines.
import { open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { readExactly } from '../util/file-io.js';
import type { MetasQuery } from './query.js';
import { intersectRanges, pushRange, rangeCount, seqsWithin } from './ranges.js';
import type { SeqRanges } from './ranges.js';
import {
  ALL_FILE,
  ALL_GZIP_FILE,
  FORMAT_VERSION,
  INDEX_FILE,
  NAMES_FILE,
  OFFSETS_FILE,
  compareStrings,
} from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';
import { sendFileRanges } from './send-file.js';
import type { ChunkPool } from './send-file.js';

/** Bytes read from revision files on behalf of requests (tests assert a query reads little). */
export interface IoCounters {
  /** Bytes read from all.jsonl. */
  contentBytesRead: number;
  /** Bytes read from names.jsonl. */
  indexBytesRead: number;
  /** Bytes read from all.jsonl.gz. */
  gzipBytesRead: number;
}

export interface Selection {
  /** Byte ranges of all.jsonl, sorted, disjoint and non-adjacent. */
  byteRanges: Array<[number, number]>;
  blobs: number;
  bytes: number;
}

const NAMES_READ_CHUNK = 16 * 1024;
/** schemaBlobs reads about this many bytes at once (a longer blob alone). */
const BLOB_READ_BATCH = 256 * 1024;

interface RevisionParts {
  dir: string;
  contentHash: string;
  blobs: number;
  allBytes: number;
  all: FileHandle;
  names: FileHandle;
  offsets: Float64Array;
  schemas: Map<string, SeqRanges>;
  packages: Map<string, SeqRanges>;
  nameFences: Array<[string, number]>;
  namesBytes: number;
  plainRepeats: Array<[number, number, number]>;
  io: IoCounters;
  pool: ChunkPool;
}

async function openAll(dir: string, files: string[]): Promise<FileHandle[]> {
  const handles: FileHandle[] = [];
  try {
    for (const f of files) handles.push(await open(path.join(dir, f), 'r'));
    return handles;
  } catch (cause) {
    await Promise.all(handles.map((h) => h.close()));
    throw new Error('cannot open the revision files', { cause });
  }
}

/** The gzip of all.jsonl, once it is written (compressAll): its open file and size. */
export interface AllGzip {
  file: FileHandle;
  bytes: number;
}

async function openAllGzip(dir: string): Promise<AllGzip | undefined> {
  let file: FileHandle;
  try {
    file = await open(path.join(dir, ALL_GZIP_FILE), 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error('cannot open the revision files', { cause: err });
  }
  try {
    return { file, bytes: (await file.stat()).size };
  } catch (cause) {
    await file.close();
    throw new Error('cannot open the revision files', { cause });
  }
}

export class Revision {
  readonly dir: string;
  readonly contentHash: string;
  readonly blobs: number;
  readonly allBytes: number;
  /** Set once all.jsonl.gz is written; until then gzip /all is answered in identity. */
  private gzip: AllGzip | undefined;
  private closed = false;

  private constructor(
    private readonly p: RevisionParts,
    gzip: AllGzip | undefined,
  ) {
    this.dir = p.dir;
    this.contentHash = p.contentHash;
    this.blobs = p.blobs;
    this.allBytes = p.allBytes;
    this.gzip = gzip;
  }

  /** The gzip of the whole catalog, if written: what a request leases with the revision. */
  get allGzip(): AllGzip | undefined {
    return this.gzip;
  }

  /** Opens all.jsonl.gz, written since the revision was opened (store: after it is served). */
  async attachAllGzip(): Promise<void> {
    if (this.gzip || this.closed) return;
    const gzip = await openAllGzip(this.p.dir);
    if (this.closed || this.gzip) await gzip?.file.close();
    else this.gzip = gzip;
  }

  /**
   * Opens the revision in `dir`; `contentHash` must be the one it was written for. Responses
   * take their chunk buffers from `pool`.
   */
  static async open(
    dir: string,
    contentHash: string,
    io: IoCounters,
    pool: ChunkPool,
  ): Promise<Revision> {
    let index: RevisionIndexFile;
    try {
      index = JSON.parse(await readFile(path.join(dir, INDEX_FILE), 'utf8')) as RevisionIndexFile;
    } catch (cause) {
      throw new Error('cannot read the revision index', { cause });
    }
    if (index.format !== FORMAT_VERSION || index.contentHash !== contentHash)
      throw new Error('the revision index does not describe this revision');
    const raw = await readFile(path.join(dir, OFFSETS_FILE));
    if (raw.length !== (index.blobs + 1) * 8) throw new Error('the revision offsets are truncated');
    const offsets = new Float64Array(index.blobs + 1);
    for (let i = 0; i <= index.blobs; i++) offsets[i] = raw.readDoubleLE(i * 8);
    const [all, names] = (await openAll(dir, [ALL_FILE, NAMES_FILE])) as [FileHandle, FileHandle];
    const sizes = await Promise.all([all.stat(), names.stat()]);
    if (sizes[0].size !== index.allBytes || sizes[1].size !== index.namesBytes) {
      await Promise.all([all.close(), names.close()]);
      throw new Error('the revision files do not have the sizes in its index');
    }
    let gzip: AllGzip | undefined;
    try {
      gzip = await openAllGzip(dir);
    } catch (err) {
      await Promise.all([all.close(), names.close()]);
      throw err;
    }
    const packages = new Map<string, SeqRanges>(
      index.packages.map(([p, flat]) => {
        const runs: SeqRanges = [];
        for (let k = 0; k < flat.length; k += 2) runs.push([flat[k]!, flat[k + 1]!]);
        return [p, runs];
      }),
    );
    return new Revision(
      {
        dir,
        contentHash,
        blobs: index.blobs,
        allBytes: index.allBytes,
        all,
        names,
        offsets,
        schemas: new Map(index.schemas.map(([s, a, b]) => [s, [[a, b]]])),
        packages,
        nameFences: index.nameFences,
        namesBytes: index.namesBytes,
        plainRepeats: index.plainRepeats ?? [],
        io,
        pool,
      },
      gzip,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.p.all.close(), this.gzip?.file.close(), this.p.names.close()]);
  }

  /** The whole catalog. */
  selectAll(): Selection {
    return {
      byteRanges: this.allBytes > 0 ? [[0, this.allBytes]] : [],
      blobs: this.blobs,
      bytes: this.allBytes,
    };
  }

  /** The blobs matching every given field of the query. */
  async select(query: MetasQuery): Promise<Selection> {
    return this.toSelection(await this.selectSeqs(query));
  }

  /**
   * The blobs matching every given field of the query (canonical JSON, no newline) in blob
   * order, from the `skip`-th, at most `take`: read from the index and then in batches of
   * about BLOB_READ_BATCH bytes, as schemaBlobs reads (GraphQL's joins: one package's
   * channels, one bundle by name).
   */
  async *selectedBlobs(query: MetasQuery, skip = 0, take = Infinity): AsyncGenerator<string> {
    let toSkip = Math.max(0, skip);
    let left = take;
    for (const [first, end] of await this.selectSeqs(query)) {
      if (!(left > 0)) return;
      const from = first + Math.min(toSkip, end - first);
      toSkip -= from - first;
      const to = Math.min(end, from + left);
      if (from >= to) continue;
      left -= to - from;
      yield* this.linesOf(from, to);
    }
  }

  /** The sequence numbers (blob order) of the blobs matching every given field of the query. */
  async selectSeqs(query: MetasQuery): Promise<SeqRanges> {
    let ranges: SeqRanges = this.blobs > 0 ? [[0, this.blobs]] : [];
    if (query.schema !== undefined)
      ranges = intersectRanges(ranges, this.p.schemas.get(query.schema) ?? []);
    if (query.package !== undefined)
      ranges = intersectRanges(ranges, this.p.packages.get(query.package) ?? []);
    if (query.name !== undefined && ranges.length > 0)
      ranges = seqsWithin(await this.seqsNamed(query.name), ranges);
    return ranges;
  }

  /** The catalog's packages (the index's keys), in blob order of their first blob. */
  packageNames(): string[] {
    return [...this.p.packages.keys()];
  }

  /**
   * When `seq` is in a repeated identity's run whose plain blob (the parser's choice) is not the
   * run's first in blob order, the sequence number of that plain blob (index.json plainRepeats).
   */
  repeatPlainSeq(seq: number): number | undefined {
    const runs = this.p.plainRepeats;
    let lo = 0;
    let hi = runs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [start, end, plainSeq] = runs[mid]!;
      if (seq < start) hi = mid - 1;
      else if (seq >= end) lo = mid + 1;
      else return plainSeq;
    }
    return undefined;
  }

  /**
   * The blobs at the given sequence numbers (canonical JSON, no newline) in order, each with its
   * sequence number: read in batches of about BLOB_READ_BATCH bytes, as schemaBlobs.
   */
  async *blobsIn(ranges: SeqRanges): AsyncGenerator<{ seq: number; line: string }> {
    for (const [from, to] of ranges)
      yield* this.seqLinesOf(Math.max(0, from), Math.min(to, this.blobs));
  }

  /** The catalog's schemas in blob order, each with its number of blobs. */
  schemaCounts(): Array<{ schema: string; blobs: number }> {
    return [...this.p.schemas].map(([schema, runs]) => ({ schema, blobs: rangeCount(runs) }));
  }

  /**
   * The blobs of one schema (canonical JSON, no newline) in blob order, from its `skip`-th, at
   * most `take` of them: read in batches of about BLOB_READ_BATCH bytes, so that a reader that
   * stops early has read little and holds one batch at a time.
   */
  async *schemaBlobs(schema: string, skip: number, take: number): AsyncGenerator<string> {
    const run = this.p.schemas.get(schema)?.[0];
    if (!run || !(take > 0)) return;
    const seq = Math.min(run[0] + Math.max(0, skip), run[1]);
    yield* this.linesOf(seq, Math.min(seq + take, run[1]));
  }

  /** The lines of blobs `from` to `end` (exclusive), read in batches of BLOB_READ_BATCH. */
  private async *linesOf(from: number, end: number): AsyncGenerator<string> {
    for await (const { line } of this.seqLinesOf(from, end)) yield line;
  }

  /** linesOf, each line with its sequence number. */
  private async *seqLinesOf(
    from: number,
    end: number,
  ): AsyncGenerator<{ seq: number; line: string }> {
    const offsets = this.p.offsets;
    let seq = from;
    while (seq < end) {
      const start = offsets[seq]!;
      let last = seq + 1;
      while (last < end && offsets[last + 1]! - start <= BLOB_READ_BATCH) last++;
      const bytes = offsets[last]! - start;
      const buf = await readExactly(this.p.all, start, bytes);
      this.p.io.contentBytesRead += bytes;
      // Each line without its newline.
      for (let s = seq; s < last; s++)
        yield {
          seq: s,
          line: buf.toString('utf8', offsets[s]! - start, offsets[s + 1]! - start - 1),
        };
      seq = last;
    }
  }

  private toSelection(ranges: SeqRanges): Selection {
    const byteRanges: Array<[number, number]> = [];
    let bytes = 0;
    for (const [s, e] of ranges) {
      const start = this.p.offsets[s]!;
      const end = this.p.offsets[e]!;
      bytes += end - start;
      pushRange(byteRanges, start, end);
    }
    return { byteRanges, blobs: rangeCount(ranges), bytes };
  }

  /**
   * Sequence numbers of the blobs with this name, ascending. Reads names.jsonl from the last
   * block whose first name sorts before `name` until a greater name.
   */
  private async seqsNamed(name: string): Promise<number[]> {
    const fences = this.p.nameFences;
    if (fences.length === 0) return [];
    let lo = 0;
    let hi = fences.length - 1;
    // The last fence whose name is < `name` (matches may start in that block), else block 0.
    let from = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (compareStrings(fences[mid]![0], name) < 0) {
        from = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const seqs: number[] = [];
    let position = fences[from]![1];
    let carry = '';
    const decoder = new StringDecoder('utf8');
    while (position < this.p.namesBytes) {
      const length = Math.min(NAMES_READ_CHUNK, this.p.namesBytes - position);
      const chunk = await readExactly(this.p.names, position, length);
      this.p.io.indexBytesRead += length;
      position += length;
      const lines = (carry + decoder.write(chunk)).split('\n');
      carry = lines.pop()!;
      for (const line of lines) {
        const [n, seq] = JSON.parse(line) as [string, number];
        const c = compareStrings(n, name);
        if (c > 0) return seqs;
        if (c === 0) seqs.push(seq);
      }
    }
    return seqs;
  }

  /**
   * Writes the selection's bytes to `out` (not ended), straight from the open file: no
   * assembly, no copy but the read, two reused chunk buffers (send-file.ts).
   */
  async send(selection: Selection, out: Writable): Promise<void> {
    await sendFileRanges(this.p.all, selection.byteRanges, out, this.p.pool, (n) => {
      this.p.io.contentBytesRead += n;
    });
  }

  /** Writes the gzip of the whole catalog (`gzip`: allGzip, as the request leased it). */
  async sendAllGzip(gzip: AllGzip, out: Writable): Promise<void> {
    const whole: Array<[number, number]> = gzip.bytes > 0 ? [[0, gzip.bytes]] : [];
    await sendFileRanges(gzip.file, whole, out, this.p.pool, (n) => {
      this.p.io.gzipBytesRead += n;
    });
  }
}
