// The peer scenario's pure parts (bench/scenarios/peer.ts, bench/lib/content-client.ts): the
// identity check of two servers' /all bodies and the table.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContentClient, linesDigest, parallelTransfers } from '../../bench/lib/content-client.js';
import type { PeerResult, PeerSide } from '../../bench/scenarios/peer.js';
import { peerMarkdown } from '../../bench/scenarios/peer.js';

describe('bench peer: linesDigest', () => {
  it('is the same for the same blobs in another line order and key order', () => {
    const a = linesDigest(
      Buffer.from('{"schema":"olm.package","name":"a"}\n{"name":"b","schema":"olm.package"}\n'),
    );
    const b = linesDigest(
      Buffer.from('{"schema":"olm.package","name":"b"}\n\n{"name":"a","schema":"olm.package"}'),
    );
    assert.deepEqual(a, b);
    assert.equal(a.lines, 2);
  });

  it('differs when a blob differs', () => {
    const a = linesDigest(Buffer.from('{"schema":"olm.package","name":"a"}\n'));
    const b = linesDigest(Buffer.from('{"schema":"olm.package","name":"a","icon":null}\n'));
    assert.notEqual(a.sha256, b.sha256);
  });
});

describe('bench peer: parallelTransfers', () => {
  it('counts the bytes of every reader', async () => {
    const body = Buffer.alloc(100_000, 'x');
    const server = createServer((_req, res) => res.end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new ContentClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const r = await parallelTransfers(client, '/api/v1/all', 4, 3);
      assert.equal(r.bytes, 12 * body.length);
    } finally {
      client.close();
      server.close();
    }
  });
});

describe('bench peer: peerMarkdown', () => {
  const side = (servingSeconds: number): PeerSide => ({
    servingSeconds,
    roundServingSeconds: [servingSeconds],
    syncedSeconds: servingSeconds,
    peakRssSyncBytes: 100 * 1048576,
    peakRssReadersBytes: 150 * 1048576,
    allIdentity: { seconds: 0.1, bytes: 1, runs: [0.1] },
    allParallel: { clients: 16, each: 5, seconds: 1, mbPerSecond: 400 },
    allGzip: { seconds: 0.05, bytes: 1, runs: [0.05] },
    metasPackage: { p50Ms: 1, p99Ms: 2, requests: 10 },
    metasSchemaPackage: { p50Ms: 1, p99Ms: 2, requests: 10 },
    idleCpuSecondsPerMinute: 0.5,
    apiserverRssBytesAdded: 0,
    etcdBytesAdded: 0,
    allLines: { lines: 1, sha256: 'x' },
  });
  const result = (sides: PeerResult['catalogs'][number]['sides']): PeerResult => ({
    rounds: 3,
    transfers: 5,
    readers: { clients: 16, each: 5 },
    metasRequests: 10,
    idleSeconds: 60,
    upstream: { version: 'olmv1-v1.5.1', binary: '/x/catalogd' },
    catalogs: [{ id: 'real-v4.20', ref: 'r@sha256:0', contentBytes: 1, sides, sameLines: true }],
  });

  it('puts catalogd-ts vs upstream and their ratio in each row', () => {
    const md = peerMarkdown(result({ 'catalogd-ts': side(6), upstream: side(2) }));
    assert.match(md, /\| apply → Serving=True \(median\) \| 6\.00 s vs 2\.00 s \(3\.00×\) \|/);
    assert.match(md, /\| \/all bodies hold the same lines \| true \|/);
  });

  it('marks the profile none as TODO until the controller knows it', () => {
    const md = peerMarkdown(
      result({
        'catalogd-ts': side(6),
        upstream: side(2),
        'catalogd-ts-none': { todo: 'no none' },
      }),
    );
    assert.match(md, /profile none.*\| TODO: no none \|/);
  });
});
