// Entries per second (issue 28): a layer of N empty files (default 100,000) plus the sample
// catalog, unpacked the way the puller does (check, then apply) and parsed the way the
// controller does (walk, parse, hash), in this process. Cost per entry, not per byte.
//
//   npx tsx bench/unpack-entries.ts [--entries 100000]
//
// Writes bench/results/unpack-entries.json and prints it.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { CatalogHasher, readCatalog } from '../src/fbc/index.js';
import { LayerApplier } from '../src/source/unpack.js';
import { manyEntriesLayer, tarOf, type TarEntry } from '../test/support/registry-layers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { entries: { type: 'string', default: '100000' } } });
const entries = Number(values.entries);

const sample = path.join(ROOT, 'examples', 'catalog');
const sampleEntries: TarEntry[] = [];
for (const pkg of (await readdir(sample)).sort())
  for (const f of (await readdir(path.join(sample, pkg))).sort())
    sampleEntries.push({
      name: `configs/${pkg}/${f}`,
      body: await readFile(path.join(sample, pkg, f)),
    });
const layers = [
  (await manyEntriesLayer(entries)).open() as Buffer,
  gzipSync(await tarOf(sampleEntries)),
];

const work = await mkdtemp(path.join(tmpdir(), 'bench-entries-'));
try {
  const applier = new LayerApplier(path.join(work, 'fs'), ['configs']);
  let t0 = performance.now();
  for (const [i, layer] of layers.entries()) {
    await applier.check(Readable.from([layer]), 'gzip', `layer ${i + 1}`);
    await applier.apply(Readable.from([layer]), 'gzip', `layer ${i + 1}`);
  }
  const unpackSeconds = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const hasher = new CatalogHasher();
  for await (const blob of readCatalog(applier.catalogPath, { catalog: 'bench' }))
    hasher.add(blob.hash);
  const parseSeconds = (performance.now() - t0) / 1000;
  const total = applier.stats.entries;
  const round = (x: number) => Math.round(x * 100) / 100;
  const result = {
    entries: total,
    blobs: hasher.count,
    unpackSeconds: round(unpackSeconds),
    parseSeconds: round(parseSeconds),
    unpackEntriesPerSecond: Math.round(total / unpackSeconds),
    parseEntriesPerSecond: Math.round(total / parseSeconds),
    entriesPerSecond: Math.round(total / (unpackSeconds + parseSeconds)),
  };
  await mkdir(path.join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(
    path.join(ROOT, 'bench', 'results', 'unpack-entries.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  console.log(JSON.stringify(result));
} finally {
  await rm(work, { recursive: true, force: true });
}
