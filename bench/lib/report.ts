// The report: targets (SPEC §7), results JSON and markdown, bench/README.md's table, merging
// the results of several runs.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { controlPlaneMarkdown } from '../control-plane.js';
import { controlPlaneTargets } from './cost-prediction.js';
import { median } from './stats.js';
import { MB, OUT, RESULTS, ROOT, rawLevel, round } from './config.js';
import type { ColdResult } from '../scenarios/cold-sync.js';

export function rssGrowth(results: Record<string, unknown>): void {
  const cold = results.cold as ColdResult[];
  const sizes = cold.map((c) => c.sizeMB);
  const small = cold.find((c) => c.sizeMB === Math.min(...sizes));
  const big = cold.find((c) => c.sizeMB === Math.max(...sizes));
  if (small && big) {
    results.rssGrowth = {
      fromMB: small.sizeMB,
      toMB: big.sizeMB,
      fromBytes: small.peakRssBytes,
      toBytes: big.peakRssBytes,
      ratio: round(big.peakRssBytes / small.peakRssBytes - 1, 3),
      // The same from each size's median round (the target uses the highest, above).
      ...(small.roundPeakRssBytes?.length &&
        big.roundPeakRssBytes?.length && {
          ratioOfMedianRounds: round(
            median(big.roundPeakRssBytes) / median(small.roundPeakRssBytes) - 1,
            3,
          ),
        }),
    };
  }
}

export async function finish(results: Record<string, unknown>, started: Date): Promise<void> {
  results.targets = targets(results);
  await writeResults(results, started);
  const table = markdown(results);
  await writeFile(path.join(RESULTS, `${OUT}.md`), table);
  if (OUT === 'latest') await updateReadme(table);
  process.stdout.write(`\n${table}\n`);
}

/**
 * BENCH_MERGE=a.json,b.json: one result from several runs (e.g. a size re-run after a failure):
 * cold results by size (a later file wins), other fields from the last file that has them.
 */
export async function merge(files: string[]): Promise<void> {
  const results: Record<string, unknown> = { mergedFrom: files.map((f) => path.basename(f)) };
  const bySize = new Map<number, ColdResult>();
  for (const f of files) {
    const r = JSON.parse(await readFile(f, 'utf8')) as Record<string, unknown>;
    for (const c of (r.cold as ColdResult[] | undefined) ?? []) bySize.set(c.sizeMB, c);
    for (const [k, v] of Object.entries(r))
      if (!['cold', 'started', 'finished', 'targets', 'rssGrowth'].includes(k)) results[k] = v;
  }
  results.cold = [...bySize.values()].sort((a, b) => a.sizeMB - b.sizeMB);
  rssGrowth(results);
  await finish(results, new Date());
}

export function targets(r: Record<string, unknown>) {
  const cold = r.cold as ColdResult[];
  const big = cold[cold.length - 1];
  const rssGrowth = r.rssGrowth as { ratio: number } | undefined;
  const g = (k: string) =>
    r[k] as
      | { writes: number; watchEvents: number; listCalls?: number; reconcileSeconds: number }
      | undefined;
  /** The write-rate target, over the catalogs of 30 MB or more that `also` picks. */
  const rateHolds = (also: (c: ColdResult) => boolean) =>
    cold.filter((c) => c.catalogBytes >= 30 * MB && also(c)).every((c) => c.ratioToRaw >= 0.9);
  return {
    // SPEC §7 sets it for a realistic catalog: at least 10,000 blobs and 30 MB.
    writeRateAtLeast0_9xRaw: rateHolds((c) => c.blobs >= 10_000),
    // Stricter than the SPEC: every catalog of 30 MB or more, whatever its blob count.
    writeRateAtLeast0_9xRawFrom30MB: rateHolds(() => true),
    fasterThanKubectlApply: cold.every(
      (c) => c.ratioToKubectlApply === null || c.ratioToKubectlApply > 1,
    ),
    peakRssAt50MBAtMost150MB: big ? big.peakRssBytes <= 150 * MB : null,
    rssGrowthAtMost25Percent: rssGrowth ? rssGrowth.ratio <= 0.25 : null,
    noopZeroWrites: g('noop')?.writes === 0,
    // Steady state (issue 25): a no-op lists no CatalogMetadata and takes well under 100 ms.
    noopListCallsZero: g('noop')?.listCalls === 0,
    noopReconcileUnder0_1s: (g('noop')?.reconcileSeconds ?? Infinity) < 0.1,
    sameContentNewDigestZeroWrites: g('sameContentNewDigest')?.writes === 0,
    incrementalTwoWritesTwoEvents:
      g('incremental')?.writes === 2 && g('incremental')?.watchEvents === 2,
    ...(r.controlPlane !== undefined && controlPlaneTargets(r.controlPlane)),
  };
}

