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
      if (size + lineBytes > this.maxDocumentBytes) {
        this.finished = true;
        return {
          kind: 'error',
          reason: `a YAML document is larger than the limit of ${this.maxDocumentBytes} bytes`,
          at: start,
        };
      }
      if (lineStartsWithDashes(line)) {
        const rest = separatorRest(line).trim();
        if (rest.length > 0 && !rest.startsWith('#')) {
          this.finished = true;
          return {
            kind: 'error',
            reason: `invalid YAML document separator: ${rest.slice(0, 80)}`,
            at: lineAt,
          };
        }
        if (size > 0) return { kind: 'doc', bytes: Buffer.concat(doc, size), start };
        start = this.point();
        continue;
      }
      for (const p of line) doc.push(p);
      size += lineBytes;
    }
  }
}
