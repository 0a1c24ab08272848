// A reader of the protocol buffers wire format: varints and length-delimited fields, which is
// all the few apimachinery messages the controller reads in protobuf are made of
// (metadata-protobuf.ts). Hand-written rather than a protobuf library: those decode from schemas
// (Kubernetes' generated.proto files and their imports), and a reader of a dozen fields needs
// neither the schemas nor a code generator (docs/architecture.md, "Why no protobuf library").

/** Wire types (the low three bits of a field's key). */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

/** Bytes that are not the message their reader expected (truncated, or of another shape). */
export class ProtobufError extends Error {
  override name = 'ProtobufError';
}

/** Reads one message, field by field: `while (!r.done()) { const key = r.key(); ... }`. */
export class ProtoReader {
  private pos: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    private readonly end = buf.length,
  ) {
    if (end > buf.length) throw new ProtobufError('protobuf: message runs past its buffer');
    this.pos = start;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** The next field's key: its number is `key >>> 3`, its wire type `key & 7`. */
  key(): number {
    return this.varint();
  }

  /**
   * A varint as a number: exact up to 2^53, which every count, generation and time in seconds
   * of the messages read here is far below.
   */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('protobuf: truncated varint');
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new ProtobufError('protobuf: varint longer than 10 bytes');
  }

  /** A length-delimited field's bounds in the buffer, the reader moved past it. */
  private span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (len > this.end - start) throw new ProtobufError('protobuf: truncated field');
    this.pos = start + len;
    return [start, this.pos];
  }

  string(): string {
    const [start, end] = this.span();
    return this.buf.toString('utf8', start, end);
  }

  /** A length-delimited field's bytes (a view of the buffer, not a copy). */
  bytes(): Buffer {
    const [start, end] = this.span();
    return this.buf.subarray(start, end);
  }

  /** A reader of an embedded message. */
  message(): ProtoReader {
    const [start, end] = this.span();
    return new ProtoReader(this.buf, start, end);
  }

  /** Moves past a field of this wire type that the caller does not read. */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_BYTES:
        this.span();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        throw new ProtobufError(`protobuf: unsupported wire type ${wire}`);
    }
  }

  private advance(n: number): void {
    if (n > this.end - this.pos) throw new ProtobufError('protobuf: truncated field');
    this.pos += n;
  }
}
