import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { isNetworkError } from './errors.js';
import { Http1Pool } from './http1.js';
import { pollUntil } from '../../test/support/poll.js';
import { makeTestPki } from '../../test/support/test-pki.js';

/** A server on a free port; its connections counted, the most open at once too. */
async function listen(server: net.Server) {
  const sockets = new Set<Socket>();
  let connections = 0;
  let mostOpen = 0;
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    mostOpen = Math.max(mostOpen, sockets.size);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    sockets,
    counts: () => ({ connections, mostOpen }),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const target = (port: number) =>
  ({ protocol: 'http:', hostname: '127.0.0.1', port, host: `127.0.0.1:${port}` }) as const;

/** What a promise was rejected with (undefined if it was not). */
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

const post = (pool: Http1Pool, body = '{}', signal?: AbortSignal) =>
  pool.request({
    method: 'POST',
    path: '/apis/x/v1/things?fieldManager=m',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: Buffer.from(body),
    ...(signal && { signal }),
  });

describe('kube/http1: the write pool', () => {
  it('sends method, path, headers and body; reuses its connections, at most maxConnections at once', async () => {
    const seen: string[] = [];
    const srv = await listen(
      http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          seen.push(
            `${req.method} ${req.url} ${req.headers.host} ${Buffer.concat(chunks).toString()}`,
          );
          // Answer late, so that requests overlap.
          setTimeout(() => {
            res.writeHead(201, { 'x-kubernetes-pf-prioritylevel-uid': 'p1' });
            res.end(`{"n":${seen.length}}`);
          }, 5);
        });
      }),
    );
    const pool = new Http1Pool(target(srv.port), 3);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(pool, `{"i":${i}}`)),
      );
      expect(
        answers.every(
          (a) => a.status === 201 && a.headers['x-kubernetes-pf-prioritylevel-uid'] === 'p1',
        ),
      ).to.equal(true);
      expect(seen).to.have.length(20);
      expect(seen[0]).to.match(
        /^POST \/apis\/x\/v1\/things\?fieldManager=m 127\.0\.0\.1:\d+ \{"i":0\}$/,
      );
      expect(srv.counts()).to.deep.equal({ connections: 3, mostOpen: 3 });
      expect(pool.size).to.equal(3);
      await post(pool);
      expect(srv.counts().connections).to.equal(3);
    } finally {
      pool.close();
      await srv.close();
    }
  });

  it('opens a new connection for the next request when the server closes one, idle or by Connection: close', async () => {
    let requests = 0;
    const srv = await listen(
      http.createServer((req, res) => {
        requests++;
        req.resume();
        req.on('end', () => {
          if (requests === 2) res.setHeader('connection', 'close');
          res.writeHead(200).end('{}');
        });
      }),
    );
    const pool = new Http1Pool(target(srv.port), 1);
    try {
      await post(pool);
      await post(pool); // answered with Connection: close
      expect((await post(pool)).status).to.equal(200);
      expect(srv.counts().connections).to.equal(2);
      // The server ends the idle connection: the pool forgets it.
      for (const s of srv.sockets) s.end();
      await pollUntil(async () => pool.size === 0, {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'the pool to forget the closed connection',
      });
      expect((await post(pool)).status).to.equal(200);
      expect(srv.counts().connections).to.equal(3);
    } finally {
      pool.close();
      await srv.close();
    }
  });

  it('fails a request whose connection resets mid-answer as a retryable network error, and goes on', async () => {
    let n = 0;
    const srv = await listen(
      net.createServer((s) => {
        s.once('data', () => {
          if (n++ === 0) {
            s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"cut');
            setTimeout(() => s.resetAndDestroy(), 5);
          } else s.write('HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}');
        });
      }),
    );
    const pool = new Http1Pool(target(srv.port), 1);
    try {
      const err = await rejection(post(pool));
      expect(isNetworkError(err), String(err)).to.equal(true);
      expect((await post(pool)).status).to.equal(201);
    } finally {
      pool.close();
      await srv.close();
    }
  });

  it('ends a request in flight and one waiting for a connection with the signal, and keeps serving others', async () => {
    const held: http.ServerResponse[] = [];
    const srv = await listen(
      http.createServer((req, res) => {
        req.resume();
        if (req.url?.includes('hold')) held.push(res);
        else res.writeHead(200).end('{}');
      }),
    );
    const pool = new Http1Pool(target(srv.port), 1);
    const ac = new AbortController();
    try {
      const inFlight = pool.request({
        method: 'POST',
        path: '/hold',
        headers: {},
        signal: ac.signal,
      });
      const waiting = post(pool, '{}', ac.signal);
      await pollUntil(async () => held.length > 0, {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'the held request to reach the server',
      });
      ac.abort();
      for (const p of [inFlight, waiting]) {
        const err = (await rejection(p))!;
        expect(err.name).to.equal('AbortError');
      }
      expect((await post(pool)).status).to.equal(200);
      expect((await rejection(post(pool, '{}', ac.signal)))?.name).to.equal('AbortError');
    } finally {
      pool.close();
      await srv.close();
    }
  });

  it('refuses what would split the request: CR or LF in a header, spaces in the path', async () => {
    const pool = new Http1Pool(target(1), 1);
    const injected = await rejection(
      pool.request({
        method: 'GET',
        path: '/x',
        headers: { authorization: 'Bearer a\r\nx-evil: 1' },
      }),
    );
    expect(injected)
      .to.be.instanceOf(TypeError)
      .and.match(/invalid header/);
    const spaced = await rejection(pool.request({ method: 'GET', path: '/x y', headers: {} }));
    expect(spaced)
      .to.be.instanceOf(TypeError)
      .and.match(/invalid request path/);
    expect(pool.size).to.equal(0);
  });

  it('speaks TLS with a client certificate and verifies the server against the CA', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'http1-tls-'));
    try {
      await makeTestPki(dir, ['alice']);
      const pem = (f: string) => readFileSync(path.join(dir, f));
      const srv = await listen(
        https.createServer(
          { key: pem('server.key'), cert: pem('server.crt'), ca: pem('ca.crt'), requestCert: true },
          (req, res) => {
            const s = req.socket as tls.TLSSocket;
            req.resume();
            res
              .writeHead(200)
              .end(s.authorized ? String(s.getPeerCertificate().subject.CN) : 'refused');
          },
        ),
      );
      const tlsTarget = (ca: Buffer) =>
        ({
          ...target(srv.port),
          protocol: 'https:',
          secureContext: tls.createSecureContext({
            ca,
            cert: pem('alice.crt'),
            key: pem('alice.key'),
          }),
        }) as const;
      const pool = new Http1Pool(tlsTarget(pem('ca.crt')), 2);
      // A CA that did not sign the server's certificate.
      const stranger = new Http1Pool(tlsTarget(pem('alice.crt')), 2);
      try {
        expect((await post(pool)).body.toString()).to.equal('alice');
        const err = await rejection(post(stranger));
        expect(String(err)).to.match(/certificate/i);
      } finally {
        pool.close();
        stranger.close();
        await srv.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('when retired, closes its idle connections and takes no new requests', async () => {
    const srv = await listen(
      http.createServer((req, res) => {
        req.resume();
        res.writeHead(200).end('{}');
      }),
    );
    const pool = new Http1Pool(target(srv.port), 2);
    try {
      await post(pool);
      pool.retire();
      expect(pool.size).to.equal(0);
      const err = await rejection(post(pool));
      expect(isNetworkError(err)).to.equal(true);
    } finally {
      pool.close();
      await srv.close();
    }
  });
});
