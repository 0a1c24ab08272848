// Writes one catalog revision (revision-format.ts) from a stream of blobs. Blobs arrive in the
// source's order and are spooled to disk as they come; in memory there are only per-blob
// numbers (typed columns), the hash bytes and the distinct schema/package/name strings. The
// blob order is then computed, and all.jsonl is copied from the spool in that order.
// Blob order depends on the blobs alone, the parser's identities on the walk order: which blob of
// a repeated identity the parser kept plain is recorded in the index (plainRepeats) where blob
// order would guess it wrong.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { isRevisionKey, isRevisionOf } from '../api/v1/revision-url.js';
import { BufferedFileWriter, readExactly } from '../util/file-io.js';
import { ByteColumn, Column } from './columns.js';
import { contentHashHex } from './http-cache.js';
import {
  ALL_FILE,
  ALL_GZIP_FILE,
  FORMAT_VERSION,
  INDEX_FILE,
  NAME_BLOCK,
  NAMES_FILE,
  OFFSETS_FILE,
  compareStrings,
} from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';

/** What the store needs of a blob (src/fbc's Blob has these fields). */
export interface ContentBlob {
  schema: string;
  package?: string | undefined;
  name?: string | undefined;
  /** Canonical JSON: compact, so it never holds a raw newline. */
  canonical: string;
  /** `sha256:<hex>` of `canonical`. */
  hash: string;
  /**
   * The parser's identity (src/fbc's Blob.identity): a disambiguator tells a repeated identity's
   * later blobs apart, the one without it kept the plain identity. Without it, the served view
   * keeps the plain identity for the first in blob order.
   */
  identity?: { disambiguator?: string | undefined };
}

const SPOOL_FILE = 'spool.jsonl';
/** The copy in blob order reads at most this many bytes (one line may be more) … */
const COPY_BATCH_BYTES = 1 << 20;
/** … and lines at once. */
const COPY_BATCH_LINES = 256;
const ABSENT = -1;
/** Spooled.plain: whether the parser kept the blob's plain identity. */
const PLAIN_UNKNOWN = 0;
const PLAIN = 1;
const DISAMBIGUATED = 2;

/** Interns strings to small integers; ranks them in compareStrings order. */
class StringTable {
  private readonly ids = new Map<string, number>();
  readonly strings: string[] = [];

  id(s: string | undefined): number {
    if (s === undefined || s === '') return ABSENT;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.ids.set(s, id);
      this.strings.push(s);
    }
    return id;
  }

  /** rank[id]: position of the string in sorted order. */
  ranks(): Int32Array {
    const order = this.strings
      .map((_, i) => i)
      .sort((a, b) => compareStrings(this.strings[a]!, this.strings[b]!));
    const rank = new Int32Array(this.strings.length);
    order.forEach((id, r) => (rank[id] = r));
    return rank;
  }
}

interface Spooled {
  count: number;
  strings: StringTable;
  schema: Column<Int32Array>;
  pkg: Column<Int32Array>;
  name: Column<Int32Array>;
  offset: Column<Float64Array>;
  length: Column<Uint32Array>;
  hashes: ByteColumn;
  /** PLAIN_UNKNOWN (no identity given), PLAIN or DISAMBIGUATED. */
  plain: Column<Uint8Array>;
}

async function spool(file: string, blobs: AsyncIterable<ContentBlob>): Promise<Spooled> {
  const s: Spooled = {
    count: 0,
    strings: new StringTable(),
    schema: new Column((n) => new Int32Array(n)),
    pkg: new Column((n) => new Int32Array(n)),
    name: new Column((n) => new Int32Array(n)),
    offset: new Column((n) => new Float64Array(n)),
    length: new Column((n) => new Uint32Array(n)),
    hashes: new ByteColumn(32),
    plain: new Column((n) => new Uint8Array(n)),
  };
  const fh = await open(file, 'w');
  try {
    const out = new BufferedFileWriter(fh);
    for await (const blob of blobs) {
      if (blob.schema === '') throw new Error(`blob ${s.count}: empty schema`);
      if (blob.canonical.includes('\n'))
        throw new Error(`blob ${s.count}: canonical form holds a newline`);
      const hex = /^sha256:([0-9a-f]{64})$/.exec(blob.hash)?.[1];
      if (hex === undefined) throw new Error(`blob ${s.count}: invalid hash`);
      s.schema.push(s.strings.id(blob.schema));
      s.pkg.push(s.strings.id(blob.package));
      s.name.push(s.strings.id(blob.name));
      s.offset.push(out.position);
      s.hashes.push(Buffer.from(hex, 'hex'));
      s.plain.push(
        blob.identity === undefined
          ? PLAIN_UNKNOWN
          : blob.identity.disambiguator === undefined
            ? PLAIN
            : DISAMBIGUATED,
      );
      s.length.push((await out.writeString(blob.canonical)) + (await out.writeString('\n')));
      s.count++;
    }
    await out.flush();
  } finally {
    await fh.close();
  }
  return s;
}

