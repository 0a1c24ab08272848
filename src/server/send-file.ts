// Streams byte ranges of an open file to a writable (an HTTP response, a gzip stream) with the
// fewest copies node allows without sendfile: each chunk is read straight into a buffer that is
// reused, and the next chunk is read while the previous one is written. A response holds at
// most two chunk buffers, and waits for the writable to take each chunk before reusing its
// buffer, so a slow reader costs two chunks of memory, never a queue of them (backpressure).
import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { readExactly } from '../util/file-io.js';

/** Bytes per read and per write: large enough that syscalls and promise hops are negligible. */
export const SEND_CHUNK_BYTES = 256 * 1024;
/**
 * Idle chunk buffers the pool keeps (1 MiB): a burst of readers allocates two buffers per
 * response beyond these (never per chunk), and the burst's buffers do not stay in RSS after it.
 */
export const MAX_IDLE_CHUNKS = 4;

/**
 * Chunk buffers shared by all responses. Allocating a fresh buffer per chunk made every
 * transfer of a 50 MB catalog allocate (and page-fault) 50 MB that lived until the next
 * garbage collection: with 16 readers, tens of MB of dead buffers in RSS and the time to fault
 * them in. A response takes two buffers and gives them back when its body is written.
 */
export class ChunkPool {
  readonly #idle: Buffer[] = [];

  constructor(
    readonly chunkBytes = SEND_CHUNK_BYTES,
    readonly maxIdle = MAX_IDLE_CHUNKS,
  ) {}

  take(): Buffer {
    return this.#idle.pop() ?? Buffer.allocUnsafeSlow(this.chunkBytes);
  }

  /** Takes back a buffer nothing refers to any more (a write that called back). */
  give(buffer: Buffer): void {
    if (this.#idle.length < this.maxIdle) this.#idle.push(buffer);
    // Freed now rather than at the next garbage collection, which an idle server may not have
    // for minutes: after a burst of 16 readers that was 8 MiB of dead buffers in RSS.
    else (buffer.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
  }

  /** Buffers waiting for a response (tests). */
  get idle(): number {
    return this.#idle.length;
  }
}

/** Resolves when `out` has taken the chunk (its write callback), rejects if `out` closes first. */
function writeChunk(out: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const onClose = (): void => reject(new Error('the reader went away before the body was sent'));
    out.once('close', onClose);
    out.write(chunk, (err) => {
      out.off('close', onClose);
      if (err) reject(err);
      else resolve();
    });
  });
}

/**
 * Writes the byte ranges `[start, end)` of `file` to `out`, in order; does not end `out`.
 * `onRead` is told the size of each read. Rejects when a read fails or `out` fails or closes.
 */
export async function sendFileRanges(
  file: FileHandle,
  ranges: ReadonlyArray<readonly [number, number]>,
  out: Writable,
  pool: ChunkPool,
  onRead: (bytes: number) => void = () => undefined,
): Promise<void> {
  const buffers = [pool.take(), pool.take()] as const;
  let next = 0;
  let writing: Promise<void> = Promise.resolve();
  let sent = false;
  try {
    for (const [start, end] of ranges)
      for (let pos = start; pos < end;) {
        // This buffer's previous write was awaited before the other buffer's was started.
        const buffer = buffers[next]!;
        next ^= 1;
        const length = Math.min(buffer.length, end - pos);
        const chunk = await readExactly(file, pos, length, buffer);
        onRead(length);
        pos += length;
        await writing;
        writing = writeChunk(out, chunk);
        // Awaited on the next turn; a read failing meanwhile must not leave it unhandled.
        writing.catch(() => undefined);
      }
    await writing;
    sent = true;
  } finally {
    // After a failure a write may still hold its buffer: those are left to the collector.
    if (sent) for (const b of buffers) pool.give(b);
  }
}
