// Applies image layers (uncompressed tar streams) in order onto a fresh directory, keeping only
// the catalog directory's subtree: whiteouts (.wh.NAME) and opaque directories (.wh..wh..opq)
// remove what lower layers wrote; only regular files and directories are created, with fixed
// modes. Safety: entry names with `..` fail the pull; absolute names are taken relative to the
// image root (as container runtimes do); symlinks, devices and FIFOs are skipped, never created;
// a hardlink is materialized as a copy only when its target is a regular file already unpacked
// inside the catalog directory, otherwise skipped; files are opened with O_NOFOLLOW and since no
// link is ever created nothing can be written outside the target. Caps: uncompressed bytes
// (across all layers, counted on the tar stream, so gzip bombs stop early) and tar entries.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rm, copyFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { terminal } from './errors.js';
import type { Compression } from './manifest.js';

export interface UnpackLimits {
  /** Uncompressed tar bytes over all layers. */
  maxBytes: number;
  /** Tar entries over all layers. */
  maxEntries: number;
}

export const defaultUnpackLimits: UnpackLimits = {
  maxBytes: 1024 * 1024 * 1024,
  maxEntries: 200_000,
};

export interface UnpackStats {
  entries: number;
  bytes: number;
  files: number;
  /** Entries not written, by reason: outside, symlink, hardlink, device, other. */
  skipped: Record<string, number>;
}

/** A tar entry as tar-stream yields it (a streamx Readable). */
type TarEntry = AsyncIterable<Buffer> & { header: tar.Header; resume(): unknown };

// node:stream/promises pipeline, loosely typed: tar-stream's streams are streamx streams.
const pipe = pipeline as unknown as (...streams: unknown[]) => Promise<void>;

const WH = '.wh.';
const OPAQUE = '.wh..wh..opq';

/** Splits a tar entry name into safe path components; `..` anywhere is refused. */
export function entryComponents(name: string, what: string): string[] {
  if (name.includes('\0')) throw terminal('UnsafeLayer', `${what}: entry name contains NUL`);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..'))
    throw terminal('UnsafeLayer', `${what}: entry "${name.slice(0, 200)}" has a ".." component`);
  return parts;
}

/** Normalizes the catalog directory label (`/configs`) into components. */
export function catalogDirComponents(label: string): string[] {
  const parts = entryComponents(label, 'catalog directory label');
  return parts;
}

export function decompressor(c: Compression): Transform | undefined {
  if (c === 'gzip') return zlib.createGunzip();
  if (c === 'zstd') {
    const z = zlib as unknown as { createZstdDecompress?: () => Transform };
    if (!z.createZstdDecompress)
      throw terminal('UnsupportedMediaType', 'zstd layers need Node >= 22.15');
    return z.createZstdDecompress();
  }
  return undefined;
}

export class LayerApplier {
  readonly stats: UnpackStats = { entries: 0, bytes: 0, files: 0, skipped: {} };
  /** Paths (relative, '/'-joined) written by the layer being applied. */
  private layerWritten = new Set<string>();

  /**
   * @param root a directory this process created and that nothing else writes to
   * @param catalogDir the catalog directory's components (e.g. ['configs'])
   */
  constructor(
    private readonly root: string,
    private readonly catalogDir: string[],
    private readonly limits: UnpackLimits = defaultUnpackLimits,
  ) {}

  /** Where the catalog directory is inside root. */
  get catalogPath(): string {
    return path.join(this.root, ...this.catalogDir);
  }

  /**
   * Reads a layer without writing anything: counts entries and uncompressed bytes against the
   * caps (cumulatively over layers) and checks every name, so that a hostile layer fails before
   * a single file of it is created. Call it before apply() on each layer.
   */
  async check(source: Readable, compression: Compression, what: string): Promise<void> {
    await this.read(source, compression, what, this.checked, async (entry) => {
      entryComponents(entry.header.name, what);
      if (entry.header.type === 'link') entryComponents(entry.header.linkname ?? '', what);
    });
  }

  /** Applies one layer: `source` is the (verified) layer blob. */
  async apply(source: Readable, compression: Compression, what: string): Promise<void> {
    this.layerWritten = new Set();
    this.knownDirs.clear();
    await this.read(source, compression, what, this.stats, (entry) => this.entry(entry, what));
  }

  private readonly checked = { entries: 0, bytes: 0 };
  /** Directories known to exist (as real directories) during the current layer. */
  private readonly knownDirs = new Set<string>();

  private async read(
    source: Readable,
    compression: Compression,
    what: string,
    count: { entries: number; bytes: number },
    onEntry: (entry: TarEntry) => Promise<void>,
  ): Promise<void> {
    const extract = tar.extract();
    const stages: Transform[] = [];
    const d = decompressor(compression);
    if (d) stages.push(d);
    stages.push(this.byteCounter(what, count));
    const feeding = pipe(source, ...stages, extract).catch((err: unknown) => err);
    let failure: Error | undefined;
    try {
      for await (const entry of extract as AsyncIterable<TarEntry>) {
        try {
          if (++count.entries > this.limits.maxEntries)
            throw terminal(
              'LimitExceeded',
              `${what}: more than ${this.limits.maxEntries} tar entries`,
            );
          await onEntry(entry);
        } finally {
          entry.resume(); // drain what was not consumed
        }
      }
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
      extract.destroy();
      source.destroy();
    }
    const fed = await feeding;
    // A stage's error (limit, corrupt gzip) explains an extraction failure better than its echo.
    if (
      fed instanceof Error &&
      (failure === undefined || (isSourceLike(fed) && !isSourceLike(failure)))
    )
      failure = fed;
    if (failure !== undefined) throw failure;
  }

