// The per-revision content store (docs/server.md). Each catalog has at most one served
// revision; a request leases it for its whole duration, so an activation that swaps revisions
// never changes what a running request reads. A replaced revision's files are closed and
// deleted when its last lease is released.
import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { isDNS1123Subdomain } from '../fbc/index.js';
import { contentHashHex } from './http-cache.js';
import type { MetasQuery } from './query.js';
import { writeRevisionFiles } from './revision-build.js';
import type { ContentBlob } from './revision-build.js';
import { INDEX_FILE, REVISION_DIR, TEMP_REVISION_DIR, revisionDir } from './revision-format.js';
import type { RevisionIndexFile } from './revision-format.js';
import { Revision } from './revision.js';
import type { IoCounters, Selection } from './revision.js';

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
  /** Size of the precompressed gzip of /api/v1/all. */
  allGzipBytes: number;
  selectAll(): Selection;
  select(query: MetasQuery): Promise<Selection>;
  read(selection: Selection): AsyncIterable<Buffer>;
  /** The whole catalog, gzipped (precompressed when the revision was built). */
  readAllGzip(): AsyncIterable<Buffer>;
  /** Idempotent. */
  release(): void;
}

export interface StoredRevision {
  catalog: string;
  contentHash: string;
}

interface Served {
  catalog: string;
  hex: string;
  revision: Revision;
  lastModified: Date;
  leases: number;
  retired: boolean;
}

