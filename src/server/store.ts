// The per-revision content store (docs/server.md). Each catalog has at most one served
// revision; a request leases it for its whole duration, so an activation that swaps revisions
// never changes what a running request reads. A replaced revision stays readable by its
// revision key for a grace period (a client that just read the status naming it is not cut
// off), then its files are closed and deleted when its last lease is released.
import { randomBytes } from 'node:crypto';
import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { isRevisionKey, isRevisionOf } from '../api/v1/revision-url.js';
import { isDNS1123Subdomain } from '../fbc/index.js';
import { realClock } from '../util/clock.js';
import type { Clock } from '../util/clock.js';
import { GracedRevisions } from './graced-revisions.js';
import { contentHashHex } from './http-cache.js';
import { compressAll } from './revision-build.js';
import type { ContentBlob } from './revision-build.js';
import { revisionDir } from './revision-format.js';
import { Revision } from './revision.js';
import type { IoCounters } from './revision.js';
import { ChunkPool } from './send-file.js';
import { lease } from './served-revision.js';
import type { RevisionInfo, RevisionLease, Served } from './served-revision.js';
import {
  deleteRevisionsBut,
  findStoredRevision,
  listStoredRevisions,
  writeRevision,
} from './stored-revisions.js';
import type { StoredRevision } from './stored-revisions.js';

// The store's types where its importers (handler.ts, index.ts) find them.
export type { RevisionInfo, RevisionLease } from './served-revision.js';
export type { StoredRevision } from './stored-revisions.js';

/**
 * How long a replaced revision is still served by its revision URL (docs/server.md, "Grace
 * period"): longer than a client takes from reading a status to fetching its URL, retries
 * included.
 */
export const DEFAULT_REVISION_GRACE_MS = 5 * 60_000;
/** At most this many replaced revisions per catalog are kept for their grace period. */
export const DEFAULT_MAX_GRACED_REVISIONS = 4;

export interface ContentStoreOptions {
  /** Default DEFAULT_REVISION_GRACE_MS; 0: a replaced revision is served no more. */
  graceMs?: number;
  /** Default DEFAULT_MAX_GRACED_REVISIONS. */
  maxGraced?: number;
  clock?: Pick<Clock, 'now' | 'setTimer'>;
  /** Writes a served revision's all.jsonl.gz (default compressAll; tests hold it back). */
  compress?: (dir: string) => Promise<unknown>;
}

function checkCatalog(catalog: string): void {
  if (!isDNS1123Subdomain(catalog))
    throw new Error(
      `invalid catalog name ${JSON.stringify(catalog)}: must be a DNS-1123 subdomain`,
    );
}

export class ContentStore {
  /** Bytes read from revision files by requests. */
  readonly io: IoCounters = { contentBytesRead: 0, indexBytesRead: 0, gzipBytesRead: 0 };
  /** The chunk buffers every response of every revision streams through. */
  readonly chunks = new ChunkPool();
  private readonly served = new Map<string, Served>();
  /** Replaced revisions in their grace period, per catalog, oldest first. */
  private readonly graced: GracedRevisions;
  /** Replaced revisions that still have leases. */
  private readonly retained = new Set<Served>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** The gzips of served revisions being written (compressLater). */
  private readonly compressing = new Map<Revision, Promise<void>>();
  private readonly graceMs: number;
  private readonly maxGraced: number;
  private readonly compress: (dir: string) => Promise<unknown>;

  constructor(
    readonly root: string,
    opts: ContentStoreOptions = {},
  ) {
    this.graceMs = opts.graceMs ?? DEFAULT_REVISION_GRACE_MS;
    this.maxGraced = opts.maxGraced ?? DEFAULT_MAX_GRACED_REVISIONS;
    this.graced = new GracedRevisions(opts.clock ?? realClock);
    this.compress = opts.compress ?? compressAll;
  }

  /**
   * Writes a revision from a stream of blobs, unless it is already stored. The blobs must hash
   * to `revision`: a contentHash (`sha256:<hex>`), or a revision key (its first hex digits, as
   * a replica reads it from status.urls.base). The revision appears on disk only when complete.
   */
  async buildRevision(
    catalog: string,
    revision: string,
    blobs: AsyncIterable<ContentBlob>,
  ): Promise<StoredRevision> {
    checkCatalog(catalog);
    const stored = await this.storedRevision(catalog, revision);
    if (stored) return { catalog, contentHash: stored };
    const key = isRevisionKey(revision) ? revision : contentHashHex(revision);
    return writeRevision(this.root, catalog, key, revision, blobs);
  }

  /**
   * Writes the revision the blobs hash to, whatever it is (a catalog's new content, built before
   * anything else looks at it); a revision already stored is kept and the new files dropped.
   * The parse errors of the blobs are thrown as they are: they are the catalog's, not the
   * store's.
   */
  async buildNewRevision(
    catalog: string,
    blobs: AsyncIterable<ContentBlob>,
  ): Promise<StoredRevision> {
    checkCatalog(catalog);
    return writeRevision(this.root, catalog, randomBytes(8).toString('hex'), undefined, blobs);
  }

