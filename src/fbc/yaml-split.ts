// Splits a YAML stream into documents the way operator-registry does (k8s.io/apimachinery's
// YAMLReader): a line that starts with `---` ends a document; the rest of that line may only be
// blank or a comment. Empty chunks are skipped; a chunk of only blank lines or comments is a
// document (which then has no schema). One document is in memory at a time.
import type { ByteSource, StreamPoint } from './byte-source.js';

export type YamlPiece =
  | { kind: 'doc'; bytes: Buffer; start: StreamPoint }
  | { kind: 'error'; reason: string; at: StreamPoint };

function lineStartsWithDashes(pieces: Buffer[]): boolean {
  let k = 0;
  for (const p of pieces) {
    for (let j = 0; j < p.length; j++) {
      if (p[j] !== 0x2d) return false;
      if (++k === 3) return true;
    }
  }
  return false;
}

/** The separator line's text after `---`, without the line break. */
function separatorRest(pieces: Buffer[]): string {
  const line = Buffer.concat(pieces).toString('utf8');
  return line.slice(3).replace(/\r?\n$/, '');
}

/**
 * Upper-bound node weight of each byte (parse.ts yamlNodesPastLimit has the rule): `-` one,
 * `,` `[` `{` `:` `?` two.
 */
export const YAML_NODE_WEIGHT = new Uint8Array(256);
YAML_NODE_WEIGHT[0x2d] = 1; // -
for (const c of ',[{:?') YAML_NODE_WEIGHT[c.charCodeAt(0)] = 2;

export class YamlSplitter {
  private buf: Buffer = Buffer.alloc(0);
  /** The node bound counted so far in the current document (yamlNodesPastLimit's rule). */
  private nodes = 1;
  private i = 0;
  private base: number;
  private line: number;
  private lineStart: number;
  private eof = false;
  private finished = false;

  constructor(
    private readonly src: ByteSource,
    start: StreamPoint,
    private readonly maxDocumentBytes: number,
    /**
     * Stop reading a document once its node bound passes this: the document read so far is
     * returned, and fails the same check at the same byte when decoded. A document of many
     * small values (4 MB of `1,1,1,…`) is then refused after about `max / 2` bytes instead of
     * being held whole.
     */
    private readonly maxDocumentNodes = Infinity,
  ) {
    this.base = start.offset;
    this.line = start.line;
    this.lineStart = start.lineStart;
  }

  private point(): StreamPoint {
    return { offset: this.base + this.i, line: this.line, lineStart: this.lineStart };
  }

  /**
   * The next line as pieces (including its `\n`), or undefined at the end. Stops early, with
   * the line incomplete, once it holds more than `max` bytes: a file may be one 1 GiB line.
   */
  private async nextLine(max: number): Promise<Buffer[] | undefined> {
    const pieces: Buffer[] = [];
    let size = 0;
    for (;;) {
      if (size > max || this.nodes > this.maxDocumentNodes) return pieces;
      if (this.i >= this.buf.length) {
        if (this.eof) return pieces.length ? pieces : undefined;
        const next = await this.src.next();
        if (next === undefined) {
          this.eof = true;
          continue;
        }
        this.base += this.buf.length;
        this.buf = next;
        this.i = 0;
      }
      const nl = this.buf.indexOf(0x0a, this.i);
      const end = nl < 0 ? this.buf.length : nl + 1;
      const over = this.countNodes(this.i, end);
      if (over >= 0) {
        // Past the node bound: the line stops here, incomplete (the document will fail).
        pieces.push(this.buf.subarray(this.i, over + 1));
        this.i = over + 1;
        return pieces;
      }
      if (nl < 0) {
        pieces.push(this.buf.subarray(this.i));
        size += this.buf.length - this.i;
        this.i = this.buf.length;
        continue;
      }
      pieces.push(this.buf.subarray(this.i, nl + 1));
      this.i = nl + 1;
      this.line++;
      this.lineStart = this.base + this.i;
      return pieces;
    }
  }

  /** Adds the node weights of buf[from, to) to the count; the index where it passes the bound, or -1. */
  private countNodes(from: number, to: number): number {
    if (this.maxDocumentNodes === Infinity) return -1;
    for (let j = from; j < to; j++) {
      const w = YAML_NODE_WEIGHT[this.buf[j]!]!;
      if (w !== 0 && (this.nodes += w) > this.maxDocumentNodes) return j;
    }
    return -1;
  }

