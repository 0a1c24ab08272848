// Applies image layers (uncompressed tar streams) in order onto a fresh directory, keeping only
// the catalog directory's subtree: whiteouts (.wh.NAME) and opaque directories (.wh..wh..opq)
// remove what lower layers wrote; only regular files and directories are created, with fixed
// modes. Safety: entry names with `..` fail the pull; absolute names are taken relative to the
// image root (as container runtimes do); symlinks, devices and FIFOs are skipped, never created;
// a hardlink becomes a real hard link only when its target is a regular file already unpacked
// inside the catalog directory (otherwise it is skipped), and counts against the byte cap as the
// copy it stands for; files are created with O_EXCL|O_NOFOLLOW and since no symlink is ever
// created nothing can be written outside the target. Caps: uncompressed bytes (across all
// layers, counted on the tar stream, so gzip bombs stop early), tar entries, and the depth and
// length of names. Every failure is a SourceError naming the layer and the entry as the layer
// spells it, never a local path (see docs/source.md, "What the unpacker bounds").
import { closeSync, constants, linkSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { removeTree } from '../util/remove-tree.js';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { findSourceError, retryable, terminal } from './errors.js';
import type { Compression } from './manifest.js';

export interface UnpackLimits {
  /** Uncompressed tar bytes over all layers; a hardlink counts its target's size again. */
  maxBytes: number;
  /** Tar entries over all layers. */
  maxEntries: number;
  /** Components of a name inside the catalog directory (default 128). */
  maxDepth?: number;
}

export const defaultUnpackLimits: UnpackLimits = {
  maxBytes: 1024 * 1024 * 1024,
  maxEntries: 200_000,
  maxDepth: 128,
};

const DEFAULT_MAX_DEPTH = 128;
/** The longest name component a filesystem takes (NAME_MAX). */
const MAX_COMPONENT_BYTES = 255;
/**
 * The longest name written: well under PATH_MAX (4096) minus the cache directory, so that
 * whether a name is too long does not depend on where the cache is.
 */
const MAX_NAME_BYTES = 3072;
/** Files up to this size are written with one synchronous write (see writeFile). */
const SMALL_FILE_BYTES = 64 * 1024;

export interface UnpackStats {
  entries: number;
  bytes: number;
  files: number;
  /** Bytes of the regular files written (what the entry holds on disk; a hardlink adds none). */
  diskBytes: number;
  /** Entries not written, by reason: outside, symlink, hardlink, device, other. */
  skipped: Record<string, number>;
}

/** A tar entry as tar-stream yields it (a streamx Readable). */
type TarEntry = AsyncIterable<Buffer> & { header: tar.Header; resume(): unknown };

// node:stream/promises pipeline, loosely typed: tar-stream's streams are streamx streams.
const pipe = pipeline as unknown as (...streams: unknown[]) => Promise<void>;

const WH = '.wh.';
const OPAQUE = '.wh..wh..opq';

/** An entry name as messages show it: quoted, cut at 100 characters. */
function shownName(name: string): string {
  const s = name.length > 100 ? `${name.slice(0, 100)}...` : name;
  return JSON.stringify(s);
}

/** Splits a tar entry name into safe path components; `..` anywhere is refused. */
function entryComponents(name: string, what: string): string[] {
  if (name.includes('\0')) throw terminal('UnsafeLayer', `${what}: entry name contains NUL`);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..'))
    throw terminal('UnsafeLayer', `${what}: entry ${shownName(name)} has a ".." component`);
  return parts;
}

/** Normalizes the catalog directory label (`/configs`) into components. */
export function catalogDirComponents(label: string): string[] {
  const parts = entryComponents(label, 'catalog directory label');
  return parts;
}

/**
 * The name a whiteout entry removes, or undefined when base is not a whiteout. The OCI image
 * layer spec derives it by dropping the prefix; an empty name, "." or ".." names no entry of the
 * directory (it would name the directory itself or its parent), so such a whiteout is refused.
 */
function whiteoutName(base: string, name: string, what: string): string | undefined {
  if (base === OPAQUE || !base.startsWith(WH)) return undefined;
  const removed = base.slice(WH.length);
  if (removed === '' || removed === '.' || removed === '..')
    throw terminal(
      'InvalidLayer',
      `${what}: entry ${shownName(name)} is a whiteout of ${JSON.stringify(removed)}, which names no file`,
    );
  return removed;
}

function decompressor(c: Compression): Transform | undefined {
  if (c === 'gzip') return zlib.createGunzip();
  if (c === 'zstd') {
    const z = zlib as unknown as { createZstdDecompress?: () => Transform };
    if (!z.createZstdDecompress)
      throw terminal('UnsupportedMediaType', 'zstd layers need Node >= 22.15');
    return z.createZstdDecompress();
  }
  return undefined;
}

/** Filesystem errors that are the controller's trouble (disk full, descriptors), not the image's. */
const LOCAL_FS_TROUBLE = new Set(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE', 'EIO', 'ENOMEM']);

/**
 * A filesystem error met while writing entry `name`, as a SourceError that names the entry and
 * the errno code only: Node's own message holds the local path, which must not reach a status.
 */
function writeFailure(err: unknown, name: string, what: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (findSourceError(err) || typeof e?.syscall !== 'string' || typeof e.code !== 'string')
    return err;
  const where = `${what}: entry ${shownName(name)}`;
  if (LOCAL_FS_TROUBLE.has(e.code))
    return retryable('Unavailable', `${where}: cannot write (${e.code})`);
  if (e.code === 'ENAMETOOLONG') return terminal('InvalidLayer', `${where}: name too long`);
  return terminal('InvalidLayer', `${where}: cannot write (${e.code})`);
}

/** The first sentence of a tar-stream error, lower-cased: deterministic, no data in it. */
function tarReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const first = msg.split(/[.:]/)[0]!.trim();
  return first === '' ? 'unreadable' : first.charAt(0).toLowerCase() + first.slice(1);
}

function isPrematureClose(err: unknown): boolean {
  return (err as { code?: unknown }).code === 'ERR_STREAM_PREMATURE_CLOSE';
}

export class LayerApplier {
  readonly stats: UnpackStats = { entries: 0, bytes: 0, files: 0, diskBytes: 0, skipped: {} };
  /** The disk the files may take (the image cache's room); refused with the error past it. */
  private room: { bytes: number; refuse: () => Error } | undefined;
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

  /** Bounds the bytes of files this applier writes from now on (diskBytes included). */
  limitDisk(bytes: number, refuse: () => Error): void {
    this.room = { bytes, refuse };
  }

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
      this.validate(entry.header, what);
    });
  }

  /** Applies one layer: `source` is the (verified) layer blob. */
  async apply(source: Readable, compression: Compression, what: string): Promise<void> {
    this.layerWritten = new Set();
    this.knownDirs.clear();
    await this.read(source, compression, what, this.stats, async (entry) => {
      try {
        await this.entry(entry, what);
      } catch (err) {
        throw writeFailure(err, entry.header.name, what);
      }
    });
  }

  private readonly checked = { entries: 0, bytes: 0 };
  /** Directories known to exist (as real directories) during the current layer. */
  private readonly knownDirs = new Set<string>();

  /**
   * Checks an entry's names (and its link's), returning its components. Names inside the catalog
   * directory are also checked for depth and length, before anything is written.
   */
  private validate(h: tar.Header, what: string): string[] {
    const parts = entryComponents(h.name, what);
    const base = parts.at(-1) ?? '';
    whiteoutName(base, h.name, what);
    if (h.type === 'link') entryComponents(h.linkname ?? '', what);
    const rel = this.relative(parts);
    if (rel !== undefined) {
      const maxDepth = this.limits.maxDepth ?? DEFAULT_MAX_DEPTH;
      if (rel.length > maxDepth)
        throw terminal(
          'LimitExceeded',
          `${what}: entry ${shownName(h.name)} is more than ${maxDepth} directories deep`,
        );
      if (
        Buffer.byteLength(h.name) > MAX_NAME_BYTES ||
        rel.some((p) => Buffer.byteLength(p) > MAX_COMPONENT_BYTES)
      )
        throw terminal('InvalidLayer', `${what}: entry ${shownName(h.name)}: name too long`);
    }
    return parts;
  }

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
    let decompressError: NodeJS.ErrnoException | undefined;
    if (d) {
      // Only the decompressor's own errors (zlib's Z_* and ZSTD_* codes): when the tar reader
      // fails, the pipeline destroys this stage with the reader's error, which is no gzip fault.
      d.on('error', (err: NodeJS.ErrnoException) => {
        if (/^(Z_|ZSTD_)/.test(err.code ?? '')) decompressError ??= err;
      });
      stages.push(d);
    }
    stages.push(this.byteCounter(what, count));
    const feeding = pipe(source, ...stages, extract).catch((err: unknown) => err);
    let failure: unknown;
    let lastEntry: string | undefined;
    try {
      for await (const entry of extract as AsyncIterable<TarEntry>) {
        lastEntry = entry.header.name;
        try {
          if (++count.entries > this.limits.maxEntries)
            throw terminal(
              'LimitExceeded',
              `${what}: more than ${this.limits.maxEntries} tar entries (the limit over all layers)`,
            );
          await onEntry(entry);
        } finally {
          entry.resume(); // drain what was not consumed
        }
      }
    } catch (err) {
      failure = err;
      extract.destroy();
      source.destroy();
    }
    const fed = await feeding;
    // A stage's error (limit, corrupt gzip, the tar reader's own) explains an extraction failure
    // better than its echo in the entry being read ("stream was destroyed").
    if (fed instanceof Error && !findSourceError(failure) && !isPrematureClose(fed)) failure = fed;
    if (failure === undefined) return;
    if (findSourceError(failure)) throw failure as Error;
    // Write errors were mapped per entry (writeFailure): an errno error here is reading the
    // downloaded layer, the controller's trouble, not the archive's.
    const errno = failure as NodeJS.ErrnoException;
    if (typeof errno?.syscall === 'string' && typeof errno.code === 'string')
      throw retryable('Unavailable', `${what}: cannot read the downloaded layer (${errno.code})`);
    // What is left is the archive's own fault: the decompressor's or the tar reader's.
    if (decompressError)
      throw terminal(
        'InvalidLayer',
        `${what}: invalid ${compression} stream (${decompressError.code})`,
      );
    const where =
      lastEntry === undefined ? 'at the first entry' : `after entry ${shownName(lastEntry)}`;
    throw terminal('InvalidLayer', `${what}: invalid tar archive ${where} (${tarReason(failure)})`);
  }

  private byteCounter(what: string, count: { bytes: number }): Transform {
    return new Transform({
      transform: (chunk: Buffer, _e: BufferEncoding, cb: TransformCallback) => {
        count.bytes += chunk.length;
        if (count.bytes > this.limits.maxBytes) cb(this.overBytes(what));
        else cb(null, chunk);
      },
    });
  }

  private overBytes(what: string) {
    return terminal(
      'LimitExceeded',
      `${what}: uncompressed content over the limit of ${this.limits.maxBytes} bytes`,
    );
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
    const parts = this.validate(h, what);
    const base = parts.at(-1) ?? '';
    if (base === OPAQUE) return this.opaque(parts.slice(0, -1));
    const removed = whiteoutName(base, h.name, what);
    if (removed !== undefined) return this.whiteout([...parts.slice(0, -1), removed]);
    const rel = this.relative(parts);
    if (rel === undefined) return this.skip('outside');
    switch (h.type) {
      case 'file':
      case 'contiguous-file':
        if (rel.length === 0) return this.skip('other');
        return this.writeFile(rel, entry, h.size ?? 0);
      case 'directory':
        return this.mkdirs(rel);
      case 'link':
        return this.hardlink(rel, entryComponents(h.linkname ?? '', what), what);
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

  // Directories and small files are made with synchronous calls: each is a few microseconds,
  // while the promise API costs a thread-pool round trip per call (about 100 µs on a busy
  // machine), which made a layer of 100,000 empty files take minutes.

  private async mkdirs(rel: string[]): Promise<void> {
    if (!this.knownDirs.has('')) {
      mkdirSync(this.catalogPath, { recursive: true, mode: 0o755 });
      this.knownDirs.add('');
    }
    for (let i = 1; i <= rel.length; i++) {
      const key = rel.slice(0, i).join('/');
      this.layerWritten.add(key);
      if (this.knownDirs.has(key)) continue;
      const p = this.abs(rel.slice(0, i));
      try {
        mkdirSync(p, 0o755);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (!lstatSync(p).isDirectory()) {
          await this.remove(p);
          mkdirSync(p, 0o755);
        }
      }
      this.knownDirs.add(key);
    }
  }

  /** Removes whatever is at p (a lower layer's file or directory). */
  private async remove(p: string): Promise<void> {
    await removeTree(p);
    this.knownDirs.clear();
  }

  /**
   * Creates p afresh with create(): a lower layer's entry there is removed first, never written
   * through (O_TRUNC on a hard link would change every name of the file).
   */
  private async createFresh<T>(p: string, create: () => T | Promise<T>): Promise<T> {
    try {
      return await create();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      await this.remove(p);
      return create();
    }
  }

  private async writeFile(
    rel: string[],
    entry: AsyncIterable<Buffer>,
    size: number,
  ): Promise<void> {
    // Refused before a byte of the file is written.
    if (this.room && this.stats.diskBytes + size > this.room.bytes) throw this.room.refuse();
    this.stats.diskBytes += size;
    await this.mkdirs(rel.slice(0, -1));
    const p = this.abs(rel);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    if (size <= SMALL_FILE_BYTES) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c);
      const body = Buffer.concat(chunks);
      const fd = await this.createFresh(p, () => openSync(p, flags, 0o644));
      try {
        for (let off = 0; off < body.length;) off += writeSync(fd, body, off, body.length - off);
      } finally {
        closeSync(fd);
      }
    } else {
      const fh = await this.createFresh(p, () => open(p, flags, 0o644));
      try {
        for await (const c of entry)
          for (let off = 0; off < c.length;) off += (await fh.write(c, off)).bytesWritten;
      } finally {
        await fh.close();
      }
    }
    this.layerWritten.add(rel.join('/'));
    this.stats.files++;
  }

  /**
   * A hard link to a file unpacked inside the catalog directory: a real link (the disk holds the
   * content once), whose target's size counts against the byte cap as the copy a reader sees, so
   * that one file and many links to it cannot present more than the cap to the parser.
   */
  private async hardlink(rel: string[], targetParts: string[], what: string): Promise<void> {
    const target = this.relative(targetParts);
    if (!target || target.length === 0 || rel.length === 0) return this.skip('hardlink');
    const from = this.abs(target);
    let size: number;
    try {
      const st = lstatSync(from);
      if (!st.isFile()) return this.skip('hardlink');
      size = st.size;
    } catch {
      return this.skip('hardlink');
    }
    const p = this.abs(rel);
    if (p === from) return;
    this.stats.bytes += size;
    if (this.stats.bytes > this.limits.maxBytes) throw this.overBytes(what);
    await this.mkdirs(rel.slice(0, -1));
    await this.createFresh(p, () => linkSync(from, p));
    this.layerWritten.add(rel.join('/'));
    this.stats.files++;
  }

  private async whiteout(parts: string[]): Promise<void> {
    if (this.coversCatalog(parts)) return this.removeLower([]);
    const rel = this.relative(parts);
    if (!rel || rel.length === 0 || this.layerWritten.has(rel.join('/'))) return;
    await this.remove(this.abs(rel));
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
      if (!this.layerWritten.has(child.join('/'))) await this.remove(this.abs(child));
      else if (e.isDirectory()) await this.removeLower(child);
    }
  }
}
