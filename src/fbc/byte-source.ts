// A pull-based source of byte chunks that can be given chunks back, so a parser can rewind to a
// point it has already read past (operator-registry retries a failed JSON stream as YAML).

export class ByteSource {
  private readonly pending: Buffer[] = [];
  private readonly iterator: AsyncIterator<Uint8Array>;

  constructor(chunks: AsyncIterable<Uint8Array>) {
    this.iterator = chunks[Symbol.asyncIterator]();
  }

  /** The next chunk, or undefined at the end. Never returns an empty chunk. */
  async next(): Promise<Buffer | undefined> {
    for (;;) {
      const p = this.pending.pop();
      if (p !== undefined) {
        if (p.length > 0) return p;
        continue;
      }
      const r = await this.iterator.next();
      if (r.done) return undefined;
      if (r.value.length > 0)
        return Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
    }
  }

  /** Make `chunk` the next one returned (before anything pushed back earlier). */
  unshift(chunk: Buffer): void {
    if (chunk.length > 0) this.pending.push(chunk);
  }

  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

/** Where the next unread byte is: 0-based byte offset, 1-based line, byte offset where the line starts. */
export interface StreamPoint {
  offset: number;
  line: number;
  lineStart: number;
}
