// The content server's limits (server.ts, docs/bounds.md) against real sockets on 127.0.0.1: at
// the connection cap the oldest idle connection makes room, so that clients are still served,
// and a new connection is closed at once only when all are busy; a connection that
// sends nothing, or its headers a byte at a time, is closed after the header timeout (node's
// default let it live 60 to 90 s); an idle keep-alive connection after the keep-alive timeout; a
// TLS connection that never finishes its handshake after the header timeout (node's default:
// 120 s). Tiny timeouts, and waits that poll to a deadline far beyond them.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from '../../test/support/poll.js';
import { capConnections } from './connection-cap.js';
import { startContentServer, type ContentServer, type ServerLimits } from './server.js';
import { ContentStore } from './store.js';
import { blobOf, catalogOf, streamOf } from './test-catalogs.test.js';
import { checkPair } from './tls.js';

const fixture = (f: string) =>
  readFileSync(new URL(`../../test/fixtures/tls/${f}`, import.meta.url));

/** Long enough never to matter in a test, unless it is the one tested. */
const LONG = 60_000;
const limits = (l: Partial<ServerLimits>): ServerLimits => ({
  maxConnections: 100,
  headersTimeoutMs: LONG,
  requestTimeoutMs: LONG,
  keepAliveTimeoutMs: LONG,
  ...l,
});

interface Idle {
  socket: net.Socket;
  closed: boolean;
}

/** A connection that sends nothing; `closed` once the server has closed it. */
function idle(port: number): Promise<Idle> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const c: Idle = { socket, closed: false };
    socket.on('close', () => (c.closed = true));
    socket.resume(); // reads what comes (a 408), so that the server's end is seen
    socket.on('error', () => {}); // a reset is a close too
    socket.once('connect', () => resolve(c));
    socket.once('error', reject);
  });
}

function get(server: ContentServer, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}/catalogs/cat/api/v1/all`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

const connections = (server: ContentServer) =>
  new Promise<number>((resolve, reject) =>
    server.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );

const poll = (what: string, check: () => boolean | Promise<boolean>) =>
  pollUntil(async () => (await check()) || undefined, { timeoutMs: 10_000, intervalMs: 20, what });

describe('content server limits (sockets on 127.0.0.1)', () => {
  let dir = '';
  let store: ContentStore;
  let server: ContentServer | undefined;
  const opened: net.Socket[] = [];
  const agents: http.Agent[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'server-limits-'));
    store = new ContentStore(dir);
    const cat = catalogOf([blobOf({ schema: 'olm.package', name: 'foo' })]);
    await store.buildRevision('cat', cat.contentHash, streamOf(cat.blobs));
    await store.activate('cat', cat.contentHash, new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) s.destroy();
    for (const a of agents.splice(0)) a.destroy();
    await server?.close();
    server = undefined;
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const agent = () => {
    const a = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(a);
    return a;
  };
  const start = async (l: Partial<ServerLimits>, tls?: boolean) => {
    server = await startContentServer({
      store,
      limits: limits(l),
      ...(tls && {
        tls: checkPair(
          { certFile: 'tls.crt', keyFile: 'tls.key' },
          fixture('a.crt'),
          fixture('a.key'),
          new Date('2030-01-01T00:00:00Z'),
        ),
      }),
    });
    return { server, port: Number(new URL(server.url).port) };
  };
  const open = async (port: number) => {
    const c = await idle(port);
    opened.push(c.socket);
    return c;
  };

  it('at the cap, a new connection closes the oldest idle one: a flood of idle connections keeps no client out', async () => {
    const { server, port } = await start({ maxConnections: 4 });
    // A client of the content, connected before the flood (keep-alive; idle between requests).
    expect(await get(server, agent())).to.equal(200);
    const flood: Idle[] = [];
    for (let i = 0; i < 12; i++) flood.push(await open(port));
    // The 12 idle connections and the client's make 13: the 9 oldest are closed, the newest 4 stay.
    await poll('the oldest idle connections closed', () =>
      flood.slice(0, 8).every((c) => c.closed),
    );
    expect(flood.slice(8).map((c) => c.closed)).to.deep.equal([false, false, false, false]);
    expect(server.connections).to.include({ open: 4, evicted: 9, refused: 0 });
    await poll('node counts 4 connections', async () => (await connections(server)) === 4);
    // A client that connects now is served: its connection takes the oldest idle one's place.
    expect(await get(server, agent())).to.equal(200);
    await poll('the oldest idle connection closed', () => flood[8]!.closed);
    expect(server.connections.open).to.equal(4);
  });

  it('at the cap with every connection busy, a new connection is closed at once and the busy ones go on', async () => {
    // A bare server whose requests stay in flight until released.
    const held: http.ServerResponse[] = [];
    const bare = http.createServer((_req, res) => void held.push(res));
    const cap = capConnections(bare, 2);
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const port = (bare.address() as net.AddressInfo).port;
    try {
      const busy = [await open(port), await open(port)];
      for (const c of busy) c.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await poll('two requests in flight', () => held.length === 2);
      const late = await open(port);
      await poll('the new connection closed', () => late.closed);
      expect(cap).to.include({ open: 2, evicted: 0, refused: 1 });
      expect(busy.map((c) => c.closed)).to.deep.equal([false, false]);
      // Answered, they are idle again: the next connection takes the oldest one's place.
      for (const r of held) r.end('ok');
      await poll('both answered', () => held.every((r) => r.writableFinished));
      const next = await open(port);
      await poll('the oldest idle connection closed', () => busy[0]!.closed);
      expect([busy[1]!.closed, next.closed]).to.deep.equal([false, false]);
      expect(cap).to.include({ open: 2, evicted: 1, refused: 1 });
    } finally {
      bare.closeAllConnections();
      await new Promise((resolve) => bare.close(resolve));
    }
  });

  it('closes a connection that sends nothing after the header timeout', async () => {
    const { port } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 200 });
    const c = await open(port);
    await poll('the silent connection closed', () => c.closed);
  });

  it('closes a connection that sends its headers a byte at a time after the header timeout', async () => {
    const { port } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const c = await open(port);
    c.socket.write('GET /catalogs/cat/api/v1/all HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => c.socket.writable && c.socket.write('X'), 20);
    try {
      await poll('the slow connection closed', () => c.closed);
    } finally {
      clearInterval(drip);
    }
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { server } = await start({ keepAliveTimeoutMs: 100 });
    let socket: net.Socket | undefined;
    const client = agent();
    client.on('free', (s: net.Socket) => (socket = s));
    expect(await get(server, client)).to.equal(200);
    await poll('the response done', () => socket !== undefined);
    let closed = false;
    socket!.on('close', () => (closed = true));
    // Node's own default is 5 s (and more in the socket's timer): this deadline is under it.
    await pollUntil(async () => closed || socket!.destroyed || undefined, {
      timeoutMs: 4000,
      intervalMs: 20,
      what: 'the idle keep-alive connection closed',
    });
  });

  it('closes a TLS connection that never finishes its handshake after the header timeout', async () => {
    const { port } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 200 }, true);
    const c = await open(port);
    await poll('the silent TLS connection closed', () => c.closed);
  });
});
