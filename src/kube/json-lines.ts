// JSON lines (one JSON value per line) from a byte stream: the apiserver's watch responses.

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into JSON lines and parses each. Works on the chunks' bytes: a line is
 * decoded straight from its chunk, and only a line cut by a chunk boundary is copied (the
 * controller's watch of every CatalogMetadata carries one event per write of a sync).
 */
export class LineSplitter {
  private carry: Buffer[] = [];

  constructor(private readonly onLine: (line: unknown) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      if (this.carry.length > 0) {
        this.carry.push(chunk.subarray(start, nl));
        this.emit(Buffer.concat(this.carry).toString('utf8'));
        this.carry = [];
      } else {
        this.emit(chunk.toString('utf8', start, nl));
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.carry.push(chunk.subarray(start));
  }

  private emit(line: string): void {
    // JSON.parse allows surrounding whitespace (a "\r" before the newline); a blank line is none.
    if (line.trim() !== '') this.onLine(JSON.parse(line));
  }
}