function checkCatalog(catalog: string): void {
  if (!isDNS1123Subdomain(catalog))
    throw new Error(
      `invalid catalog name ${JSON.stringify(catalog)}: must be a DNS-1123 subdomain`,
    );
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

export class ContentStore {
  /** Bytes read from revision files by requests. */
  readonly io: IoCounters = { contentBytesRead: 0, indexBytesRead: 0, gzipBytesRead: 0 };
  private readonly served = new Map<string, Served>();
  /** Replaced revisions that still have leases. */
  private readonly retained = new Set<Served>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly root: string) {}

  /**
   * Writes a revision from a stream of blobs, unless it is already stored. The blobs must hash
   * to `contentHash` (`sha256:<hex>`); the revision appears on disk only when complete.
   */
  async buildRevision(
    catalog: string,
    contentHash: string,
    blobs: AsyncIterable<ContentBlob>,
  ): Promise<StoredRevision> {
    checkCatalog(catalog);
    const hex = contentHashHex(contentHash);
    const final = revisionDir(this.root, catalog, hex);
    if (await this.hasRevision(catalog, contentHash)) return { catalog, contentHash };
    const tmp = `${final}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(tmp, { recursive: true });
      await writeRevisionFiles(tmp, contentHash, blobs);
      try {
        await rename(tmp, final);
      } catch (err) {
        // A concurrent build of the same content finished first; its files are the same.
        const code = (err as NodeJS.ErrnoException).code;
        if (
          (code !== 'ENOTEMPTY' && code !== 'EEXIST') ||
          !(await this.hasRevision(catalog, contentHash))
        )
          throw err;
        await rm(tmp, { recursive: true, force: true });
      }
    } catch (cause) {
      await rm(tmp, { recursive: true, force: true });
      throw new Error(
        `cannot store revision ${contentHash} of catalog ${JSON.stringify(catalog)}`,
        {
          cause,
        },
      );
    }
    return { catalog, contentHash };
  }

  /**
   * Serves `contentHash` for the catalog, building it first unless it is stored: the one call a
   * reconciler needs. `blobs` is called only when a build is needed. A stored revision that
   * cannot be activated (damaged, or deleted meanwhile because its last reader left) is
   * discarded and rebuilt once.
   */
  async ensureServed(
    catalog: string,
    contentHash: string,
    lastModified: Date,
    blobs: () => AsyncIterable<ContentBlob>,
  ): Promise<void> {
    if (this.served.get(catalog)?.revision.contentHash === contentHash)
      return this.activate(catalog, contentHash, lastModified);
    await this.ensureBuilt(catalog, contentHash, blobs);
    try {
      await this.activate(catalog, contentHash, lastModified);
    } catch {
      const hex = contentHashHex(contentHash);
      const inUse = [...this.retained].some((r) => r.catalog === catalog && r.hex === hex);
      if (!inUse) await rm(revisionDir(this.root, catalog, hex), { recursive: true, force: true });
      await this.buildRevision(catalog, contentHash, blobs());
      await this.activate(catalog, contentHash, lastModified);
    }
  }

  /** Builds a revision unless it is complete on disk already; does not serve it. */
  async ensureBuilt(
    catalog: string,
    contentHash: string,
    blobs: () => AsyncIterable<ContentBlob>,
  ): Promise<void> {
    if (!(await this.hasRevision(catalog, contentHash)))
      await this.buildRevision(catalog, contentHash, blobs());
  }

  /** Whether a complete revision is on disk (served or not). */
  async hasRevision(catalog: string, contentHash: string): Promise<boolean> {
    checkCatalog(catalog);
    return exists(
      path.join(revisionDir(this.root, catalog, contentHashHex(contentHash)), INDEX_FILE),
    );
  }

  /**
   * Serves a stored revision from now on. Requests already running finish on the revision they
   * started on. The catalog's other stored revisions are deleted (each once its last lease is
   * released). Activating the served revision again only updates lastModified.
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
      let revision: Revision;
      try {
        revision = await Revision.open(revisionDir(this.root, catalog, hex), contentHash, this.io);
      } catch (cause) {
        throw new Error(
          `cannot activate revision ${contentHash} of catalog ${JSON.stringify(catalog)}`,
          {
            cause,
          },
        );
      }
      this.served.set(catalog, { catalog, hex, revision, lastModified, leases: 0, retired: false });
      if (old) await this.retire(old);
      await this.pruneRevisions(catalog, hex);
    });
  }

  /** The served revision of a catalog. */
  current(catalog: string): RevisionInfo | undefined {
    const s = this.served.get(catalog);
    if (!s) return undefined;
    const { contentHash, blobs, allBytes } = s.revision;
    return { contentHash, lastModified: s.lastModified, blobs, allBytes };
  }

  /** Leases the served revision; the caller must release the lease. */
  acquire(catalog: string): RevisionLease | undefined {
    const s = this.served.get(catalog);
    if (!s) return undefined;
    s.leases++;
    let released = false;
    const { revision } = s;
    return {
      contentHash: revision.contentHash,
      lastModified: s.lastModified,
      blobs: revision.blobs,
      allBytes: revision.allBytes,
      allGzipBytes: revision.allGzipBytes,
      selectAll: () => revision.selectAll(),
      select: (q) => revision.select(q),
      read: (sel) => revision.read(sel),
      readAllGzip: () => revision.readAllGzip(),
      release: () => {
        if (released) return;
        released = true;
        s.leases--;
        if (s.retired && s.leases === 0) void this.dispose(s, true);
      },
    };
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
      await this.pruneRevisions(catalog, undefined);
      await rmdir(path.join(this.root, catalog)).catch(() => undefined);
    });
  }

  /**
   * After a restart: deletes unfinished builds and lists the complete revisions on disk, so the
   * controller can activate the ones its ClusterCatalogs name (and remove the others).
   */
  async loadExisting(): Promise<StoredRevision[]> {
    await mkdir(this.root, { recursive: true });
    const found: StoredRevision[] = [];
    for (const catalog of (await readdir(this.root)).sort()) {
      if (!isDNS1123Subdomain(catalog)) continue;
      let entries: string[];
      try {
        entries = (await readdir(path.join(this.root, catalog))).sort();
      } catch {
        continue;
      }
      for (const e of entries) {
        const dir = path.join(this.root, catalog, e);
        if (TEMP_REVISION_DIR.test(e)) await rm(dir, { recursive: true, force: true });
        else if (REVISION_DIR.test(e)) {
          try {
            const index = JSON.parse(
              await readFile(path.join(dir, INDEX_FILE), 'utf8'),
            ) as RevisionIndexFile;
            if (index.contentHash === `sha256:${e}`)
              found.push({ catalog, contentHash: index.contentHash });
          } catch {
            // Not a complete revision: never renamed into place by this store; left alone.
          }
        }
      }
    }
    return found;
  }

  /** Closes every open revision file; the store serves nothing afterwards. Files stay on disk. */
  async close(): Promise<void> {
    const all = [...this.served.values(), ...this.retained];
    this.served.clear();
    this.retained.clear();
    await Promise.all(all.map((s) => s.revision.close().catch(() => undefined)));
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
      await rm(s.revision.dir, { recursive: true, force: true });
      // After remove(catalog), the last reader's release leaves no revision behind.
      if (current === undefined)
        await rmdir(path.join(this.root, s.catalog)).catch(() => undefined);
    }
  }

  /** Deletes the catalog's complete revisions other than `keep` and those still leased. */
  private async pruneRevisions(catalog: string, keep: string | undefined): Promise<void> {
    const inUse = new Set(
      [...this.retained].filter((s) => s.catalog === catalog).map((s) => s.hex),
    );
    let entries: string[];
    try {
      entries = await readdir(path.join(this.root, catalog));
    } catch {
      return;
    }
    for (const e of entries)
      if (REVISION_DIR.test(e) && e !== keep && !inUse.has(e))
        await rm(path.join(this.root, catalog, e), { recursive: true, force: true });
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