/** The catalog contentHash of the spooled blobs (same rule as src/fbc CatalogHasher). */
function spooledContentHash(s: Spooled): string {
  const order = Array.from({ length: s.count }, (_, i) => i).sort((a, b) => s.hashes.compare(a, b));
  const h = createHash('sha256');
  for (const i of order) h.update(`sha256:${s.hashes.hex(i)}\n`);
  return `sha256:${h.digest('hex')}`;
}

function blobOrder(s: Spooled, rank: Int32Array): Uint32Array {
  const r = (id: number): number => (id === ABSENT ? -1 : rank[id]!);
  const perm = new Uint32Array(s.count);
  for (let i = 0; i < s.count; i++) perm[i] = i;
  return perm.sort(
    (a, b) =>
      r(s.schema.get(a)) - r(s.schema.get(b)) ||
      r(s.pkg.get(a)) - r(s.pkg.get(b)) ||
      r(s.name.get(a)) - r(s.name.get(b)) ||
      s.hashes.compare(a, b),
  );
}

/**
 * The runs of a repeated identity (2+ consecutive blobs in blob order with the same schema,
 * package and name, package or name present) whose plain blob, as the parser chose it, is not
 * the run's first: `[start, end, plainSeq]` (RevisionIndexFile.plainRepeats).
 */
function plainRepeats(s: Spooled, perm: Uint32Array): Array<[number, number, number]> {
  const runs: Array<[number, number, number]> = [];
  const sameIdentity = (i: number, j: number): boolean =>
    s.schema.get(i) === s.schema.get(j) &&
    s.pkg.get(i) === s.pkg.get(j) &&
    s.name.get(i) === s.name.get(j);
  let end: number;
  for (let start = 0; start < s.count; start = end) {
    const first = perm[start]!;
    end = start + 1;
    while (end < s.count && sameIdentity(first, perm[end]!)) end++;
    // Without package and name, every blob is told apart by its hash (no plain one).
    if (end - start < 2 || (s.pkg.get(first) === ABSENT && s.name.get(first) === ABSENT)) continue;
    let plainSeq = start;
    while (plainSeq < end && s.plain.get(perm[plainSeq]!) !== PLAIN) plainSeq++;
    if (plainSeq > start && plainSeq < end) runs.push([start, end, plainSeq]);
  }
  return runs;
}

/** Blobs with a name, in blob order: name id (StringTable) and sequence number. */
interface NamedBlobs {
  nameId: Column<Int32Array>;
  seq: Column<Uint32Array>;
}

interface OrderedContent {
  allBytes: number;
  /** Float64 LE line offsets plus the file size: offsets.bin. */
  offsets: Buffer;
  schemas: RevisionIndexFile['schemas'];
  packages: RevisionIndexFile['packages'];
  named: NamedBlobs;
}

/** Copies the spool into all.jsonl in blob order, collecting the runs and name postings. */
async function writeOrderedContent(
  dir: string,
  spoolPath: string,
  s: Spooled,
  perm: Uint32Array,
): Promise<OrderedContent> {
  const offsets = Buffer.alloc((s.count + 1) * 8);
  const schemas: RevisionIndexFile['schemas'] = [];
  const packages = new Map<string, number[]>();
  const named: NamedBlobs = {
    nameId: new Column((n) => new Int32Array(n)),
    seq: new Column((n) => new Uint32Array(n)),
  };
  /** The runs and name postings of line `seq` (blob `i` of the spool). */
  const noteLine = (i: number, seq: number): void => {
    const schema = s.strings.strings[s.schema.get(i)]!;
    const lastSchema = schemas[schemas.length - 1];
    if (lastSchema?.[0] === schema) lastSchema[2] = seq + 1;
    else schemas.push([schema, seq, seq + 1]);
    const pkgId = s.pkg.get(i);
    if (pkgId !== ABSENT) {
      const pkg = s.strings.strings[pkgId]!;
      let runs = packages.get(pkg);
      if (runs === undefined) packages.set(pkg, (runs = []));
      if (runs.length > 0 && runs[runs.length - 1] === seq) runs[runs.length - 1] = seq + 1;
      else runs.push(seq, seq + 1);
    }
    const nameId = s.name.get(i);
    if (nameId !== ABSENT) {
      named.nameId.push(nameId);
      named.seq.push(seq);
    }
  };
  const spoolFile = await open(spoolPath, 'r');
  const allFile = await open(path.join(dir, ALL_FILE), 'w');
  try {
    const out = new BufferedFileWriter(allFile);
    let batch = Buffer.allocUnsafe(COPY_BATCH_BYTES);
    for (let seq = 0; seq < s.count;) {
      // A batch of lines in blob order, read concurrently (one await per batch, not per line:
      // the copy of a 50 MB catalog's 10,875 lines took 0.48 s line by line), then written.
      const start = seq;
      let bytes = 0;
      while (seq < s.count && seq - start < COPY_BATCH_LINES) {
        const len = s.length.get(perm[seq]!);
        if (seq > start && bytes + len > COPY_BATCH_BYTES) break;
        bytes += len;
        seq++;
      }
      if (bytes > batch.length) batch = Buffer.allocUnsafe(bytes);
      const reads: Array<Promise<Buffer>> = [];
      for (let q = start, at = 0; q < seq; q++) {
        const i = perm[q]!;
        const len = s.length.get(i);
        reads.push(readExactly(spoolFile, s.offset.get(i), len, batch.subarray(at, at + len)));
        at += len;
      }
      await Promise.all(reads);
      for (let q = start, position = out.position; q < seq; q++) {
        const i = perm[q]!;
        offsets.writeDoubleLE(position, q * 8);
        position += s.length.get(i);
        noteLine(i, q);
      }
      await out.write(batch.subarray(0, bytes));
    }
    await out.flush();
    offsets.writeDoubleLE(out.position, s.count * 8);
    await allFile.sync();
    return { allBytes: out.position, offsets, schemas, packages: [...packages], named };
  } finally {
    await Promise.all([spoolFile.close(), allFile.close()]);
  }
}

