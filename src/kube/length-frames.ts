// Length-delimited frames from a byte stream: the apiserver's protobuf watch responses, each event
// a 4-byte big-endian length and that many bytes.
import { ProtobufError } from './protobuf.js';

/**
 * The largest frame accepted: an event carries one object's metadata, which etcd's request limit
 * (1.5 MiB) bounds; a length past this is a stream out of step, not an event to buffer.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Splits a byte stream into frames and hands each to onFrame. A frame within one chunk is a view
 * of it; only a frame cut by a chunk boundary is copied.
 */
export class FrameSplitter {
  private carry: Buffer[] = [];
  private carried = 0;
  /** The carried frame's whole size (length prefix included), once its prefix is in. */
  private need: number | undefined;

  constructor(private readonly onFrame: (frame: Buffer) => void) {}

  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.carried > 0) {
      // A frame spread over many chunks is joined once, when its last byte is in.
      if (this.need !== undefined && this.carried + chunk.length < this.need) {
        this.carry.push(chunk);
        this.carried += chunk.length;
        return;
      }
      buf = Buffer.concat([...this.carry, chunk]);
      this.carry = [];
      this.carried = 0;
      this.need = undefined;
    }
    let start = 0;
    while (buf.length - start >= 4) {
      const len = buf.readUInt32BE(start);
      if (len > MAX_FRAME_BYTES) {
        throw new ProtobufError(`watch frame of ${len} bytes, over ${MAX_FRAME_BYTES}`);
      }
      if (buf.length - start - 4 < len) break;
      this.onFrame(buf.subarray(start + 4, start + 4 + len));
      start += 4 + len;
    }
    if (start < buf.length) {
      this.carry.push(buf.subarray(start));
      this.carried = buf.length - start;
      if (this.carried >= 4) this.need = 4 + buf.readUInt32BE(start);
    }
  }

  /** Bytes of a frame begun and not yet complete (the stream ended mid-frame if not 0). */
  get pending(): number {
    return this.carried;
  }
}
