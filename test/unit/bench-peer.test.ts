// The peer scenario's pure parts (bench/scenarios/peer.ts, bench/lib/content-client.ts): the
// identity check of two servers' /all bodies, the tables, the settled memory's smaps_rollup.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContentClient, linesDigest, parallelTransfers } from '../../bench/lib/content-client.js';
import { mainArenaRss, parseSmapsRollup } from '../../bench/lib/proc-memory.js';
import type { PeerResult, PeerSide, SettledMemory } from '../../bench/scenarios/peer.js';
import { peerMarkdown, settledMarkdown } from '../../bench/scenarios/peer.js';

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
    settled: {},
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

describe('bench peer: settled memory', () => {
  it('reads Rss and Anonymous from smaps_rollup; the rest is file-backed', () => {
    const text = [
      '55af848e1000-7ffc462ff000 ---p 00000000 00:00 0                          [rollup]',
      'Rss:               98304 kB',
      'Pss:               90000 kB',
      'Pss_Anon:          47104 kB',
      'Anonymous:         47104 kB',
      'LazyFree:              0 kB',
      'AnonHugePages:         0 kB',
      '',
    ].join('\n');
    assert.deepEqual(parseSmapsRollup(text), {
      rssBytes: 96 * 1048576,
      anonymousBytes: 46 * 1048576,
      fileBytes: 50 * 1048576,
    });
    assert.throws(() => parseSmapsRollup('Rss: 1 kB\n'), /no Anonymous line/);
  });

  it("reads the Rss of smaps' [heap] mapping (glibc's main arena), 0 without one", () => {
    const mapping = (range: string, name: string, rssKb: number) =>
      [
        `${range} rw-p 00000000 00:00 0                          ${name}`,
        'Size:               2048 kB',
        `Rss:                ${rssKb} kB`,
        'Anonymous:          100 kB',
        'VmFlags: rd wr mr mw me ac sd',
      ].join('\n');
    const smaps = [
      mapping('5583cfced000-5583cfd2f000', '', 7),
      mapping('5583cfd2f000-5583d0d2f000', '[heap]', 14336),
      mapping('7f0000000000-7f0000100000', '[stack]', 132),
    ].join('\n');
    assert.equal(mainArenaRss(smaps), 14 * 1048576);
    assert.equal(mainArenaRss(mapping('7f0000000000-7f0000100000', '[stack]', 132)), 0);
  });

  it('has a row per contender, with V8 only where the controller exposes it', () => {
    const MiB = 1048576;
    const s = (rss: number, v8?: SettledMemory['v8']): SettledMemory => ({
      catalogs: ['generated-50mb', 'real-v4.20'],
      readers: { clients: 16, each: 5 },
      settleSeconds: 45,
      vmRssBytes: rss * MiB,
      idleVmRssBytes: 60 * MiB,
      rssBytes: rss * MiB,
      anonymousBytes: (rss - 50) * MiB,
      mainArenaBytes: 5 * MiB,
      fileBytes: 50 * MiB,
      ...(v8 && { v8 }),
    });
    const md = settledMarkdown({
      'catalogd-ts': s(96, {
        heapUsedBytes: 20 * MiB,
        heapTotalBytes: 24 * MiB,
        externalBytes: 4 * MiB,
      }),
      upstream: s(70),
    });
    assert.match(
      md,
      /generated-50mb and real-v4\.20 loaded, after 16 clients × 5 reads .* 45 s quiet/,
    );
    assert.match(
      md,
      /\| catalogd-ts \| 96\.0 MiB \| 60\.0 MiB \| 46\.0 MiB \| 5\.0 MiB \| 50\.0 MiB \| 20\.0 MiB \/ 24\.0 MiB \/ 4\.0 MiB \|/,
    );
    assert.match(
      md,
      /\| upstream \| 70\.0 MiB \| 60\.0 MiB \| 20\.0 MiB \| 5\.0 MiB \| 50\.0 MiB \| – \|/,
    );
    assert.equal(settledMarkdown({}), '');
  });
});