/** Writes names.jsonl sorted by (name, seq); returns its fences and size. */
async function writeNameIndex(
  dir: string,
  strings: StringTable,
  rank: Int32Array,
  named: NamedBlobs,
): Promise<{ nameFences: RevisionIndexFile['nameFences']; namesBytes: number }> {
  const order = new Uint32Array(named.nameId.length);
  for (let k = 0; k < order.length; k++) order[k] = k;
  order.sort(
    (a, b) =>
      rank[named.nameId.get(a)]! - rank[named.nameId.get(b)]! ||
      named.seq.get(a) - named.seq.get(b),
  );
  const nameFences: RevisionIndexFile['nameFences'] = [];
  const file = await open(path.join(dir, NAMES_FILE), 'w');
  try {
    const out = new BufferedFileWriter(file);
    for (let k = 0; k < order.length; k++) {
      const name = strings.strings[named.nameId.get(order[k]!)]!;
      if (k % NAME_BLOCK === 0) nameFences.push([name, out.position]);
      await out.writeString(`${JSON.stringify([name, named.seq.get(order[k]!)])}\n`);
    }
    await out.flush();
    await file.sync();
    return { nameFences, namesBytes: out.position };
  } finally {
    await file.close();
  }
}

/**
 * Writes all.jsonl.gz beside all.jsonl, under a temporary name renamed into place when complete
 * (its presence means it is whole); returns its size. Done after the revision is served: the
 * gzip of a 50 MB catalog takes a second, which Serving does not wait for.
 */
export async function compressAll(dir: string): Promise<number> {
  const to = path.join(dir, ALL_GZIP_FILE);
  const tmp = `${to}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 64 KiB chunks: zlib's output buffers are garbage outside the V8 heap until collected, and
    // larger chunks measurably raise the peak RSS of a 50 MB build.
    await pipeline(
      createReadStream(path.join(dir, ALL_FILE), { highWaterMark: 64 * 1024 }),
      createGzip({ chunkSize: 64 * 1024 }),
      createWriteStream(tmp, { flush: true }),
    );
    const { size } = await stat(tmp);
    await rename(tmp, to);
    return size;
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

export interface WrittenRevision {
  /** The blobs' contentHash. */
  contentHash: string;
  blobs: number;
  allBytes: number;
}

/**
 * Writes the revision files into `dir` (an empty, private directory). Throws if the blobs'
 * contentHash is not `revision`, when given: a contentHash, or a revision key (api/v1
 * revisionKey) that a replica read from status.urls.base. Without it, the revision is whatever
 * the blobs hash to (a catalog's new content, built before anything else looks at it).
 */
export async function writeRevisionFiles(
  dir: string,
  revision: string | undefined,
  blobs: AsyncIterable<ContentBlob>,
): Promise<WrittenRevision> {
  if (revision !== undefined && !isRevisionKey(revision)) contentHashHex(revision);
  const spoolPath = path.join(dir, SPOOL_FILE);
  const s = await spool(spoolPath, blobs);
  const contentHash = spooledContentHash(s);
  if (revision !== undefined && !isRevisionOf(contentHash, revision))
    throw new Error(
      `content hash mismatch: the blobs hash to ${contentHash}, expected ${revision}`,
    );
  const rank = s.strings.ranks();
  const perm = blobOrder(s, rank);
  const content = await writeOrderedContent(dir, spoolPath, s, perm);
  await rm(spoolPath, { force: true });
  const { nameFences, namesBytes } = await writeNameIndex(dir, s.strings, rank, content.named);
  await writeFile(path.join(dir, OFFSETS_FILE), content.offsets, { flush: true });
  const index: RevisionIndexFile = {
    format: FORMAT_VERSION,
    contentHash,
    blobs: s.count,
    allBytes: content.allBytes,
    schemas: content.schemas,
    packages: content.packages,
    nameFences,
    namesBytes,
  };
  const repeats = plainRepeats(s, perm);
  if (repeats.length > 0) index.plainRepeats = repeats;
  await writeFile(path.join(dir, INDEX_FILE), `${JSON.stringify(index)}\n`, { flush: true });
  return { contentHash, blobs: s.count, allBytes: content.allBytes };
}
