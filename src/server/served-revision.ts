// An open revision as the content store holds it (Served), and the leases requests take on it
// (RevisionLease): a lease fixes what its request reads, whatever the store activates meanwhile,
// and the store deletes a replaced revision only once its last lease is released.
import type { Writable } from 'node:stream';
import type { Timer } from '../util/clock.js';
import type { MetasQuery } from './query.js';
import type { Revision, Selection } from './revision.js';

export interface RevisionInfo {
  /** `sha256:<hex>`. */
  contentHash: string;
  lastModified: Date;
  blobs: number;
  /** Size of /api/v1/all in bytes. */
  allBytes: number;
}

/** A request's hold on one revision: everything it reads comes from that revision. */
export interface RevisionLease extends RevisionInfo {
  /**
   * Size of the precompressed gzip of /api/v1/all; undefined until it is written (shortly after
   * the revision is first served): gzip requests for the whole catalog are answered in identity
   * until then.
   */
  allGzipBytes: number | undefined;
  selectAll(): Selection;
  select(query: MetasQuery): Promise<Selection>;
  /** Writes the selection's bytes to `out` (not ended); rejects if `out` closes first. */
  send(selection: Selection, out: Writable): Promise<void>;
  /** Writes the whole catalog, precompressed (only when allGzipBytes is set). */
  sendAllGzip(out: Writable): Promise<void>;
  /** The catalog's schemas in blob order, each with its number of blobs (for GraphQL). */
  schemas(): Array<{ schema: string; blobs: number }>;
  /**
   * The blobs of one schema in blob order (canonical JSON lines without their newline), from
   * the `skip`-th, at most `take` (for GraphQL: its pages, and the shape of the catalog).
   */
  schemaBlobs(schema: string, skip: number, take: number): AsyncIterable<string>;
  /**
   * The blobs matching every given field of the query, as `select` selects them, in blob order
   * (canonical JSON lines without their newline), from the `skip`-th, at most `take` (for
   * GraphQL's joins: read through the package and name indexes, never the whole catalog).
   */
  selectedBlobs(query: MetasQuery, skip?: number, take?: number): AsyncIterable<string>;
  /** The sequence numbers (blob order) of the blobs a metas query selects, as sorted half-open ranges. */
  selectSeqs(query: MetasQuery): Promise<Array<[number, number]>>;
  /** The catalog's packages (the index's keys). */
  packageNames(): string[];
  /**
   * The sequence number of the blob the parser kept plain, when `seq` is in a run of a repeated
   * identity whose plain blob is not its first in blob order; else undefined (then the run's
   * first keeps the plain identity).
   */
  repeatPlainSeq(seq: number): number | undefined;
  /** The blobs at those sequence numbers, in order (canonical JSON lines without their newline). */
  blobsIn(ranges: Array<[number, number]>): AsyncIterable<{ seq: number; line: string }>;
  /** Idempotent. */
  release(): void;
}

export interface Served {
  catalog: string;
  hex: string;
  revision: Revision;
  lastModified: Date;
  leases: number;
  retired: boolean;
  /** While replaced but in its grace period: when that ends, and the timer that ends it. */
  grace?: { until: number; timer: Timer };
}

/**
 * Leases a served revision. `unleased` is called when the last lease of a retired revision is
 * released (the store then disposes of it).
 */
export function lease(s: Served, unleased: () => void): RevisionLease {
  s.leases++;
  let released = false;
  const { revision } = s;
  // What this request reads is fixed when it starts: the gzip written later is for later ones.
  const gzip = revision.allGzip;
  return {
    contentHash: revision.contentHash,
    lastModified: s.lastModified,
    blobs: revision.blobs,
    allBytes: revision.allBytes,
    allGzipBytes: gzip?.bytes,
    selectAll: () => revision.selectAll(),
    select: (q) => revision.select(q),
    send: (sel, out) => revision.send(sel, out),
    sendAllGzip: async (out) => {
      if (!gzip) throw new Error('the gzip of the catalog is not written yet');
      await revision.sendAllGzip(gzip, out);
    },
    schemas: () => revision.schemaCounts(),
    schemaBlobs: (schema, skip, take) => revision.schemaBlobs(schema, skip, take),
    selectedBlobs: (query, skip, take) => revision.selectedBlobs(query, skip, take),
    selectSeqs: (q) => revision.selectSeqs(q),
    packageNames: () => revision.packageNames(),
    repeatPlainSeq: (seq) => revision.repeatPlainSeq(seq),
    blobsIn: (ranges) => revision.blobsIn(ranges),
    release: () => {
      if (released) return;
      released = true;
      s.leases--;
      if (s.retired && s.leases === 0) unleased();
    },
  };
}
