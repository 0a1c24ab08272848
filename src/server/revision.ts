// One served revision: its open files and the small in-memory part of its index (schema and
// package runs, name fences, line offsets). Answers metas queries with ranges of blobs and
// streams those ranges; a query reads only index blocks and the matching lines.
import { open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { readExactly } from './file-writer.js';
import type { MetasQuery } from './query.js';
import { intersectRanges, pushRange, rangeCount, seqsWithin } from './ranges.js';
import type { SeqRanges } from './ranges.js';
import {
  ALL_FILE,
  FORMAT_VERSION,
  INDEX_FILE,
  NAMES_FILE,
  OFFSETS_FILE,
  compareStrings,
} from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';

/** Bytes read from revision files on behalf of requests (tests assert a query reads little). */
export interface IoCounters {
  /** Bytes read from all.jsonl. */
  contentBytesRead: number;
  /** Bytes read from names.jsonl. */
  indexBytesRead: number;
}

export interface Selection {
  /** Byte ranges of all.jsonl, sorted, disjoint and non-adjacent. */
  byteRanges: Array<[number, number]>;
  blobs: number;
  bytes: number;
}

const READ_CHUNK = 256 * 1024;
const NAMES_READ_CHUNK = 16 * 1024;

export class Revision {
  private constructor(
    readonly dir: string,
    readonly contentHash: string,
    readonly blobs: number,
    readonly allBytes: number,
    private readonly all: FileHandle,
    private readonly names: FileHandle,
    private readonly offsets: Float64Array,
    private readonly schemas: Map<string, SeqRanges>,
    private readonly packages: Map<string, SeqRanges>,
    private readonly nameFences: Array<[string, number]>,
    private readonly namesBytes: number,
    private readonly io: IoCounters,
  ) {}

  /** Opens the revision in `dir`; `contentHash` must be the one it was written for. */
  static async open(dir: string, contentHash: string, io: IoCounters): Promise<Revision> {
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
    const all = await open(path.join(dir, ALL_FILE), 'r');
    let names: FileHandle;
    try {
      names = await open(path.join(dir, NAMES_FILE), 'r');
      const { size } = await all.stat();
      if (size !== index.allBytes) throw new Error('the revision content file is truncated');
    } catch (cause) {
      await all.close();
      throw cause;
    }
    const schemas = new Map<string, SeqRanges>(index.schemas.map(([s, a, b]) => [s, [[a, b]]]));
    const packages = new Map<string, SeqRanges>(
      index.packages.map(([p, flat]) => {
        const runs: SeqRanges = [];
        for (let k = 0; k < flat.length; k += 2) runs.push([flat[k]!, flat[k + 1]!]);
        return [p, runs];
      }),
    );
    return new Revision(
      dir,
      contentHash,
      index.blobs,
      index.allBytes,
      all,
      names,
      offsets,
      schemas,
      packages,
      index.nameFences,
      index.namesBytes,
      io,
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.all.close(), this.names.close()]);
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
    let ranges: SeqRanges = this.blobs > 0 ? [[0, this.blobs]] : [];
    if (query.schema !== undefined)
      ranges = intersectRanges(ranges, this.schemas.get(query.schema) ?? []);
    if (query.package !== undefined)
      ranges = intersectRanges(ranges, this.packages.get(query.package) ?? []);
    if (query.name !== undefined && ranges.length > 0)
      ranges = seqsWithin(await this.seqsNamed(query.name), ranges);
    return this.toSelection(ranges);
  }

  private toSelection(ranges: SeqRanges): Selection {
    const byteRanges: Array<[number, number]> = [];
    let bytes = 0;
    for (const [s, e] of ranges) {
      const start = this.offsets[s]!;
      const end = this.offsets[e]!;
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
    const fences = this.nameFences;
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
    while (position < this.namesBytes) {
      const length = Math.min(NAMES_READ_CHUNK, this.namesBytes - position);
      const chunk = await readExactly(this.names, position, length);
      this.io.indexBytesRead += length;
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

  /** The bytes of the selection, in chunks of at most READ_CHUNK. */
  async *read(selection: Selection): AsyncGenerator<Buffer> {
    for (const [start, end] of selection.byteRanges) {
      for (let pos = start; pos < end;) {
        const length = Math.min(READ_CHUNK, end - pos);
        const chunk = await readExactly(this.all, pos, length);
        this.io.contentBytesRead += length;
        pos += length;
        yield chunk;
      }
    }
  }
}
