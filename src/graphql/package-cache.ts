// What the additions read of a package that the next query for it reads again, kept across
// queries (docs/graphql.md, "Speed and memory"): a package's olm.package blob, its channels,
// and its bundles' stubs (name, package, olm.package property: what a channel head's
// `name version` asks). A revision never changes, so an entry, keyed by the revision's content
// hash, is never stale; a new revision's queries use new keys and the old ones age out. Bounded
// by bytes (about the JSON size of what is kept) and entries, the least recently used
// forgotten first; a value larger than the bound alone is not kept. Whole bundles and answers
// are not kept: a query that asks for more of a bundle than its stub reads it.

/** Defaults: a few packages' channels and heads of a large catalog (docs/bounds.md). */
const DEFAULT_PACKAGE_CACHE_BYTES = 2 * 1024 * 1024;
const DEFAULT_PACKAGE_CACHE_ENTRIES = 1024;

interface Entry {
  value: unknown;
  bytes: number;
}

export class PackageCache {
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;

  constructor(
    readonly maxBytes = DEFAULT_PACKAGE_CACHE_BYTES,
    readonly maxEntries = DEFAULT_PACKAGE_CACHE_ENTRIES,
  ) {}

  /** The value kept for `key` (null is a value: "the catalog has none"), undefined if none. */
  get(key: string): unknown {
    const e = this.entries.get(key);
    if (!e) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /** Keeps `value` (about `bytes` as JSON), forgetting the least recently used past the bounds. */
  set(key: string, value: unknown, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.heldBytes -= old.bytes;
    }
    if (bytes > this.maxBytes || this.maxEntries < 1) return;
    this.entries.set(key, { value, bytes });
    this.heldBytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.heldBytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
      this.heldBytes -= e.bytes;
    }
  }

  /** Entries and bytes kept now. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.heldBytes };
  }
}

/** One revision's view of a cache: what a query's reader uses. */
export interface RevisionCache {
  cache: PackageCache;
  /** The revision's content hash: same content, same blobs, same answers. */
  revision: string;
}
