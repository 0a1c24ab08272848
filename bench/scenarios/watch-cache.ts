// `watchCache` (issue 39 point 6): what CatalogMetadata costs kube-apiserver and etcd per 10k
// objects in each content profile, with the apiserver's watch cache for CatalogMetadata on (the
// default) and off (`--watch-cache-sizes=catalogmetadata.olm.operatorframework.io#0`, passed to
// hack/cluster.sh by APISERVER_EXTRA_ARGS), and what turning it off costs a reader: `kubectl get
// catalogmetadata -l package=X` p50, and whether a watch still delivers events. Reuses
// bench/control-plane.ts's per-profile measurement. BENCH_ONLY=watchCache runs only this; the
// numbers are in docs/deploy.md "Control-plane price".
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CATALOG_METADATA_PLURAL, GROUP } from '../../src/api/v1/index.js';
import type { ContentProfile } from '../../src/api/v1/index.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import type { BenchHooks } from '../control-plane.js';
import type { ProfileMeasurement } from '../lib/cost-prediction.js';
import {
  CONTROLLER_NS,
  CONTROLLER_SA,
  applyControllerRbac,
  measureProfile,
  prepareCatalog,
  serviceAccountKubeconfig,
  timeKubectl,
} from '../control-plane.js';
import { CM } from '../lib/api.js';
import { median } from '../lib/stats.js';

export const WATCH_CACHE_OFF = `--watch-cache-sizes=${CATALOG_METADATA_PLURAL}.${GROUP}#0`;
const QUERIES = Math.max(3, Number(process.env.BENCH_WATCH_CACHE_QUERIES ?? '7'));

/**
 * `kubectl get catalogmetadata -l package=X` QUERIES times: median and every run, in seconds, and
 * how many objects it listed.
 */
function labelQuery(h: BenchHooks, pkg: string): { p50: number; runs: number[]; objects: number } {
  const args = ['get', CATALOG_METADATA_PLURAL, '-l', `package=${pkg}`, '-o', 'name'];
  const { seconds, stdout } = timeKubectl(h, args, QUERIES);
  const runs = seconds.map((x) => Number(x.toFixed(3)));
  return { p50: median(runs), runs, objects: stdout.split('\n').filter((l) => l !== '').length };
}

/**
 * A watch of the catalog's objects from a list's resourceVersion, then an annotation on one of
 * them: the seconds until the watch delivered it (null: not within 30 s).
 */
async function watchDelivers(h: BenchHooks, catalog: string): Promise<number | null> {
  const list = await h.api.json<{
    metadata: { resourceVersion: string };
    items: Array<{ metadata: { name: string } }>;
  }>('GET', `${CM}?labelSelector=catalog%3D${catalog}&limit=1`);
  const target = list.items[0]?.metadata.name;
  if (!target) return null;
  let seenAt: number | undefined;
  const w = h.api.watch(
    `${CM}?labelSelector=catalog%3D${catalog}&resourceVersion=${list.metadata.resourceVersion}`,
    (e, at) => {
      if (e.type === 'MODIFIED' && e.object.metadata.annotations?.['bench/probe'] !== undefined)
        seenAt ??= at;
    },
  );
  try {
    await delay(1000);
    const t0 = performance.now();
    await h.api.request(
      'PATCH',
      `${CM}/${target}`,
      JSON.stringify({ metadata: { annotations: { 'bench/probe': String(Date.now()) } } }),
      'application/merge-patch+json',
    );
    while (seenAt === undefined && performance.now() - t0 < 30_000) await delay(50);
    return seenAt === undefined ? null : Number(((seenAt - t0) / 1000).toFixed(3));
  } finally {
    w.stop();
  }
}

export interface WatchCacheRow extends ProfileMeasurement {
  setting: 'watch cache on' | 'watch cache off';
  profile: ContentProfile;
  probe?: Record<string, unknown>;
}

export async function measureWatchCache(h: BenchHooks): Promise<Record<string, unknown>> {
  const dir = path.join(h.work, `watch-cache-${h.sizeMB}mb`);
  await generateCatalog(dir, { seed: 1, sizeMB: h.sizeMB });
  const cat = await prepareCatalog(h, `generated-${h.sizeMB}mb`, dir);
  // A package of the catalog for the label query: a directory of the generated FBC (one per
  // package; README.md sits beside them).
  const pkg = (await readdir(dir, { withFileTypes: true })).find((d) => d.isDirectory())!.name;
  applyControllerRbac(h);
  const controller = await serviceAccountKubeconfig(h, CONTROLLER_NS, CONTROLLER_SA);
  controller.api.close();
  const rows: WatchCacheRow[] = [];
  const saved = process.env.APISERVER_EXTRA_ARGS;
  try {
    for (const [setting, flag] of [
      ['watch cache on', ''],
      ['watch cache off', WATCH_CACHE_OFF],
    ] as const) {
      process.env.APISERVER_EXTRA_ARGS = [saved ?? '', flag].join(' ').trim();
      for (const profile of ['full', 'lean'] as const) {
        const m = await measureProfile(h, controller.file, cat, profile, async (catalog) => ({
          kubectlGetByPackage: labelQuery(h, pkg),
          watchDeliveredSeconds: await watchDelivers(h, catalog),
        }));
        rows.push({ setting, profile, ...m });
        h.log(
          `watch cache: ${setting}, ${profile}: ${JSON.stringify({ ...m, heapSamples: undefined })}`,
        );
      }
    }
  } finally {
    if (saved === undefined) delete process.env.APISERVER_EXTRA_ARGS;
    else process.env.APISERVER_EXTRA_ARGS = saved;
    await h.resetControlPlane();
  }
  return {
    catalog: cat.id,
    objects: cat.objects,
    contentBytes: cat.contentBytes,
    package: pkg,
    rows,
  };
}

const mib = (b: number) => (b / 1048576).toFixed(0);

/** The table docs/deploy.md quotes. */
export function watchCacheMarkdown(r: Record<string, unknown>): string {
  const rows = r.rows as WatchCacheRow[];
  const per10k = (x: number, n: number) => mib((x * 10_000) / n);
  const lines = [
    '| apiserver | profile | objects | heap before → after (MiB) | RSS before → after (MiB) | heap / RSS / etcd per 10k objects (MiB) | `kubectl get -l package=` p50 | watch delivers |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((x) => {
      const hb = median(x.heapSamples.before);
      const ha = median(x.heapSamples.after);
      const rss = x.apiserverRssBytes;
      const p = x.probe as {
        kubectlGetByPackage: { p50: number; objects: number };
        watchDeliveredSeconds: number | null;
      };
      return `| ${x.setting} | ${x.profile} | ${x.objects} | ${mib(hb)} → ${mib(ha)} | ${mib(rss.before)} → ${mib(rss.after)} | ${per10k(x.apiserverHeapBytesAdded, x.objects)} / ${per10k(rss.after - rss.before, x.objects)} / ${per10k(x.etcdBytesAdded, x.objects)} | ${p.kubectlGetByPackage.p50.toFixed(2)} s (${p.kubectlGetByPackage.objects} objects) | ${p.watchDeliveredSeconds === null ? 'no' : `yes, ${p.watchDeliveredSeconds} s`} |`;
    }),
  ];
  return lines.join('\n') + '\n';
}
