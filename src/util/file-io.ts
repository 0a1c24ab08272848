// Sequential file I/O with few syscalls and bounded memory: a buffered writer and exact reads.
import type { FileHandle } from 'node:fs/promises';

export class BufferedFileWriter {
  private readonly buffer: Buffer;
  private used = 0;
  /** Bytes written so far (buffered included): the offset of the next byte. */
  position = 0;

  constructor(
    private readonly file: FileHandle,
    size = 1 << 20,
  ) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.position += chunk.length;
    if (chunk.length > this.buffer.length - this.used) {
      await this.flush();
      if (chunk.length >= this.buffer.length) {
        await writeFully(this.file, chunk);
        return;
      }
    }
    this.buffer.set(chunk, this.used);
    this.used += chunk.length;
  }

  /**
   * Encodes straight into the buffer (no intermediate Buffer per string: those live outside the
   * V8 heap and pile up between collections). Returns the UTF-8 length.
   */
  async writeString(s: string): Promise<number> {
    const length = Buffer.byteLength(s, 'utf8');
    if (length > this.buffer.length) {
      // A long string is encoded a slice at a time into the buffer: no Buffer of its whole
      // length, and no flat copy of it (slices of a flat string share its characters). A
      // whole-string Buffer.from held three more copies of 7.5 MB documents at the peak of a
      // revision build (docs/bounds.md).
      const step = this.buffer.length >> 2; // at most 3 UTF-8 bytes per UTF-16 unit (4 per pair)
      for (let at = 0; at < s.length;) {
        let end = Math.min(s.length, at + step);
        // Never split a surrogate pair: each half alone would be encoded as U+FFFD.
        if (end < s.length && isHighSurrogate(s.charCodeAt(end - 1))) end--;
        await this.writeString(s.slice(at, end));
        at = end;
      }
      return length;
    }
    if (length > this.buffer.length - this.used) await this.flush();
    this.buffer.write(s, this.used, 'utf8');
    this.used += length;
    this.position += length;
    return length;
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    await writeFully(this.file, this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

async function writeFully(file: FileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await file.write(data, off, data.length - off);
    off += bytesWritten;
  }
}

/** Reads exactly `length` bytes at `position` (short reads are retried; EOF is an error). */
export async function readExactly(
  file: FileHandle,
  position: number,
  length: number,
  into: Buffer = Buffer.allocUnsafe(length),
): Promise<Buffer> {
  let off = 0;
  while (off < length) {
    const { bytesRead } = await file.read(into, off, length - off, position + off);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position + off}`);
    off += bytesRead;
  }
  return into.subarray(0, length);
}
