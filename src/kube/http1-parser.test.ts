import { expect } from 'chai';
import { HttpProtocolError, MAX_HEAD_BYTES, ResponseParser } from './http1-parser.js';
import type { ParsedResponse } from './http1-parser.js';

/** Feeds `raw` cut at `cut` (and every `cut` bytes after); the response, or the end()'s. */
function parse(raw: string, cut: number, opts: { end?: boolean; head?: boolean } = {}) {
  const p = new ResponseParser(opts.head);
  const bytes = Buffer.from(raw, 'latin1');
  let res: ParsedResponse | undefined;
  for (let i = 0; i < bytes.length; i += cut) {
    expect(res, 'a response before its last byte').to.equal(undefined);
    res = p.push(bytes.subarray(i, i + cut));
  }
  if (opts.end) res = p.end();
  return res;
}

/** Every way of cutting `raw` into two or more pieces agrees with the whole. */
function everyCut(raw: string, opts: { end?: boolean } = {}) {
  const whole = parse(raw, raw.length, opts);
  for (let cut = 1; cut < raw.length; cut++) {
    const r = parse(raw, cut, opts);
    expect(r?.status, `cut every ${cut}`).to.equal(whole?.status);
    expect(r?.body.toString('latin1'), `cut every ${cut}`).to.equal(whole?.body.toString('latin1'));
  }
  return whole!;
}

describe('kube/http1-parser: one HTTP/1.1 response from bytes cut anywhere', () => {
  it('reads a body by its Content-Length, headers in lower case, repeated ones joined', () => {
    const r = everyCut(
      'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 11\r\n\r\n{"kind":1}\n',
    );
    expect(r.status).to.equal(201);
    expect(r.headers['content-type']).to.equal('application/json');
    expect(r.headers['x-a']).to.equal('1, 2');
    expect(r.body.toString()).to.equal('{"kind":1}\n');
    expect(r.keepAlive).to.equal(true);
  });

  it('reads a chunked body, with chunk extensions and trailers', () => {
    const r = everyCut(
      'HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n',
    );
    expect(r.status).to.equal(409);
    expect(r.body.toString()).to.equal('hello, world');
    expect(r.keepAlive).to.equal(true);
  });

  it('skips interim 1xx responses', () => {
    const r = everyCut(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    );
    expect([r.status, r.body.toString()]).to.deep.equal([200, 'ok']);
  });

  it('says when the connection is not kept alive: Connection: close, HTTP/1.0, a body to the end', () => {
    expect(
      parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', 99)?.keepAlive,
    ).to.equal(false);
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', 99)?.keepAlive).to.equal(false);
    expect(
      parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', 99)
        ?.keepAlive,
    ).to.equal(true);
    const toEnd = everyCut('HTTP/1.1 500 Internal Server Error\r\n\r\nsomething broke', {
      end: true,
    });
    expect([toEnd.status, toEnd.body.toString(), toEnd.keepAlive]).to.deep.equal([
      500,
      'something broke',
      false,
    ]);
  });

  it('reads no body for 204, 304 and the answer to HEAD', () => {
    expect(parse('HTTP/1.1 204 No Content\r\n\r\n', 5)?.body.length).to.equal(0);
    expect(
      parse('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n', 5)?.body.length,
    ).to.equal(0);
    expect(
      parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', 5, { head: true })?.body.length,
    ).to.equal(0);
  });

  it('refuses what is not a response: a bad status line, bad framing, bytes after it, a head too long', () => {
    const refused = (raw: string | Buffer, end = false) => {
      const p = new ResponseParser();
      return () => {
        p.push(Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'latin1'));
        if (end) p.end();
      };
    };
    expect(refused('SSH-2.0-OpenSSH\r\n\r\n')).to.throw(HttpProtocolError, /status line/);
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')).to.throw(
      HttpProtocolError,
      /content-length/,
    );
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n')).to.throw(
      HttpProtocolError,
      /transfer-encoding/,
    );
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).to.throw(
      HttpProtocolError,
      /chunk size/,
    );
    expect(refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n')).to.throw(
      HttpProtocolError,
      /longer than its size/,
    );
    expect(refused('HTTP/1.1 200 OK\r\nno colon\r\n\r\n')).to.throw(
      HttpProtocolError,
      /header line/,
    );
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab')).to.throw(
      HttpProtocolError,
      /after the response/,
    );
    expect(refused(Buffer.alloc(MAX_HEAD_BYTES + 1, 'a'))).to.throw(HttpProtocolError, /too long/);
    expect(refused('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab', true)).to.throw(
      HttpProtocolError,
      /ended before/,
    );
    expect(new HttpProtocolError('x').code).to.equal('EPROTO');
  });
});
