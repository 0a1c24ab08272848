// Opt-in (E2E_RSS=1): the red team's memory sequence (issue 33, point 4) in ONE controller
// process run as the image runs it (compiled dist/, `make build` first; E2E_RSS_SOURCES=1: the
// sources through tsx) with the Deployment's NODE_OPTIONS and MALLOC_* variables, read from
// config/manager/deployment.yaml: a 100,000-entry catalog, then a 5 MB blob, then 60 MB of YAML
// documents and 60 MB of JSON values, each under the document cap. Per case it prints the
// resident set before the case → after it, settled (E2E_RSS_SETTLE_MS, default 5 s), / the
// case's own peak (VmHWM, reset before each case through /proc/PID/clear_refs), with the V8 heap
// and external memory (and with E2E_RSS_SMAPS=1 the largest mappings), and asserts the peak and
// the settled RSS stay within 150 MB. Opt-in because it takes minutes of CPU on a shared box.
//
// Settled means after E2E_RSS_SETTLE_MS of quiet (default 5 s: past the controller's memory
// reclaim, one collection in the first quiet 2-s interval after a sync); with 0 each case starts
// as soon as the last one synced, as back-to-back syncs would. Numbers: docs/bounds.md.
// E2E_RSS_NODE_OPTIONS replaces the Deployment's heap options, for experiments.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { applyCatalog, installCrds, waitSynced } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { DEPLOYMENT_HEAP_OPTIONS, startController } from '../support/controller.js';
import { deployedMallocEnv } from '../support/deployment.js';
import { kubectl } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import {
  gzipLayer,
  largeDocuments,
  manyEntriesLayer,
  pushLayers,
  sampleEntries,
} from '../support/registry-layers.js';

const MB = 1 << 20;

/** dist/ from the sources as they are (`make build`). */
function buildDist(): void {
  execFileSync('make', ['--no-print-directory', 'build'], { cwd: repoRoot, stdio: 'ignore' });
}
const LIMIT = 150 * MB;
/** How long after a sync the resident set is read: past one memory reclaim (see above). */
const SETTLE_MS = Number(process.env.E2E_RSS_SETTLE_MS ?? 5_000);

/** The mappings holding most of the resident set, for finding where native memory goes. */
async function largestMappings(pid: number): Promise<string> {
  const text = await readFile(`/proc/${pid}/smaps`, 'utf8');
  const byName = new Map<string, number>();
  let current = '';
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) current = head[1] || '[anon]';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) byName.set(current, (byName.get(current) ?? 0) + Number(rss[1]));
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([n, kb]) => `${n} ${(kb / 1024).toFixed(0)} MB`)
    .join(', ');
}

async function rssOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

(process.env.E2E_RSS ? describe : describe.skip)(
  'RSS across the red team sequence (E2E_RSS=1)',
  function () {
    this.timeout(1_800_000);
    const name = uniqueName('rss');
    const repo = () => `${process.env.REGISTRY}/e2e/rss`;
    let controller: RunningController;
    let last: ClusterCatalog | undefined;
    const rows: string[] = [];

    before(async () => {
      await installCrds();
      // As the image runs it: compiled, not through tsx (its loader adds to the resident set).
      if (!process.env.E2E_RSS_SOURCES) buildDist();
      controller = await startController({
        nodeOptions: process.env.E2E_RSS_NODE_OPTIONS?.split(' ') ?? DEPLOYMENT_HEAP_OPTIONS,
        env: deployedMallocEnv(),
        built: !process.env.E2E_RSS_SOURCES,
      });
    });

    after(async () => {
      console.log(
        `      RSS (VmRSS / VmHWM), MB, ${JSON.stringify(deployedMallocEnv())}:\n        ${rows.join('\n        ')}`,
      );
      await controller?.stop();
      await kubectl(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=false']);
    });

    async function step(title: string, layers: () => Promise<Parameters<typeof pushLayers>[1]>) {
      const d = await pushLayers(`${repo()}:${uniqueName('s')}`, await layers());
      const before = await rssOf(controller.pid);
      // VmHWM from here on is this step's peak (proc(5), clear_refs: 5 resets it).
      await writeFile(`/proc/${controller.pid}/clear_refs`, '5');
      await applyCatalog(name, `${repo()}@${d.digest}`);
      last = await waitSynced(name, last?.status?.contentHash, 600_000);
      // Settled: what stays resident once the sync's garbage could be collected.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const { rss, hwm } = await rssOf(controller.pid);
      // Where it is: the V8 heap, and memory outside it that V8 knows of (Buffers).
      const heap = await controller.metric('nodejs_heap_size_total_bytes');
      const external = await controller.metric('nodejs_external_memory_bytes');
      if (process.env.E2E_RSS_SMAPS) rows.push(await largestMappings(controller.pid));
      rows.push(
        `${title}: ${(before.rss / MB).toFixed(0)} → ${(rss / MB).toFixed(0)} / ${(hwm / MB).toFixed(0)} ` +
          `(V8 heap ${(heap / MB).toFixed(0)}, external ${(external / MB).toFixed(0)})`,
      );
      expect(controller.alive()).to.equal(true);
      expect(hwm, `peak RSS after ${title}`).to.be.at.most(LIMIT);
      expect(rss, `RSS after ${title}`).to.be.at.most(LIMIT);
    }

    it('a 100,000-entry catalog', () =>
      step('100,000 entries', async () => [
        await gzipLayer(await sampleEntries()),
        await manyEntriesLayer(100_000),
      ]));

    it('then a 5 MB blob', () =>
      step('a 5 MB blob', async () => [
        await gzipLayer([
          ...(await sampleEntries()),
          { name: 'configs/big/blob.json', body: largeDocuments('json', 1, 5 * MB) },
        ]),
      ]));

    it('then 60 MB of YAML documents of 7.5 MB', () =>
      step('60 MB YAML', async () => [
        await gzipLayer([
          ...(await sampleEntries()),
          { name: 'configs/big/docs.yaml', body: largeDocuments('yaml', 8, 7.5 * MB) },
        ]),
      ]));

    it('then 60 MB of JSON values of 7.5 MB', () =>
      step('60 MB JSON', async () => [
        await gzipLayer([
          ...(await sampleEntries()),
          { name: 'configs/big/docs.json', body: largeDocuments('json', 8, 7.5 * MB) },
        ]),
      ]));
  },
);
