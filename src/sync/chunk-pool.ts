// The write spool's read buffers, reused once every body cut from them has been sent.
//
// Why: every chunk read from the spool was a new 1 MiB ArrayBuffer, and V8 counts the bytes of
// ArrayBuffers allocated since its last full collection against the old generation's limit, so
// reading a sync's bodies started a full collection every few MiB read, whatever the heap held.
// Measured (bench/README, stop 41): bench/client-write-path.ts's controller phase (30 MB, 6,537
// writes) ran 13 full collections reading the spool as before, 2 with the bodies read
// beforehand, 6 with this pool (3 or 4 of them the bench's own reading of the bodies for its
// raw loop); the controller's cold sync of 50 MB, 32 to 36 per sync before, 23 or 24 with it.
//
// A chunk goes back to the pool when the reader has moved past it and each record cut from it
// was released by its consumer after its last use. A record never released (a consumer that
// keeps bodies, a write that failed) keeps its chunk out of the pool for good, to be collected
// as before: a body is never overwritten while anyone may still read it.

/** A buffer read into, shared by the records cut from it. */
export class Chunk {
  /** The reader's own reference, and one per record not yet released. */
  private refs = 1;

  constructor(
    readonly buf: Buffer,
    private readonly onIdle: (buf: Buffer) => void,
  ) {}

  /** A reference for one record: its release function, which counts once however often called. */
  lease(): () => void {
    this.refs++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.drop();
    };
  }

  /** The reader is done with it (what it still needs was copied out). */
  retire(): void {
    this.drop();
  }

  private drop(): void {
    if (--this.refs === 0) this.onIdle(this.buf);
  }
}

export class ChunkPool {
  private readonly idle: Buffer[] = [];

  constructor(
    /** The size of a pooled chunk; larger ones (a record longer than a chunk) are not pooled. */
    readonly chunkBytes: number,
    /** The most idle chunks kept. */
    private readonly maxIdle: number,
  ) {}

  /** A chunk of at least `bytes` (default: chunkBytes), an idle one when one fits. */
  take(bytes = this.chunkBytes): Chunk {
    const reused = bytes <= this.chunkBytes ? this.idle.pop() : undefined;
    const buf = reused ?? Buffer.allocUnsafe(Math.max(bytes, this.chunkBytes));
    return new Chunk(buf, (b) => {
      if (b.length === this.chunkBytes && this.idle.length < this.maxIdle) this.idle.push(b);
    });
  }

  /** Idle chunks held (tests). */
  get idleCount(): number {
    return this.idle.length;
  }
}