export async function writeResults(results: Record<string, unknown>, started: Date): Promise<void> {
  await mkdir(RESULTS, { recursive: true });
  const out = { started: started.toISOString(), finished: new Date().toISOString(), ...results };
  await writeFile(path.join(RESULTS, `${OUT}.json`), JSON.stringify(out, null, 2) + '\n');
}

export function markdown(r: Record<string, unknown>): string {
  const cold = r.cold as ColdResult[];
  const m = r.machine as Record<string, unknown>;
  const mb = (b: number) => (b / MB).toFixed(1);
  const levels = Object.keys(cold[0]?.rawByConcurrency ?? {});
  const plainLevels = levels.filter((l) => rawLevel(l).plain);
  const lines: string[] = [];
  lines.push(
    `Machine: ${String(m.cores)} cores (${String(m.cpuModel)}), ${mb(Number(m.memoryBytes))} MB RAM, Node ${String(m.node)}, Kubernetes ${String(m.kubernetes)}, kubectl ${String(m.kubectl)}, etcd ${String(m.etcd)}.`,
    '',
    `| catalog | blobs | cold sync s (pull / parse / prepare / write) | our writes/s: median (each round) | raw limit writes/s: best median (c=${plainLevels.join('/')}) | ours ÷ raw | ours ÷ each raw level (c=${levels.join('/')}) | kubectl SSA writes/s | ours ÷ kubectl | peak RSS MB (idle before) | etcd bytes added | etcd B per content B |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const c of cold) {
    lines.push(
      `| ${mb(c.catalogBytes)} MB | ${c.blobs} | ${c.seconds} (${c.pullSeconds} / ${c.parseSeconds} / ${c.prepareSeconds} / ${c.writeSeconds}) | ${c.writesPerSecond} (${(c.roundWritesPerSecond ?? []).join(' / ')}) | ${c.rawWritesPerSecond} (${plainLevels.map((l) => c.rawByConcurrency[l]).join(' / ')}) | ${c.ratioToRaw} | ${levels.map((l) => c.ratioToRawByConcurrency[l]).join(' / ')} | ${c.kubectlApplyWritesPerSecond ?? 'n/a'} | ${c.ratioToKubectlApply ?? 'n/a'} | ${mb(c.peakRssBytes)} (${mb(c.idleRssBytes)}) | ${mb(c.etcdBytesAdded)} MB | ${c.etcdBytesPerContentByte} |`,
    );
  }
  if (cold.some((c) => c.controllerCpuMsPerWrite !== undefined)) {
    const cpuLevels = Object.keys(cold[0]?.rawClientCpuMsPerWrite ?? {}).join('/');
    const vals = (x: Record<string, number> | undefined) => Object.values(x ?? {}).join(' / ');
    lines.push(
      '',
      '| catalog | controller CPU ms per write (write phase) | raw client CPU ms per write (c=' +
        cpuLevels +
        ') | control plane CPU ms per write: controller | control plane CPU ms per write: raw (c=' +
        cpuLevels +
        ') |',
      '|---|---|---|---|---|',
      ...cold.map(
        (c) =>
          `| ${mb(c.catalogBytes)} MB | ${c.controllerCpuMsPerWrite} | ${vals(c.rawClientCpuMsPerWrite)} | ${c.controlPlaneCpuMsPerWrite ?? 'n/a'} | ${vals(c.rawControlPlaneCpuMsPerWrite)} |`,
      ),
    );
  }
  const g = (k: string) =>
    r[k] as
      | { writes: number; watchEvents: number; seconds: number; reconcileSeconds: number }
      | undefined;
  lines.push(
    '',
    '| change (largest catalog) | CatalogMetadata writes | watch events | time to Succeeded s | reconcile s |',
    '|---|---|---|---|---|',
  );
  for (const [k, label] of [
    ['noop', 'no-op resync (same digest)'],
    ['sameContentNewDigest', 'same content, new digest'],
    ['incremental', '1 bundle added, 1 channel changed'],
  ] as const) {
    const x = g(k);
    if (x)
      lines.push(
        `| ${label} | ${x.writes} | ${x.watchEvents} | ${x.seconds} | ${x.reconcileSeconds} |`,
      );
  }
  const growth = r.rssGrowth as
    { fromMB: number; toMB: number; ratio: number; ratioOfMedianRounds?: number } | undefined;
  if (growth)
    lines.push(
      '',
      `Controller peak RSS growth ${growth.fromMB} → ${growth.toMB} MB catalog: ${(growth.ratio * 100).toFixed(1)} % (highest rounds)` +
        (growth.ratioOfMedianRounds === undefined
          ? '.'
          : `, ${(growth.ratioOfMedianRounds * 100).toFixed(1)} % (median rounds).`),
    );
  const p = r.fbcParse as
    | {
        catalog?: { sizeMB: number; blobs: number };
        ours?: { mbPerSec: number; peakRssMB: number };
        opmRender?: { mbPerSec?: number; peakRssMB?: number; skipped?: string };
      }
    | undefined;
  if (p?.ours && p.catalog) {
    const opm =
      p.opmRender?.mbPerSec !== undefined
        ? `; opm render: ${p.opmRender.mbPerSec} MB/s, peak RSS ${p.opmRender.peakRssMB ?? '?'} MB`
        : p.opmRender?.skipped
          ? `; opm render skipped: ${p.opmRender.skipped}`
          : '';
    lines.push(
      '',
      `FBC parse (${p.catalog.sizeMB} MB, ${p.catalog.blobs} blobs): ${p.ours.mbPerSec} MB/s, peak RSS ${p.ours.peakRssMB} MB${opm}.`,
    );
  }
  if (r.controlPlane)
    lines.push('', controlPlaneMarkdown(r.controlPlane as Record<string, unknown>));
  const h = r.http as Record<string, unknown> | undefined;
  if (h && !('error' in h)) lines.push('', `HTTP (bench/http.ts): \`${JSON.stringify(h)}\``);
  const t = r.targets as Record<string, unknown>;
  lines.push(
    '',
    `Targets (SPEC §7): ${Object.entries(t)
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join(', ')}.`,
  );
  return lines.join('\n') + '\n';
}

/** Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in bench/README.md. */
export async function updateReadme(table: string, marker = 'results'): Promise<void> {
  const file = path.join(ROOT, 'bench', 'README.md');
  if (!existsSync(file)) return;
  const text = await readFile(file, 'utf8');
  const begin = `<!-- ${marker}:begin -->`;
  const end = `<!-- ${marker}:end -->`;
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) return;
  const next = `${text.slice(0, i + begin.length)}\n${table}${text.slice(j)}`;
  // Formatted as `make lint` checks it (prettier aligns the tables).
  const options = (await resolveConfig(file)) ?? {};
  await writeFile(file, await format(next, { ...options, filepath: file }));
}
