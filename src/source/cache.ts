// The on-disk cache of unpacked catalogs, keyed by image digest (and platform): an entry is
// built in a temp dir under the cache root and renamed into place whole, so a present entry is
// always complete, and a failed pull leaves nothing behind.
import { mkdir, mkdtemp, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { removeTree } from '../util/remove-tree.js';
import path from 'node:path';

export interface CacheMeta {
  /** Digest of the image reference (the index's, for a multi-arch image). */
  digest: string;
  /** Digest of the platform manifest that was unpacked. */
  manifestDigest: string;
  /** The catalog directory label value, e.g. `/configs`. */
  catalogDir: string;
  files: number;
  bytes: number;
  /** Bytes of the files on disk (absent in entries written before it was recorded). */
  diskBytes?: number;
}

export interface CacheEntry {
  key: string;
  /** The unpacked root filesystem (only the catalog subtree is present). */
  dir: string;
  meta: CacheMeta;
}

const META = 'meta.json';
const FS = 'fs';
const TMP = '.tmp-';

export class DigestCache {
  /**
   * Lookups and removals one at a time: an entry a lookup finds is not being removed. A prune
   * after one attempt, beside the next attempt's lookup of the same image, otherwise handed that
   * attempt a directory deleted under its parse (`cannot read directory . (ENOENT)`). The
   * puller holds a key before it looks it up, so a prune either keeps the entry or finishes
   * removing it before the lookup, which then misses and pulls again.
   */
  #exclusive: Promise<unknown> = Promise.resolve();

  constructor(readonly root: string) {}

  private exclusively<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#exclusive.then(fn, fn);
    this.#exclusive = run.catch(() => undefined);
    return run;
  }

  static key(digest: string, platform: string): string {
    return `${digest.replace(':', '-')}_${platform.replaceAll('/', '-')}`;
  }

  lookup(key: string): Promise<CacheEntry | undefined> {
    return this.exclusively(() => this.read(key));
  }

  private async read(key: string): Promise<CacheEntry | undefined> {
    const dir = path.join(this.root, key);
    try {
      const meta = JSON.parse(await readFile(path.join(dir, META), 'utf8')) as CacheMeta;
      return { key, dir: path.join(dir, FS), meta };
    } catch {
      return undefined;
    }
  }

  /** A fresh temp dir under the root (same filesystem, so the final rename is atomic). */
  async tempDir(): Promise<string> {
    await mkdir(this.root, { recursive: true });
    return mkdtemp(path.join(this.root, TMP));
  }

  /** The filesystem dir inside a temp entry. */
  static fsDir(tmp: string): string {
    return path.join(tmp, FS);
  }

  /** Moves a finished temp dir into place. A concurrent writer's equal entry wins. */
  async commit(tmp: string, key: string, meta: CacheMeta): Promise<CacheEntry> {
    await writeFile(path.join(tmp, META), JSON.stringify(meta));
    try {
      await rename(tmp, path.join(this.root, key));
    } catch (err) {
      await removeTree(tmp);
      const existing = await this.read(key);
      if (!existing) throw err;
      return existing;
    }
    return { key, dir: path.join(this.root, key, FS), meta };
  }

  remove(key: string): Promise<void> {
    return this.exclusively(() => removeTree(path.join(this.root, key)));
  }

  /** Every complete entry (temp dirs and entries without a readable meta.json left out). */
  async entries(): Promise<CacheEntry[]> {
    const out: CacheEntry[] = [];
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      if (name.startsWith(TMP)) continue;
      const entry = await this.read(name);
      if (entry) out.push(entry);
    }
    return out;
  }

  /** The bytes of files the complete entries hold (each entry's meta). */
  async usedBytes(): Promise<number> {
    let bytes = 0;
    for (const e of await this.entries()) bytes += e.meta.diskBytes ?? e.meta.bytes;
    return bytes;
  }

  /**
   * Removes every entry whose key `keep` refuses, and with `temps`, leftover temp dirs (only
   * when no pull is running: a running pull builds in one). Returns the keys removed.
   */
  prune(keep: (key: string) => boolean, opts: { temps: boolean }): Promise<string[]> {
    return this.exclusively(() => this.removeUnkept(keep, opts));
  }

  private async removeUnkept(
    keep: (key: string) => boolean,
    opts: { temps: boolean },
  ): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const temp = name.startsWith(TMP);
      if (temp ? !opts.temps : keep(name)) continue;
      await removeTree(path.join(this.root, name));
      if (!temp) removed.push(name);
    }
    return removed;
  }
}
