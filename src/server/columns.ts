// Growable typed-array columns: per-blob numbers during a build without one object per blob.

type TypedArray = Float64Array | Int32Array | Uint32Array | Uint8Array;

export class Column<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(private readonly make: (n: number) => T) {
    this.data = make(1024);
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  get(i: number): number {
    return this.data[i]!;
  }
}

/** Fixed-width byte records (blob hashes), growable. */
export class ByteColumn {
  private data: Buffer;
  length = 0;

  constructor(readonly width: number) {
    this.data = Buffer.alloc(width * 1024);
  }

  push(bytes: Uint8Array): void {
    if (bytes.length !== this.width) throw new Error(`record must be ${this.width} bytes`);
    if ((this.length + 1) * this.width > this.data.length) {
      const next = Buffer.alloc(this.data.length * 2);
      this.data.copy(next);
      this.data = next;
    }
    this.data.set(bytes, this.length * this.width);
    this.length++;
  }

  compare(i: number, j: number): number {
    const w = this.width;
    return this.data.compare(this.data, j * w, j * w + w, i * w, i * w + w);
  }

  hex(i: number): string {
    return this.data.toString('hex', i * this.width, (i + 1) * this.width);
  }
}
