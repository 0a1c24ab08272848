// FBC parse benchmark (SPEC §7): throughput in MB/s and peak RSS of parsing a generated
// catalog (default 50 MB) the way the controller does (walk, parse, canonicalize, hash), each
// run in a fresh process; beside it `opm render` of the same directory when opm can be built.
//
//   npx tsx bench/fbc-parse.ts [--size-mb 50] [--runs 3] [--dir DIR]
//
// Writes bench/results/fbc-parse.json and prints a table.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { argv, execPath, stdout } from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CatalogHasher, readCatalog } from '../src/fbc/index.js';
import { generateCatalog } from '../test/support/fbcgen.js';
import { median } from './lib/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface ChildResult {
  ms: number;
  blobs: number;
  canonicalBytes: number;
  contentHash: string;
  baselineRssMB: number;
  peakRssMB: number;
}

function vmHWMmB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

/** In the child: parse the catalog once and report. */
async function child(dir: string): Promise<void> {
  const baselineRssMB = vmHWMmB();
  const t0 = performance.now();
  const hasher = new CatalogHasher();
  let canonicalBytes = 0;
  for await (const blob of readCatalog(dir, { catalog: 'bench' })) {
    hasher.add(blob.hash);
    canonicalBytes += blob.bytes;
  }
  const ms = performance.now() - t0;
  const r: ChildResult = {
    ms,
    blobs: hasher.count,
    canonicalBytes,
    contentHash: hasher.digest(),
    baselineRssMB,
    peakRssMB: vmHWMmB(),
  };
  stdout.write(`${JSON.stringify(r)}\n`);
}

function opmBinary(): { path?: string; why?: string } {
  if (spawnSync('go', ['version']).status !== 0) return { why: 'no Go toolchain' };
  const r = spawnSync(path.join(ROOT, 'hack/opm/build.sh'), { encoding: 'utf8' });
  if (r.status !== 0) return { why: `build failed: ${r.stderr.trim().split('\n').pop()}` };
  return { path: r.stdout.trim() };
}

/** Wall time and peak RSS (via GNU time when present) of `opm render DIR -o json > /dev/null`. */
function timeOpm(opm: string, dir: string): { ms: number; peakRssMB?: number } {
  const gnuTime = spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status === 0;
  const t0 = performance.now();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%M', opm, 'render', dir, '-o', 'json'], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        stdio: ['ignore', 'ignore', 'pipe'],
      })
    : spawnSync(opm, ['render', dir, '-o', 'json'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
      });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`opm render failed: ${r.stderr}`);
  const kb = gnuTime ? Number(r.stderr.trim().split('\n').pop()) : NaN;
  return Number.isFinite(kb) ? { ms, peakRssMB: kb / 1024 } : { ms };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: argv.slice(2),
    options: {
      'size-mb': { type: 'string', default: '50' },
      runs: { type: 'string', default: '3' },
      dir: { type: 'string' },
      child: { type: 'string' },
    },
  });
  if (values.child) return child(values.child);
  const sizeMB = Number(values['size-mb']);
  const runs = Number(values.runs);
  const tmp = values.dir ? undefined : await mkdtemp(path.join(tmpdir(), 'fbc-bench-'));
  const dir = values.dir ?? tmp!;
  try {
    let fbcBytes = 0;
    if (tmp) fbcBytes = (await generateCatalog(dir, { seed: 1, sizeMB })).bytes;
    const results: ChildResult[] = [];
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(
        execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir],
        { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 20 },
      );
      if (r.status !== 0) throw new Error(`parse run failed: ${r.stderr}`);
      results.push(JSON.parse(r.stdout) as ChildResult);
    }
    const first = results[0]!;
    if (!fbcBytes) fbcBytes = first.canonicalBytes;
    const ms = median(results.map((r) => r.ms));
    const ours = {
      medianMs: Math.round(ms),
      mbPerSec: Number((fbcBytes / 1048576 / (ms / 1000)).toFixed(1)),
      peakRssMB: Number(Math.max(...results.map((r) => r.peakRssMB)).toFixed(1)),
      baselineRssMB: Number(first.baselineRssMB.toFixed(1)),
    };
    const opm = opmBinary();
    let opmResult: { medianMs: number; mbPerSec: number; peakRssMB?: number } | { skipped: string };
    if (opm.path) {
      const times = Array.from({ length: runs }, () => timeOpm(opm.path!, dir));
      const oms = median(times.map((t) => t.ms));
      const rss = times.map((t) => t.peakRssMB).filter((x): x is number => x !== undefined);
      opmResult = {
        medianMs: Math.round(oms),
        mbPerSec: Number((fbcBytes / 1048576 / (oms / 1000)).toFixed(1)),
      };
      if (rss.length) opmResult.peakRssMB = Number(Math.max(...rss).toFixed(1));
    } else opmResult = { skipped: opm.why! };
    const report = {
      catalog: {
        sizeMB: Number((fbcBytes / 1048576).toFixed(1)),
        blobs: first.blobs,
        contentHash: first.contentHash,
        generated: Boolean(tmp),
      },
      runs,
      ours,
      opmRender: opmResult,
      target: { peakRssMB: 150, met: ours.peakRssMB < 150 },
    };
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(
      path.join(ROOT, 'bench/results/fbc-parse.json'),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    const row = (name: string, a: string, b: string, c: string) =>
      `${name.padEnd(22)}${a.padStart(10)}${b.padStart(10)}  ${c}\n`;
    stdout.write(
      `FBC parse: ${report.catalog.sizeMB} MB, ${first.blobs} blobs, ${runs} runs (median time, max peak RSS)\n`,
    );
    stdout.write(row('', 'time ms', 'MB/s', 'peak RSS MB'));
    stdout.write(
      row(
        'catalogd-ts parse',
        String(ours.medianMs),
        String(ours.mbPerSec),
        `${ours.peakRssMB} (base ${ours.baselineRssMB})`,
      ),
    );
    if ('skipped' in opmResult) stdout.write(`opm render: skipped (${opmResult.skipped})\n`);
    else
      stdout.write(
        row(
          'opm render -o json',
          String(opmResult.medianMs),
          String(opmResult.mbPerSec),
          String(opmResult.peakRssMB ?? '?'),
        ),
      );
    stdout.write(`peak RSS target < 150 MB: ${report.target.met ? 'met' : 'NOT met'}\n`);
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}

await main();
