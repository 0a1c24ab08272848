import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { pollUntil } from '../../test/support/poll.js';
import type { LeaseSource, ServedResponse } from './handler.js';
import type { MetasQuery } from './query.js';
import { ContentStore } from './store.js';
import { compressAll } from './revision-build.js';
import { catalogBaseUrl, startContentServer } from './server.js';
import type { ContentServer } from './server.js';
import {
  blobOf,
  catalogOf,
  expectedLines,
  generatedCatalog,
  send,
  streamOf,
} from './test-catalogs.test.js';
import type { TestCatalog } from './test-catalogs.test.js';

function qs(q: MetasQuery): string {
  return new URLSearchParams(q as Record<string, string>).toString();
}

/** Headers that must be the same for GET and HEAD of one resource. */
function representationHeaders(h: IncomingHttpHeaders): Record<string, unknown> {
  const { date: _date, connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...rest } = h;
  return rest;
}

const T0 = new Date('2026-03-04T05:06:07Z');

describe('server/handler (HTTP on 127.0.0.1)', function () {
  let root: string;
  let store: ContentStore;
  let server: ContentServer;
  let gen: TestCatalog;
  let hex: string;

  before(async () => {
    gen = await generatedCatalog(5, 0.5);
    hex = gen.contentHash.slice('sha256:'.length);
    root = await mkdtemp(path.join(tmpdir(), 'server-http-'));
    store = new ContentStore(path.join(root, 'store'), { graceMs: 0 });
    await writeFile(path.join(root, 'secret'), 'not content\n');
    await store.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
    await store.activate('gen', gen.contentHash, T0);
    await store.compressed();
    server = await startContentServer({ store, host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await server.close();
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it('GET /all: the canonical blobs, with type, length and validators', async () => {
    const r = await send(server, '/catalogs/gen/api/v1/all');
    expect(r.status).to.equal(200);
    expect(r.body.toString('utf8')).to.equal(expectedLines(gen.blobs));
    expect(r.headers['content-type']).to.equal('application/jsonl');
    expect(Number(r.headers['content-length'])).to.equal(r.body.length);
    expect(r.headers.etag).to.equal(`"${hex}"`);
    expect(r.headers['last-modified']).to.equal('Wed, 04 Mar 2026 05:06:07 GMT');
    expect(r.headers.vary).to.equal('Accept-Encoding');
    expect(r.headers['content-encoding']).to.equal(undefined);
    expect(catalogBaseUrl(server.url, 'gen')).to.equal(`${server.url}/catalogs/gen`);
  });

  it('GET /metas: schema, package, name and combinations', async () => {
    const bundle = gen.blobs.find((b) => b.schema === 'olm.bundle')!;
    const channel = gen.blobs.find((b) => b.schema === 'olm.channel')!;
    const queries: MetasQuery[] = [
      { schema: 'olm.package' },
      { schema: 'olm.channel' },
      { package: bundle.package! },
      { name: bundle.name! },
      { name: channel.name! },
      { schema: 'olm.bundle', package: bundle.package! },
      { schema: 'olm.channel', package: channel.package!, name: channel.name! },
      { package: channel.package!, name: channel.name! },
      { schema: 'olm.bundle', name: bundle.name! },
      { schema: 'nothing' },
    ];
    const tags = new Set<string>();
    for (const q of queries) {
      const r = await send(server, `/catalogs/gen/api/v1/metas?${qs(q)}`);
      expect(r.status, qs(q)).to.equal(200);
      expect(r.body.toString('utf8'), qs(q)).to.equal(expectedLines(gen.blobs, q));
      expect(Number(r.headers['content-length'])).to.equal(r.body.length);
      expect(r.headers.etag).to.match(/^"[0-9a-f]{64}"$/);
      tags.add(r.headers.etag!);
    }
    expect(tags.size).to.equal(queries.length);
    // Spelling does not matter: same blobs, same tag.
    const a = await send(
      server,
      `/catalogs/gen/api/v1/metas?name=${bundle.name}&schema=olm.bundle`,
    );
    const b = await send(
      server,
      `/catalogs/gen/api/v1/metas?schema=olm.bundle&package=&name=${bundle.name}`,
    );
    expect(a.headers.etag).to.equal(b.headers.etag);
    // No parameters (or only empty ones) is the whole catalog.
    for (const t of ['/catalogs/gen/api/v1/metas', '/catalogs/gen/api/v1/metas?package=']) {
      const r = await send(server, t);
      expect(r.body.toString('utf8')).to.equal(expectedLines(gen.blobs));
    }
  });

  it('a metas query reads only the matching lines of the catalog', async () => {
    const bundle = gen.blobs.find((b) => b.schema === 'olm.bundle')!;
    const before = store.io.contentBytesRead;
    const r = await send(server, `/catalogs/gen/api/v1/metas?name=${bundle.name}`);
    expect(store.io.contentBytesRead - before).to.equal(r.body.length);
    expect(r.body.length).to.be.lessThan(store.current('gen')!.allBytes / 10);
  });

  it('400 for unknown or repeated parameters', async () => {
    const unknown = await send(server, '/catalogs/gen/api/v1/metas?schema=a&version=1');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.toString()).to.equal(
      'unknown query parameter "version": allowed are schema, package, name\n',
    );
    const repeated = await send(server, '/catalogs/gen/api/v1/metas?name=a&name=b');
    expect(repeated.status).to.equal(400);
  });

  it('304 on a matching If-None-Match or a recent If-Modified-Since', async () => {
    const all = '/catalogs/gen/api/v1/all';
    const metas = '/catalogs/gen/api/v1/metas?schema=olm.package';
    for (const t of [all, metas]) {
      const first = await send(server, t);
      const again = await send(server, t, { headers: { 'If-None-Match': first.headers.etag! } });
      expect(again.status).to.equal(304);
      expect(again.body.length).to.equal(0);
      expect(again.headers.etag).to.equal(first.headers.etag);
      const stale = await send(server, t, { headers: { 'If-None-Match': '"0000"' } });
      expect(stale.status).to.equal(200);
    }
    const since = await send(server, all, {
      headers: { 'If-Modified-Since': 'Wed, 04 Mar 2026 05:06:07 GMT' },
    });
    expect(since.status).to.equal(304);
    const older = await send(server, all, {
      headers: { 'If-Modified-Since': 'Wed, 04 Mar 2026 05:06:06 GMT' },
    });
    expect(older.status).to.equal(200);
  });

  it('gzip when accepted: decodes to the same bytes; precompressed for the whole catalog', async () => {
    for (const t of [
      '/catalogs/gen/api/v1/all',
      '/catalogs/gen/api/v1/metas',
      '/catalogs/gen/api/v1/metas?schema=olm.channel',
    ]) {
      const plain = await send(server, t);
      const z = await send(server, t, { headers: { 'Accept-Encoding': 'br, gzip' } });
      expect(z.status).to.equal(200);
      expect(z.headers['content-encoding']).to.equal('gzip');
      // The whole catalog is gzipped at build time (length known); a filtered answer streams.
      if (t.includes('?')) expect(z.headers['content-length']).to.equal(undefined);
      else expect(Number(z.headers['content-length'])).to.equal(z.body.length);
      expect(z.headers.vary).to.equal('Accept-Encoding');
      expect(z.headers.etag).to.equal(plain.headers.etag!.replace(/"$/, '-gzip"'));
      expect(gunzipSync(z.body).equals(plain.body)).to.equal(true);
      const revalidated = await send(server, t, {
        headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': z.headers.etag! },
      });
      expect(revalidated.status).to.equal(304);
    }
  });

  it('gzip of the whole catalog: identity until its gzip is written after the first serve', async () => {
    let written: () => void = () => {};
    const held = new Promise<void>((resolve) => (written = resolve));
    const late = new ContentStore(path.join(root, 'late'), {
      graceMs: 0,
      compress: async (dir) => {
        await held;
        return compressAll(dir);
      },
    });
    const lateServer = await startContentServer({ store: late, host: '127.0.0.1', port: 0 });
    try {
      await late.buildRevision('gen', gen.contentHash, streamOf(gen.blobs));
      await late.activate('gen', gen.contentHash, T0);
      const gz = { headers: { 'Accept-Encoding': 'gzip' } };
      const before = await send(lateServer, '/catalogs/gen/api/v1/all', gz);
      expect(before.status).to.equal(200);
      expect(before.headers['content-encoding']).to.equal(undefined);
      expect(before.headers.etag).to.equal(`"${hex}"`);
      expect(before.body.toString('utf8')).to.equal(expectedLines(gen.blobs));
      // A filtered answer is gzipped as it streams, whether or not the whole one is written.
      const filtered = await send(lateServer, '/catalogs/gen/api/v1/metas?schema=olm.channel', gz);
      expect(filtered.headers['content-encoding']).to.equal('gzip');
      written();
      await late.compressed();
      const after = await send(lateServer, '/catalogs/gen/api/v1/all', gz);
      expect(after.headers['content-encoding']).to.equal('gzip');
      expect(after.headers.etag).to.equal(`"${hex}-gzip"`);
      expect(gunzipSync(after.body).equals(before.body)).to.equal(true);
    } finally {
      written();
      await lateServer.close();
      await late.close();
    }
  });

  it('Range on the whole catalog: 206 with Content-Range, 416 outside, whole under a stale If-Range', async () => {
    for (const t of ['/catalogs/gen/api/v1/all', '/catalogs/gen/api/v1/metas']) {
      const whole = await send(server, t);
      expect(whole.headers['accept-ranges']).to.equal('bytes');
      const size = whole.body.length;
      const part = await send(server, t, { headers: { Range: 'bytes=10-1000009' } });
      expect(part.status).to.equal(206);
      expect(part.headers['content-range']).to.equal(
        `bytes 10-${Math.min(size, 1000010) - 1}/${size}`,
      );
      expect(part.body.equals(whole.body.subarray(10, 1000010))).to.equal(true);
      expect(Number(part.headers['content-length'])).to.equal(part.body.length);
      const tail = await send(server, t, { headers: { Range: 'bytes=-100' } });
      expect(tail.body.equals(whole.body.subarray(size - 100))).to.equal(true);
      const head = await send(server, t, { method: 'HEAD', headers: { Range: 'bytes=-100' } });
      expect(head.status).to.equal(206);
      expect(representationHeaders(head.headers)).to.deep.equal(
        representationHeaders(tail.headers),
      );
      const outside = await send(server, t, { headers: { Range: `bytes=${size}-` } });
      expect(outside.status).to.equal(416);
      expect(outside.headers['content-range']).to.equal(`bytes */${size}`);
      const current = await send(server, t, {
        headers: { Range: 'bytes=0-0', 'If-Range': whole.headers.etag! },
      });
      expect(current.status).to.equal(206);
      const stale = await send(server, t, { headers: { Range: 'bytes=0-0', 'If-Range': '"old"' } });
      expect(stale.status).to.equal(200);
      expect(stale.body.equals(whole.body)).to.equal(true);
    }
    // A filtered answer and a gzip body are sent whole.
    const filtered = await send(server, '/catalogs/gen/api/v1/metas?schema=olm.channel', {
      headers: { Range: 'bytes=0-0' },
    });
    expect(filtered.status).to.equal(200);
    expect(filtered.headers['accept-ranges']).to.equal(undefined);
    const z = await send(server, '/catalogs/gen/api/v1/all', {
      headers: { Range: 'bytes=0-0', 'Accept-Encoding': 'gzip' },
    });
    expect(z.status).to.equal(200);
    expect(Number(z.headers['content-length'])).to.equal(z.body.length);
  });

  it('HEAD: no body, the same headers as GET', async () => {
    for (const t of ['/catalogs/gen/api/v1/all', '/catalogs/gen/api/v1/metas?schema=olm.package'])
      for (const headers of [{}, { 'Accept-Encoding': 'gzip' }] as Array<Record<string, string>>) {
        const get = await send(server, t, { headers });
        const head = await send(server, t, { method: 'HEAD', headers });
        expect(head.status).to.equal(200);
        expect(head.body.length).to.equal(0);
        expect(representationHeaders(head.headers)).to.deep.equal(
          representationHeaders(get.headers),
        );
      }
  });

  it('404 for unknown catalogs and paths, 405 with Allow for other methods', async () => {
    expect((await send(server, '/catalogs/nope/api/v1/all')).status).to.equal(404);
    expect((await send(server, '/catalogs/gen/api/v1/graphql')).status).to.equal(404);
    expect((await send(server, '/')).status).to.equal(404);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await send(server, '/catalogs/gen/api/v1/all', { method });
      expect(r.status, method).to.equal(405);
      expect(r.headers.allow).to.equal('GET, HEAD');
    }
  });

  it('traversal attempts get 400 or 404 and never a file', async () => {
    const secret = await readFile(path.join(root, 'secret'));
    for (const t of [
      '/catalogs/../secret',
      '/catalogs/../../secret/api/v1/all',
      '/catalogs/%2e%2e/api/v1/all',
      '/catalogs/%2E%2E%2Fsecret/api/v1/all',
      '/catalogs/gen%2f..%2f..%2fsecret/api/v1/all',
      '/catalogs/gen/../gen/api/v1/all',
      '/catalogs/gen/api/v1/%2e%2e/v1/all',
      '/catalogs/gen/api/v1/all/../../../../secret',
      '/catalogs/..%5c..%5csecret/api/v1/all',
      '/catalogs/store/api/v1/all',
      '/catalogs/gen/api/v1/all%00',
    ]) {
      const r = await send(server, t);
      expect([400, 404], t).to.include(r.status);
      expect(r.body.includes(secret), t).to.equal(false);
    }
  });

  it('a revision swap during a slow read: that reader gets the old revision intact', async () => {
    const make = (rev: string): TestCatalog =>
      catalogOf(
        Array.from({ length: 40 }, (_, i) =>
          blobOf({ schema: 'big', package: 'p', name: `b${i}`, rev, pad: 'x'.repeat(64 * 1024) }),
        ),
      );
    const a = make('a');
    const b = make('b');
    await store.buildRevision('swap', a.contentHash, streamOf(a.blobs));
    await store.activate('swap', a.contentHash, T0);
    const wantA = createHash('sha256').update(expectedLines(a.blobs)).digest('hex');

    // A slow reader, made deterministic: the first request's body stops after its first chunk
    // until the gate opens (as a stalled client or disk would stop it).
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let firstChunkSent!: () => void;
    const stalled = new Promise<void>((resolve) => (firstChunkSent = resolve));
    let gated = 0;
    const slow: LeaseSource = {
      acquire: (catalog) => {
        const lease = store.acquire(catalog);
        if (!lease || gated++ > 0) return lease;
        return {
          ...lease,
          send: (sel, out) => {
            let n = 0;
            const gated = new Writable({
              write(chunk: Buffer, _enc, done) {
                out.write(chunk, (err) => {
                  if (err) return done(err);
                  if (n++ > 0) return done();
                  firstChunkSent();
                  gate.then(() => done(), done);
                });
              },
            });
            return lease.send(sel, gated);
          },
        };
      },
    };
    const slowServer = await startContentServer({ store: slow });
    try {
      const reply = send(slowServer, '/catalogs/swap/api/v1/all');
      await stalled;
      await store.buildRevision('swap', b.contentHash, streamOf(b.blobs));
      await store.activate('swap', b.contentHash, T0);
      expect(store.retainedRevisions('swap')).to.deep.equal([a.contentHash]);
      const now = await send(slowServer, '/catalogs/swap/api/v1/all');
      expect(now.body.toString()).to.equal(expectedLines(b.blobs));
      openGate();
      const r = await reply;
      expect(createHash('sha256').update(r.body).digest('hex')).to.equal(wantA);
      await pollUntil(async () => store.retainedRevisions('swap').length === 0, {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'the old revision to be released',
      });
    } finally {
      openGate();
      await slowServer.close();
      await store.remove('swap');
    }
  });

  it('a client that disconnects mid-body releases its revision', async () => {
    const make = (rev: string): TestCatalog =>
      catalogOf(
        Array.from({ length: 20 }, (_, i) =>
          blobOf({ schema: 'big', name: `b${i}`, rev, pad: 'y'.repeat(64 * 1024) }),
        ),
      );
    const a = make('a');
    const b = make('b');
    await store.buildRevision('gone', a.contentHash, streamOf(a.blobs));
    await store.activate('gone', a.contentHash, T0);
    const { hostname, port } = new URL(server.url);
    await new Promise<void>((resolve) => {
      const req = request({ hostname, port, path: '/catalogs/gone/api/v1/all' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.on('response', (res) => res.on('error', () => undefined));
      req.end();
    });
    await store.buildRevision('gone', b.contentHash, streamOf(b.blobs));
    await store.activate('gone', b.contentHash, T0);
    // Whether or not the server had finished before the disconnect, nothing stays leased.
    await pollUntil(async () => store.retainedRevisions('gone').length === 0, {
      timeoutMs: 5000,
      intervalMs: 10,
      what: 'the disconnected request to release its revision',
    });
    await store.remove('gone');
  });

  it('reports each response to onResponse', async () => {
    const seen: ServedResponse[] = [];
    const observed = await startContentServer({ store, onResponse: (r) => seen.push(r) });
    try {
      await send(observed, '/catalogs/gen/api/v1/all');
      await send(observed, '/catalogs/gen/api/v1/metas?bogus=1');
      await send(observed, '/nowhere', { method: 'HEAD' });
      await pollUntil(async () => seen.length === 3, {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'three reports',
      });
      expect(seen).to.deep.equal([
        { method: 'GET', endpoint: 'all', status: 200, complete: true },
        { method: 'GET', endpoint: 'metas', status: 400, complete: true },
        { method: 'HEAD', endpoint: undefined, status: 404, complete: true },
      ]);
    } finally {
      await observed.close();
    }
  });
});
