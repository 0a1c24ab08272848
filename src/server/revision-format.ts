// On-disk layout of one catalog revision (docs/server.md):
//
//   <root>/<catalog>/<hex>/all.jsonl    canonical blobs, one per line, in blob order
//   <root>/<catalog>/<hex>/all.jsonl.gz all.jsonl gzipped once, after the revision is served
//                                       (for gzip /all; identity until it is there)
//   <root>/<catalog>/<hex>/offsets.bin  float64 LE byte offset of each line, plus the file size
//   <root>/<catalog>/<hex>/names.jsonl  `[name,seq]` lines sorted by (name, seq)
//   <root>/<catalog>/<hex>/index.json   RevisionIndexFile: counts, schema and package ranges,
//                                       one fence per NAME_BLOCK lines of names.jsonl, the
//                                       repeated identities whose plain blob is not their
//                                       first in blob order (plainRepeats)
//
// Blob order: schema, then package (absent first), then name (absent first), then blob hash;
// strings compare by UTF-16 code units. A revision is written under `<hex>.<random>.tmp` and
// renamed into place when complete, so a directory named by a bare hex is always whole.
import path from 'node:path';

/**
 * 2: all.jsonl.gz is written after the revision is served, and is not in the index.
 * 3: index.json records plainRepeats (the parser's plain blob of a repeated identity, where it is
 * not the first in blob order); a revision of format 2 does not open, and ensureServed builds
 * it again.
 */
export const FORMAT_VERSION = 3;
export const NAME_BLOCK = 64;

export const ALL_FILE = 'all.jsonl';
export const ALL_GZIP_FILE = 'all.jsonl.gz';
export const OFFSETS_FILE = 'offsets.bin';
export const NAMES_FILE = 'names.jsonl';
export const INDEX_FILE = 'index.json';

export interface RevisionIndexFile {
  format: number;
  contentHash: string;
  blobs: number;
  allBytes: number;
  /** `[schema, startSeq, endSeq]`, in blob order. */
  schemas: Array<[string, number, number]>;
  /** `[package, [start, end, start, end, ...]]`: the package's runs (one per schema). */
  packages: Array<[string, number[]]>;
  /** `[first name of the block, byte offset of the block in names.jsonl]`. */
  nameFences: Array<[string, number]>;
  namesBytes: number;
  /**
   * `[startSeq, endSeq, plainSeq]`, in blob order: a run of blobs with one repeated identity (a
   * custom schema's same schema, package and name) where the parser kept the plain identity for
   * the blob at plainSeq, not the run's first (src/fbc/catalog.ts keeps it for the first in walk
   * order, which blob order does not keep). Its other blobs carry their hash as disambiguator.
   * Absent when there is none.
   */
  plainRepeats?: Array<[number, number, number]>;
}

export const REVISION_DIR = /^[0-9a-f]{64}$/;
export const TEMP_REVISION_DIR = /^[0-9a-f]{16,64}\.[0-9a-z]+\.tmp$/;

export function revisionDir(root: string, catalog: string, hex: string): string {
  return path.join(root, catalog, hex);
}

/** The order of strings in blob order and in names.jsonl. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
