// Splits a stream of concatenated JSON values into one byte buffer per top-level value, without
// parsing them, so that only one value is in memory at a time. It tracks lines for positions.
import type { ByteSource, StreamPoint } from './byte-source.js';

export type JsonPiece =
  /** `owned`: `bytes` is a copy made for this value (not a view of a chunk read): releasable. */
  | { kind: 'value'; bytes: Buffer; start: StreamPoint; owned: boolean }
  /** `bytes` holds everything read from `start` on, so that a caller can re-read it as YAML. */
  | {
      kind: 'error';
      reason: string;
      at: StreamPoint;
      start: StreamPoint;
      bytes: Buffer;
      tooLarge: boolean;
    };

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;

export class JsonSplitter {
  private buf: Buffer = Buffer.alloc(0);
  private i = 0;
  /** Absolute offset of buf[0]. */
  private base: number;
  private line: number;
  private lineStart: number;
  private finished = false;

  constructor(
    private readonly src: ByteSource,
    start: StreamPoint,
    private readonly maxValueBytes: number,
    private readonly maxDepth: number,
    /** Values (scalars, arrays, objects; keys not counted) in one top-level value. */
    private readonly maxNodes: number = Number.MAX_SAFE_INTEGER,
  ) {
    this.base = start.offset;
    this.line = start.line;
    this.lineStart = start.lineStart;
  }

  private point(i: number): StreamPoint {
    return { offset: this.base + i, line: this.line, lineStart: this.lineStart };
  }

  /** Bytes read from the source but not yet consumed. */
  remainder(): Buffer {
    return this.buf.subarray(this.i);
  }

  private async fill(): Promise<boolean> {
    const next = await this.src.next();
    if (next === undefined) return false;
    this.base += this.buf.length;
    this.buf = next;
    this.i = 0;
    return true;
  }

  /** The next top-level value (or error), or undefined at the end of the stream. */
  async next(): Promise<JsonPiece | undefined> {
    if (this.finished) return undefined;
    // Skip whitespace between values.
    for (;;) {
      while (this.i < this.buf.length && WS[this.buf[this.i]!]) {
        if (this.buf[this.i] === 0x0a) {
          this.line++;
          this.lineStart = this.base + this.i + 1;
        }
        this.i++;
      }
      if (this.i < this.buf.length) break;
      if (!(await this.fill())) {
        this.finished = true;
        return undefined;
      }
    }
    const start = this.point(this.i);
    const parts: Buffer[] = [];
    let size = 0;
    let depth = 0;
    // Values so far: the first, plus one per `,` (another member) and per `[`/`{` (a first
    // member may follow). An upper bound that costs nothing while scanning: JSON.parse would
    // otherwise build millions of small values from a few megabytes and exhaust the heap.
    let nodes = 1;
    let inString = false;
    let escape = false;
    const first = this.buf[this.i]!;
    const scalar = first !== 0x7b && first !== 0x5b && first !== 0x22;
    for (;;) {
      const buf = this.buf;
      const n = buf.length;
      let i = this.i;
      let end = -1;
      let error: string | undefined;
      // Too many values is final: re-reading the value as YAML would build them all.
      let final = false;
      for (; i < n; i++) {
        const b = buf[i]!;
        if (inString) {
          if (escape) escape = false;
          else if (b === 0x5c) escape = true;
          else if (b === 0x22) {
            inString = false;
            if (depth === 0) {
              end = i + 1;
              break;
            }
          } else {
            // Jump to the next quote or backslash: most of a catalog's bytes are in strings.
            let j = i + 1;
            while (j < n) {
              const c = buf[j]!;
              if (c === 0x22 || c === 0x5c) break;
              if (c === 0x0a) {
                this.line++;
                this.lineStart = this.base + j + 1;
              }
              j++;
            }
            i = j - 1;
          }
          continue;
        }
        if (scalar) {
          if (
            WS[b] ||
            b === 0x7b ||
            b === 0x5b ||
            b === 0x7d ||
            b === 0x5d ||
            b === 0x22 ||
            b === 0x2c
          ) {
            // A stray delimiter where a value should start is a one-byte (invalid) value.
            end = size === 0 && i === this.i ? i + 1 : i;
            break;
          }
          continue;
        }
        if (b === 0x22) inString = true;
        else if (b === 0x2c) {
          if (++nodes > this.maxNodes) {
            error = `a JSON value has more than ${this.maxNodes} values`;
            final = true;
            break;
          }
        } else if (b === 0x7b || b === 0x5b) {
          depth++;
          if (depth > this.maxDepth) {
            error = `exceeded max depth of ${this.maxDepth}`;
            break;
          }
          if (++nodes > this.maxNodes) {
            error = `a JSON value has more than ${this.maxNodes} values`;
            final = true;
            break;
          }
        } else if (b === 0x7d || b === 0x5d) {
          depth--;
          if (depth === 0) {
            end = i + 1;
            break;
          }
        } else if (b === 0x0a) {
          this.line++;
          this.lineStart = this.base + i + 1;
        }
      }
      const stop = end >= 0 ? end : error !== undefined ? i : n;
      if (size + (stop - this.i) > this.maxValueBytes) {
        parts.push(buf.subarray(this.i, stop));
        this.finished = true;
        return {
          kind: 'error',
          reason: `a JSON value is larger than the limit of ${this.maxValueBytes} bytes`,
          at: start,
          start,
          bytes: Buffer.concat(parts),
          tooLarge: true,
        };
      }
      parts.push(buf.subarray(this.i, stop));
      size += stop - this.i;
      if (error !== undefined) {
        const at = this.point(i);
        this.i = stop;
        this.finished = true;
        return {
          kind: 'error',
          reason: error,
          at,
          start,
          bytes: Buffer.concat(parts),
          tooLarge: final,
        };
      }
      this.i = stop;
      if (end >= 0)
        return {
          kind: 'value',
          bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, size),
          start,
          owned: parts.length !== 1,
        };
      if (!(await this.fill())) {
        this.finished = true;
        if (scalar) return { kind: 'value', bytes: Buffer.concat(parts, size), start, owned: true };
        return {
          kind: 'error',
          reason: 'unexpected end of JSON input',
          at: this.point(this.i),
          start,
          bytes: Buffer.concat(parts, size),
          tooLarge: false,
        };
      }
    }
  }
}
