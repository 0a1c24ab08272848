// The response side of http1.ts: one HTTP/1.1 response read from the bytes of a connection, as
// they come. Bodies by Content-Length, chunked, or up to the end of the connection; interim 1xx
// responses skipped. Pure: no I/O, so each framing is unit-tested with bytes cut anywhere.

/** One whole response. */
export interface ParsedResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** Whether the connection may carry another request (HTTP/1.1 without `Connection: close`). */
  keepAlive: boolean;
}

/** Bytes that are not an HTTP/1.1 response: the connection cannot be trusted again. */
export class HttpProtocolError extends Error {
  readonly code = 'EPROTO';
  constructor(message: string) {
    super(message);
    this.name = 'HttpProtocolError';
  }
}

/** The largest status line and headers accepted (Node's own default is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

type Framing =
  | { kind: 'length'; remaining: number }
  | { kind: 'chunked'; remaining: number; step: 'size' | 'data' | 'data-end' | 'trailers' }
  | { kind: 'close' };

/**
 * Reads one response (and any interim 1xx before it). `push` returns it once whole; bytes after
 * it are a protocol error, since a request is sent only after the previous response (no
 * pipelining). `end` is the connection's end: it completes a body read to the end of the
 * connection, and is an error anywhere else.
 */
export class ResponseParser {
  private pending: Buffer = Buffer.alloc(0);
  private head?: { status: number; headers: Record<string, string>; keepAlive: boolean };
  private framing?: Framing;
  private readonly body: Buffer[] = [];
  private done = false;

  constructor(
    /** HEAD requests' responses have no body whatever their headers say. */
    private readonly noBody = false,
  ) {}

  push(chunk: Buffer): ParsedResponse | undefined {
    if (this.done) throw new HttpProtocolError('bytes after the response');
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (!this.head) {
        if (!this.readHead()) return undefined;
        continue;
      }
      const r = this.readBody();
      if (r === 'more') return undefined;
      return this.finish();
    }
  }

  end(): ParsedResponse {
    if (this.head && this.framing?.kind === 'close' && !this.done) return this.finish();
    throw new HttpProtocolError('the connection ended before the response did');
  }

  private finish(): ParsedResponse {
    if (this.pending.length > 0) throw new HttpProtocolError('bytes after the response');
    this.done = true;
    const head = this.head!;
    const body = this.body.length === 1 ? this.body[0]! : Buffer.concat(this.body);
    return { ...head, body, keepAlive: head.keepAlive && this.framing?.kind !== 'close' };
  }

  /** Reads a status line and headers; false until they are all here. */
  private readHead(): boolean {
    const end = this.pending.indexOf(HEAD_END);
    if (end < 0) {
      if (this.pending.length > MAX_HEAD_BYTES) throw new HttpProtocolError('headers too long');
      return false;
    }
    if (end > MAX_HEAD_BYTES) throw new HttpProtocolError('headers too long');
    const lines = this.pending.toString('latin1', 0, end).split('\r\n');
    this.pending = this.pending.subarray(end + HEAD_END.length);
    const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!m) throw new HttpProtocolError(`not an HTTP/1.x status line: ${JSON.stringify(lines[0])}`);
    const status = Number(m[2]);
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new HttpProtocolError(`malformed header line ${JSON.stringify(line)}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    // Interim responses (100 Continue, 103 Early Hints) precede the final one: skip them.
    if (status >= 100 && status < 200 && status !== 101) return true;
    const connection = (headers.connection ?? '').toLowerCase();
    const keepAlive =
      m[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    this.head = { status, headers, keepAlive };
    this.framing = this.framingOf(status, headers);
    return true;
  }

  private framingOf(status: number, headers: Record<string, string>): Framing {
    if (this.noBody || status === 204 || status === 304 || status === 101)
      return { kind: 'length', remaining: 0 };
    const te = headers['transfer-encoding'];
    if (te !== undefined) {
      if (te.toLowerCase().split(',').pop()?.trim() !== 'chunked')
        throw new HttpProtocolError(`unsupported transfer-encoding ${JSON.stringify(te)}`);
      return { kind: 'chunked', remaining: 0, step: 'size' };
    }
    const cl = headers['content-length'];
    if (cl !== undefined) {
      if (!/^\d{1,15}$/.test(cl))
        throw new HttpProtocolError(`bad content-length ${JSON.stringify(cl)}`);
      return { kind: 'length', remaining: Number(cl) };
    }
    return { kind: 'close' };
  }

  /** Reads body bytes; 'done' when the body is whole. */
  private readBody(): 'more' | 'done' {
    const f = this.framing!;
    if (f.kind === 'close') {
      this.take(this.pending.length);
      return 'more';
    }
    if (f.kind === 'length') {
      f.remaining -= this.take(f.remaining);
      return f.remaining === 0 ? 'done' : 'more';
    }
    for (;;) {
      if (f.step === 'data') {
        f.remaining -= this.take(f.remaining);
        if (f.remaining > 0) return 'more';
        f.step = 'data-end';
      }
      const eol = this.pending.indexOf(CRLF);
      if (eol < 0) {
        if (this.pending.length > MAX_HEAD_BYTES)
          throw new HttpProtocolError('chunk line too long');
        return 'more';
      }
      const line = this.pending.toString('latin1', 0, eol);
      this.pending = this.pending.subarray(eol + CRLF.length);
      if (f.step === 'data-end') {
        if (line !== '') throw new HttpProtocolError('chunk data longer than its size');
        f.step = 'size';
      } else if (f.step === 'size') {
        const size = /^([0-9a-fA-F]{1,12})(?:;.*)?$/.exec(line);
        if (!size) throw new HttpProtocolError(`bad chunk size ${JSON.stringify(line)}`);
        f.remaining = parseInt(size[1]!, 16);
        f.step = f.remaining === 0 ? 'trailers' : 'data';
      } else if (line === '') {
        // The empty line after the (ignored) trailers ends the body.
        return 'done';
      }
    }
  }

  /** Moves up to `max` pending bytes into the body; returns how many. */
  private take(max: number): number {
    const n = Math.min(max, this.pending.length);
    if (n > 0) {
      this.body.push(this.pending.subarray(0, n));
      this.pending = this.pending.subarray(n);
    }
    return n;
  }
}
