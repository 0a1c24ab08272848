// HTTP content server benchmark (SPEC §4, §7): metas latency (p50/p99) and /api/v1/all
// throughput for a generated catalog (default 50 MB), beside a baseline in the same run: the
// same all.jsonl file served by a plain node:http static file server. /api/v1/all is also read
// over HTTPS (the same store behind a TLS server, test/fixtures/tls's certificate, ECDSA P-256),
// interleaved with plain HTTP, for their ratio in one run. Everything on 127.0.0.1, sequential
// requests over one keep-alive connection each, bounded request counts.
//
//   npx tsx bench/http.ts [--size-mb 50] [--all-runs 5] [--metas 300] [--dir FBC_DIR]
//
// Writes bench/results/http.json and prints a table.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { argv, stdout } from 'node:process';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CatalogHasher, readCatalog } from '../src/fbc/index.js';
import { ContentStore, startContentServer } from '../src/server/index.js';
import type { MetasQuery } from '../src/server/index.js';
import { generateCatalog, prng } from '../test/support/fbcgen.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CATALOG = 'bench';

interface Fetched {
  ms: number;
  bytes: number;
  sha256: string;
}

function get(agent: Agent, url: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : request;
    const req = send(url, { agent, headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
      const h = createHash('sha256');
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        h.update(c);
      });
      res.on('end', () => resolve({ ms: performance.now() - t0, bytes, sha256: h.digest('hex') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const round = (x: number, d = 2): number => Number(x.toFixed(d));

/** A plain static file server: the one file, with Content-Length, streamed from disk. */
async function startStaticServer(file: string): Promise<{ url: string; close: () => void }> {
  const { size } = await stat(file);
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/jsonl', 'Content-Length': size });
    if (req.method === 'HEAD') return res.end();
    pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), res).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/all.jsonl`,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: argv.slice(2),
    options: {
      'size-mb': { type: 'string', default: '50' },
      'all-runs': { type: 'string', default: '5' },
      metas: { type: 'string', default: '300' },
      dir: { type: 'string' },
    },
  });
  const allRuns = Number(values['all-runs']);
  const metasCount = Number(values.metas);
  const tmp = await mkdtemp(path.join(tmpdir(), 'http-bench-'));
  const fbcDir = values.dir ?? path.join(tmp, 'fbc');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    if (!values.dir) await generateCatalog(fbcDir, { seed: 1, sizeMB: Number(values['size-mb']) });

    // Names for the metas queries, and the content hash: one parse pass keeping small strings.
    const hasher = new CatalogHasher();
    const packages = new Set<string>();
    const bundleNames: string[] = [];
    const schemas = new Set<string>();
    const tParse = performance.now();
    for await (const b of readCatalog(fbcDir, { catalog: CATALOG })) {
      hasher.add(b.hash);
      schemas.add(b.schema);
      if (b.package !== undefined) packages.add(b.package);
      if (b.schema === 'olm.bundle' && b.name !== undefined) bundleNames.push(b.name);
    }
    const contentHash = hasher.digest();
    const parseMs = performance.now() - tParse;

    const store = new ContentStore(path.join(tmp, 'store'));
    const t0 = performance.now();
    await store.buildRevision(CATALOG, contentHash, readCatalog(fbcDir, { catalog: CATALOG }));
    const buildMs = performance.now() - t0;
    await store.activate(CATALOG, contentHash, new Date());
    const info = store.current(CATALOG)!;
    const revDir = path.join(tmp, 'store', CATALOG, contentHash.slice('sha256:'.length));
    const indexBytes = {
      indexJson: (await stat(path.join(revDir, 'index.json'))).size,
      offsetsBin: (await stat(path.join(revDir, 'offsets.bin'))).size,
      namesJsonl: (await stat(path.join(revDir, 'names.jsonl'))).size,
    };

    const ours = await startContentServer({ store });
    const base = `${ours.url}/catalogs/${CATALOG}/api/v1`;
    const tls = (f: string) => readFileSync(path.join(ROOT, 'test/fixtures/tls', f));
    const oursTls = await startContentServer({
      store,
      tls: { cert: tls('a.crt'), key: tls('a.key') },
    });
    const tlsBase = `${oursTls.url}/catalogs/${CATALOG}/api/v1`;
    const tlsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: tls('ca.crt') });
    const baseline = await startStaticServer(path.join(revDir, 'all.jsonl'));
    try {
      // /all throughput, ours and baseline interleaved; bodies must be byte-identical.
      const oursAll: Fetched[] = [];
      const staticAll: Fetched[] = [];
      const gzipAll: Fetched[] = [];
      const httpsAll: Fetched[] = [];
      for (let i = 0; i < allRuns; i++) {
        oursAll.push(await get(agent, `${base}/all`));
        staticAll.push(await get(agent, baseline.url));
        httpsAll.push(await get(tlsAgent, `${tlsBase}/all`));
      }
      for (let i = 0; i < Math.min(allRuns, 3); i++)
        gzipAll.push(await get(agent, `${base}/all`, { 'Accept-Encoding': 'gzip' }));
      if ([...oursAll, ...httpsAll].some((f) => f.sha256 !== staticAll[0]!.sha256))
        throw new Error('/api/v1/all differs from the static file');
      const mbps = (fs: Fetched[]): number =>
        round(
          info.allBytes /
            1048576 /
            (quantile(
              fs.map((f) => f.ms),
              0.5,
            ) /
              1000),
          1,
        );

      // Metas latency over a fixed, seeded mix of queries.
      const rnd = prng(7);
      const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const pkgList = [...packages];
      const kinds: Array<() => MetasQuery> = [
        () => ({ package: pick(pkgList) }),
        () => ({ schema: 'olm.bundle', package: pick(pkgList) }),
        () => ({ name: pick(bundleNames) }),
        () => ({ schema: 'olm.package', name: pick(pkgList) }),
        () => ({ schema: 'olm.channel', package: pick(pkgList) }),
      ];
      const latencies: number[] = [];
      let metasBytes = 0;
      const readBefore = store.io.contentBytesRead;
      for (let i = 0; i < metasCount; i++) {
        const q = kinds[i % kinds.length]!();
        const f = await get(
          agent,
          `${base}/metas?${new URLSearchParams(q as Record<string, string>).toString()}`,
        );
        latencies.push(f.ms);
        metasBytes += f.bytes;
      }
      const contentReadPerMetas = (store.io.contentBytesRead - readBefore) / metasCount;
      // What a client without metas does: download everything from the static server and filter.
      const scan = await get(agent, baseline.url);

      const report = {
        catalog: {
          fbcDir: values.dir ?? null,
          sizeMB: Number(values['size-mb']),
          blobs: info.blobs,
          allMB: round(info.allBytes / 1048576, 1),
          schemas: schemas.size,
          packages: packages.size,
          contentHash,
        },
        build: {
          // buildRevision consumes readCatalog: its time includes parsing (parseMs alone).
          ms: Math.round(buildMs),
          parseMs: Math.round(parseMs),
          indexFilesKB: round(
            (indexBytes.indexJson + indexBytes.offsetsBin + indexBytes.namesJsonl) / 1024,
            1,
          ),
          // Held in memory while served: offsets.bin and (roughly) index.json, never content.
          inMemoryIndexKB: round((indexBytes.indexJson + indexBytes.offsetsBin) / 1024, 1),
          inMemoryBytesPerBlob: round(
            (indexBytes.indexJson + indexBytes.offsetsBin) / info.blobs,
            1,
          ),
        },
        all: {
          runs: allRuns,
          oursMBps: mbps(oursAll),
          staticBaselineMBps: mbps(staticAll),
          ratio: round(mbps(oursAll) / mbps(staticAll)),
          oursGzipMBps: mbps(gzipAll),
          // The same server over TLS (one keep-alive connection: the handshake is paid once).
          oursHttpsMBps: mbps(httpsAll),
          httpsToHttpRatio: round(mbps(httpsAll) / mbps(oursAll)),
          gzipRatio: round(info.allBytes / gzipAll[0]!.bytes),
        },
        metas: {
          requests: metasCount,
          p50Ms: round(quantile(latencies, 0.5)),
          p99Ms: round(quantile(latencies, 0.99)),
          meanResponseKB: round(metasBytes / metasCount / 1024, 1),
          contentBytesReadPerRequest: Math.round(contentReadPerMetas),
          staticFullScanMs: round(scan.ms, 1),
        },
      };
      await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
      await writeFile(
        path.join(ROOT, 'bench/results/http.json'),
        `${JSON.stringify(report, null, 2)}\n`,
      );
      stdout.write(
        `HTTP content: ${report.catalog.allMB} MB /all, ${info.blobs} blobs (build ${report.build.ms} ms of which parse ~${report.build.parseMs} ms, in-memory index ${report.build.inMemoryIndexKB} KB)\n` +
          `/all  ours ${report.all.oursMBps} MB/s, static file ${report.all.staticBaselineMBps} MB/s (ratio ${report.all.ratio}); gzip ${report.all.oursGzipMBps} MB/s; HTTPS ${report.all.oursHttpsMBps} MB/s (HTTPS/HTTP ${report.all.httpsToHttpRatio})\n` +
          `metas p50 ${report.metas.p50Ms} ms, p99 ${report.metas.p99Ms} ms over ${metasCount} requests (full download from the static server: ${report.metas.staticFullScanMs} ms)\n`,
      );
    } finally {
      agent.destroy();
      tlsAgent.destroy();
      await ours.close();
      await oursTls.close();
      baseline.close();
      await store.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