  /**
   * Serves `revision` (a contentHash or a revision key) for the catalog, building it first
   * unless it is stored: the one call a reconciler needs. `blobs` is called only when a build is
   * needed. A stored revision that cannot be activated (damaged, or deleted meanwhile because
   * its last reader left) is discarded and rebuilt once. Returns the served contentHash.
   */
  async ensureServed(
    catalog: string,
    revision: string,
    lastModified: Date,
    blobs: () => AsyncIterable<ContentBlob>,
  ): Promise<string> {
    const held = this.held(catalog, revision);
    if (held) {
      await this.activate(catalog, held.revision.contentHash, lastModified);
      return held.revision.contentHash;
    }
    const contentHash = await this.ensureBuilt(catalog, revision, blobs);
    try {
      await this.activate(catalog, contentHash, lastModified);
    } catch {
      const hex = contentHashHex(contentHash);
      const inUse = [...this.retained].some((r) => r.catalog === catalog && r.hex === hex);
      if (!inUse) await rm(revisionDir(this.root, catalog, hex), { recursive: true, force: true });
      await this.buildRevision(catalog, contentHash, blobs());
      await this.activate(catalog, contentHash, lastModified);
    }
    return contentHash;
  }

  /**
   * Builds a revision (a contentHash or a revision key) unless it is complete on disk already;
   * does not serve it. Returns its contentHash.
   */
  async ensureBuilt(
    catalog: string,
    revision: string,
    blobs: () => AsyncIterable<ContentBlob>,
  ): Promise<string> {
    return (
      (await this.storedRevision(catalog, revision)) ??
      (await this.buildRevision(catalog, revision, blobs())).contentHash
    );
  }

  /** Whether a complete revision (a contentHash or a revision key) is on disk, served or not. */
  async hasRevision(catalog: string, revision: string): Promise<boolean> {
    return (await this.storedRevision(catalog, revision)) !== undefined;
  }

  /** The contentHash of the complete revision on disk that `revision` names, if any. */
  async storedRevision(catalog: string, revision: string): Promise<string | undefined> {
    checkCatalog(catalog);
    return findStoredRevision(this.root, catalog, revision);
  }

  /**
   * Serves a stored revision from now on. Requests already running finish on the revision they
   * started on. The replaced revision is still served by its revision key for the grace period;
   * the catalog's other stored revisions are deleted (each once its last lease is released).
   * Activating the served revision again only updates lastModified.
   */
  async activate(catalog: string, contentHash: string, lastModified: Date): Promise<void> {
    checkCatalog(catalog);
    const hex = contentHashHex(contentHash);
    if (Number.isNaN(lastModified.getTime())) throw new Error('lastModified is not a valid date');
    await this.withLock(catalog, async () => {
      const old = this.served.get(catalog);
      if (old?.hex === hex) {
        old.lastModified = lastModified;
        return;
      }
      // A revision in its grace period is open already (and may be leased): served again as it is.
      let next = this.graced.take(catalog, hex);
      if (next) next.lastModified = lastModified;
      else {
        let revision: Revision;
        try {
          revision = await Revision.open(
            revisionDir(this.root, catalog, hex),
            contentHash,
            this.io,
            this.chunks,
          );
        } catch (cause) {
          throw new Error(
            `cannot activate revision ${contentHash} of catalog ${JSON.stringify(catalog)}`,
            { cause },
          );
        }
        next = { catalog, hex, revision, lastModified, leases: 0, retired: false };
      }
      this.served.set(catalog, next);
      this.compressLater(next.revision);
      if (old) await this.replace(old);
      await this.pruneRevisions(catalog);
    });
  }

  /**
   * Writes the gzip of a served revision's /api/v1/all in the background (zlib runs on libuv's
   * threads), so Serving does not wait for it; gzip requests get identity until it is there. A
   * failure (a full disk, the revision deleted meanwhile) leaves identity: the next activation
   * of the revision tries again.
   */
  private compressLater(revision: Revision): void {
    if (revision.allGzip || this.compressing.has(revision)) return;
    const task = this.compress(revision.dir)
      .then(() => revision.attachAllGzip())
      .catch(() => undefined)
      .finally(() => this.compressing.delete(revision));
    this.compressing.set(revision, task);
  }

  /** Resolves when every gzip being written in the background is done (tests, close). */
  async compressed(): Promise<void> {
    while (this.compressing.size > 0) await Promise.all(this.compressing.values());
  }

  /** The served revision of a catalog. */
  current(catalog: string): RevisionInfo | undefined {
    const s = this.served.get(catalog);
    if (!s) return undefined;
    const { contentHash, blobs, allBytes } = s.revision;
    return { contentHash, lastModified: s.lastModified, blobs, allBytes };
  }