  private byteCounter(what: string, count: { bytes: number }): Transform {
    return new Transform({
      transform: (chunk: Buffer, _e: BufferEncoding, cb: TransformCallback) => {
        count.bytes += chunk.length;
        if (count.bytes > this.limits.maxBytes)
          cb(
            terminal(
              'LimitExceeded',
              `${what}: uncompressed content over the limit of ${this.limits.maxBytes} bytes`,
            ),
          );
        else cb(null, chunk);
      },
    });
  }

  private skip(reason: string): void {
    this.stats.skipped[reason] = (this.stats.skipped[reason] ?? 0) + 1;
  }

  /** The components relative to the catalog dir, or undefined when outside it. */
  private relative(parts: string[]): string[] | undefined {
    if (parts.length < this.catalogDir.length) return undefined;
    for (let i = 0; i < this.catalogDir.length; i++)
      if (parts[i] !== this.catalogDir[i]) return undefined;
    return parts.slice(this.catalogDir.length);
  }

  /** Whether parts names the catalog dir or one of its ancestors. */
  private coversCatalog(parts: string[]): boolean {
    return (
      parts.length <= this.catalogDir.length && parts.every((p, i) => p === this.catalogDir[i])
    );
  }

  private async entry(entry: TarEntry, what: string): Promise<void> {
    const h = entry.header;
    const parts = entryComponents(h.name, what);
    const base = parts.at(-1) ?? '';
    if (base === OPAQUE) return this.opaque(parts.slice(0, -1));
    if (base.startsWith(WH)) return this.whiteout([...parts.slice(0, -1), base.slice(WH.length)]);
    const rel = this.relative(parts);
    if (rel === undefined) return this.skip('outside');
    switch (h.type) {
      case 'file':
      case 'contiguous-file':
        if (rel.length === 0) return this.skip('other');
        return this.writeFile(rel, entry);
      case 'directory':
        return this.mkdirs(rel);
      case 'link':
        return this.hardlink(rel, entryComponents(h.linkname ?? '', what));
      case 'symlink':
        return this.skip('symlink');
      case 'character-device':
      case 'block-device':
      case 'fifo':
        return this.skip('device');
      default:
        return this.skip('other');
    }
  }

  private abs(rel: string[]): string {
    return path.join(this.catalogPath, ...rel);
  }

  private async mkdirs(rel: string[]): Promise<void> {
    if (!this.knownDirs.has('')) {
      await mkdir(this.catalogPath, { recursive: true, mode: 0o755 });
      this.knownDirs.add('');
    }
    for (let i = 1; i <= rel.length; i++) {
      const key = rel.slice(0, i).join('/');
      this.layerWritten.add(key);
      if (this.knownDirs.has(key)) continue;
      const p = this.abs(rel.slice(0, i));
      const st = await lstat(p).catch(() => undefined);
      if (st && !st.isDirectory()) await rm(p, { force: true, recursive: true });
      if (!st || !st.isDirectory()) await mkdir(p, { mode: 0o755 });
      this.knownDirs.add(key);
    }
  }

  private async writeFile(rel: string[], entry: AsyncIterable<Buffer>): Promise<void> {
    await this.mkdirs(rel.slice(0, -1));
    const p = this.abs(rel);
    const st = await lstat(p).catch(() => undefined);
    if (st && !st.isFile()) {
      await rm(p, { recursive: true, force: true });
      this.knownDirs.clear();
    }
    const fh = await open(
      p,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    );
    await pipeline(entry, fh.createWriteStream());
    this.layerWritten.add(rel.join('/'));
    this.stats.files++;
  }

  private async hardlink(rel: string[], targetParts: string[]): Promise<void> {
    const target = this.relative(targetParts);
    if (!target || target.length === 0 || rel.length === 0) return this.skip('hardlink');
    const st = await lstat(this.abs(target)).catch(() => undefined);
    if (!st?.isFile()) return this.skip('hardlink');
    await this.mkdirs(rel.slice(0, -1));
    const p = this.abs(rel);
    await rm(p, { recursive: true, force: true });
    this.knownDirs.clear();
    await copyFile(this.abs(target), p, constants.COPYFILE_EXCL);
    this.layerWritten.add(rel.join('/'));
    this.stats.files++;
  }

  private async whiteout(parts: string[]): Promise<void> {
    if (this.coversCatalog(parts)) return this.removeLower([]);
    const rel = this.relative(parts);
    if (!rel || rel.length === 0 || this.layerWritten.has(rel.join('/'))) return;
    await rm(this.abs(rel), { recursive: true, force: true });
    this.knownDirs.clear();
  }

  private async opaque(dirParts: string[]): Promise<void> {
    if (this.coversCatalog(dirParts)) return this.removeLower([]);
    const rel = this.relative(dirParts);
    if (rel) await this.removeLower(rel);
  }

  /** Removes what lower layers left under rel, keeping what this layer wrote. */
  private async removeLower(rel: string[]): Promise<void> {
    const entries = await readdir(this.abs(rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const child = [...rel, e.name];
      if (!this.layerWritten.has(child.join('/'))) {
        await rm(this.abs(child), { recursive: true, force: true });
        this.knownDirs.clear();
      } else if (e.isDirectory()) await this.removeLower(child);
    }
  }
}

function isSourceLike(err: unknown): boolean {
  return err instanceof Error && err.name === 'SourceError';
}