  async next(): Promise<YamlPiece | undefined> {
    if (this.finished) return undefined;
    const doc: Buffer[] = [];
    let size = 0;
    let start = this.point();
    this.nodes = 1;
    for (;;) {
      // The lines already whole in the buffer first, a run of them at a time (one piece, no
      // promise per line): a 15 MB catalog has half a million lines.
      const buffered = this.bufferedLines(doc, size, start);
      if ('kind' in buffered) return buffered;
      size = buffered.size;
      if (buffered.separator) {
        if (size > 0) return { kind: 'doc', bytes: Buffer.concat(doc, size), start };
        start = this.point();
        continue;
      }
      // A line that is not whole in the buffer (or the end): read one line at a time.
      const lineAt = this.point();
      const line = await this.nextLine(this.maxDocumentBytes - size);
      if (line === undefined) {
        this.finished = true;
        return size > 0 ? { kind: 'doc', bytes: Buffer.concat(doc, size), start } : undefined;
      }
      let lineBytes = 0;
      for (const p of line) lineBytes += p.length;
      if (this.nodes > this.maxDocumentNodes) {
        // The document read so far, which fails the node bound when decoded; nothing after it
        // is read.
        this.finished = true;
        for (const p of line) doc.push(p);
        return { kind: 'doc', bytes: Buffer.concat(doc, size + lineBytes), start };
      }
      if (size + lineBytes > this.maxDocumentBytes) return this.tooLarge(start);
      if (lineStartsWithDashes(line)) {
        const invalid = this.invalidSeparator(separatorRest(line), lineAt);
        if (invalid) return invalid;
        if (size > 0) return { kind: 'doc', bytes: Buffer.concat(doc, size), start };
        start = this.point();
        continue;
      }
      for (const p of line) doc.push(p);
      size += lineBytes;
    }
  }

  /**
   * Consumes the lines that are whole in the buffer, with next()'s rules for each, appending
   * document lines to `doc` as one piece. Returns the document's size once the buffer holds no
   * whole line more or after a separator line (`separator`: the document before it is
   * complete), or the piece next() returns (a bound passed, an invalid separator).
   */
  private bufferedLines(
    doc: Buffer[],
    size: number,
    start: StreamPoint,
  ): { size: number; separator: boolean } | YamlPiece {
    const buf = this.buf;
    const runStart = this.i;
    const flush = (to: number): void => {
      if (to > runStart) doc.push(buf.subarray(runStart, to));
    };
    for (;;) {
      const i = this.i;
      const nl = i < buf.length ? buf.indexOf(0x0a, i) : -1;
      if (nl < 0) {
        flush(i);
        return { size, separator: false };
      }
      const end = nl + 1;
      const over = this.countNodes(i, end);
      if (over >= 0) {
        // As next(): the document so far, cut where the bound passed.
        this.finished = true;
        this.i = over + 1;
        flush(this.i);
        return { kind: 'doc', bytes: Buffer.concat(doc, size + this.i - i), start };
      }
      if (size + end - i > this.maxDocumentBytes) return this.tooLarge(start);
      if (end - i >= 3 && buf[i] === 0x2d && buf[i + 1] === 0x2d && buf[i + 2] === 0x2d) {
        flush(i);
        const invalid = this.invalidSeparator(separatorRest([buf.subarray(i, end)]), this.point());
        if (invalid) return invalid;
        this.advanceLine(end);
        return { size, separator: true };
      }
      size += end - i;
      this.advanceLine(end);
    }
  }

  /** Past a whole line of the buffer that ends (with its line break) at `end`. */
  private advanceLine(end: number): void {
    this.i = end;
    this.line++;
    this.lineStart = this.base + end;
  }

  private tooLarge(start: StreamPoint): YamlPiece {
    this.finished = true;
    return {
      kind: 'error',
      reason: `a YAML document is larger than the limit of ${this.maxDocumentBytes} bytes`,
      at: start,
    };
  }

  /** The error of a separator line whose text after `---` is not blank or a comment. */
  private invalidSeparator(rest: string, at: StreamPoint): YamlPiece | undefined {
    const text = rest.trim();
    if (text.length === 0 || text.startsWith('#')) return undefined;
    this.finished = true;
    return { kind: 'error', reason: `invalid YAML document separator: ${text.slice(0, 80)}`, at };
  }
}