  /** Content hashes of the catalog's replaced revisions in their grace period, oldest first. */
  gracedRevisions(catalog: string): string[] {
    return this.graced.of(catalog).map((s) => s.revision.contentHash);
  }

  /**
   * Leases the served revision, or with `revision` (a contentHash or a revision key) the
   * revision it names: the served one or one in its grace period. The caller must release the
   * lease.
   */
  acquire(catalog: string, revision?: string): RevisionLease | undefined {
    const s = revision === undefined ? this.served.get(catalog) : this.held(catalog, revision);
    return s && lease(s, () => void this.dispose(s, true));
  }

  /** Content hashes of replaced revisions of the catalog that requests still read. */
  retainedRevisions(catalog: string): string[] {
    return [...this.retained]
      .filter((s) => s.catalog === catalog)
      .map((s) => s.revision.contentHash);
  }

  /** Stops serving the catalog and deletes its stored revisions (in-use ones when released). */
  async remove(catalog: string): Promise<void> {
    checkCatalog(catalog);
    await this.withLock(catalog, async () => {
      const old = this.served.get(catalog);
      this.served.delete(catalog);
      if (old) await this.retire(old);
      for (const g of [...this.graced.of(catalog)]) await this.endGrace(g);
      await this.pruneRevisions(catalog);
      await rmdir(path.join(this.root, catalog)).catch(() => undefined);
    });
  }

  /**
   * After a restart: deletes unfinished builds and lists the complete revisions on disk, so the
   * controller can activate the ones its ClusterCatalogs name (and remove the others).
   */
  async loadExisting(): Promise<StoredRevision[]> {
    return listStoredRevisions(this.root);
  }

  /** Closes every open revision file; the store serves nothing afterwards. Files stay on disk. */
  async close(): Promise<void> {
    await this.compressed();
    const graced = this.graced.all();
    const all = [...this.served.values(), ...graced, ...this.retained];
    this.served.clear();
    // Cancels the grace periods' timers too.
    this.graced.clear();
    this.retained.clear();
    await Promise.all(all.map((s) => s.revision.close().catch(() => undefined)));
  }

  /** The served or graced revision of the catalog that `revision` names. */
  private held(catalog: string, revision: string): Served | undefined {
    const s = this.served.get(catalog);
    if (s && isRevisionOf(s.revision.contentHash, revision)) return s;
    return this.graced.find(catalog, revision);
  }

  /** A revision replaced by another: graced for graceMs (at most maxGraced per catalog). */
  private async replace(s: Served): Promise<void> {
    if (this.graceMs <= 0 || this.maxGraced <= 0) return this.retire(s);
    this.graced.start(s, this.graceMs, () => {
      // Files that cannot be deleted now are deleted by the next activation's prune.
      this.withLock(s.catalog, () => this.endGrace(s)).catch(() => undefined);
    });
    const list = this.graced.of(s.catalog);
    while (list.length > this.maxGraced) await this.endGrace(list[0]!);
  }

  /** The end of a revision's grace period: no longer served (deleted once unleased). */
  private async endGrace(s: Served): Promise<void> {
    if (!s.grace) return;
    this.graced.remove(s);
    await this.retire(s);
  }

  private async retire(s: Served): Promise<void> {
    s.retired = true;
    if (s.leases === 0) await this.dispose(s, true);
    else this.retained.add(s);
  }

  private async dispose(s: Served, deleteFiles: boolean): Promise<void> {
    this.retained.delete(s);
    await s.revision.close().catch(() => undefined);
    // The same revision may have been activated again meanwhile: its files are in use.
    const current = this.served.get(s.catalog);
    if (deleteFiles && current?.hex !== s.hex) {
      // Its gzip may still be written in the background (compressLater): a file appearing
      // while the directory is removed failed the removal (ENOTEMPTY).
      await this.compressing.get(s.revision);
      await rm(s.revision.dir, { recursive: true, force: true, maxRetries: 3 });
      // After remove(catalog), the last reader's release leaves no revision behind.
      if (current === undefined)
        await rmdir(path.join(this.root, s.catalog)).catch(() => undefined);
    }
  }

  /** Deletes the catalog's complete revisions other than the served, graced and leased ones. */
  private async pruneRevisions(catalog: string): Promise<void> {
    const inUse = new Set(
      [...this.retained, ...this.graced.of(catalog)]
        .filter((s) => s.catalog === catalog)
        .map((s) => s.hex),
    );
    const served = this.served.get(catalog)?.hex;
    if (served !== undefined) inUse.add(served);
    await deleteRevisionsBut(this.root, catalog, inUse);
  }

  private async withLock<T>(catalog: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(catalog) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(catalog, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(catalog) === settled) this.locks.delete(catalog);
    }
  }
}
