// The cost of `kubectl catalog ui`'s packages page (issue 26 point 4): for a generated catalog
// of 1,000+ blobs synced by a real controller, Debian's headless chromium loads the packages
// page and the bench reports the bytes transferred (CDP encodedDataLength of every response,
// icons included as far as the browser fetches them: they are lazy-loaded) and the first render
// (the page's first-contentful-paint), cold (the server's first read of the catalog) and warm
// (cached per contentHash).
//
//   hack/cluster.sh up && npx tsx bench/ui-packages.ts      (writes bench/results/ui.json)
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pushCatalog } from '../src/source/index.js';
import { answersCatalog, writeAnswersCatalog } from '../test/support/answers-catalog.js';
import { applyCatalog, waitSynced } from '../test/support/catalogs.js';
import { readClusterEnv } from '../test/support/cluster.js';
import type { RunningConsole } from '../test/support/console.js';
import { startConsole } from '../test/support/console.js';
import { startController } from '../test/support/controller.js';
import { kubectlOk } from '../test/support/kubectl.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = readClusterEnv();
process.env.KUBECONFIG = env.KUBECONFIG;
process.env.REGISTRY = env.REGISTRY;
process.env.PATH = `${env.KUBE_BIN_DIR}:${process.env.PATH ?? ''}`;

// A 4 KiB PNG-signed icon on every package: what a page would weigh with icons inlined.
const ICON = Buffer.concat([
  Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
  Buffer.alloc(4088, 7),
]).toString('base64');

const catalog = `bench-ui-${Date.now().toString(36)}`;
const blobs = answersCatalog(Number(process.env.BENCH_UI_PACKAGES ?? '110'), 1, 'benchui');
for (const b of blobs)
  if (b.schema === 'olm.package') b.icon = { base64data: ICON, mediatype: 'image/png' };
const tmp = await mkdtemp(path.join(os.tmpdir(), 'bench-ui-'));
const controller = await startController();
let ui: RunningConsole | undefined;
try {
  await writeAnswersCatalog(tmp, blobs);
  const { ref } = await pushCatalog(tmp, `${env.REGISTRY}/bench/ui:${catalog}`);
  await applyCatalog(catalog, ref);
  await waitSynced(catalog, undefined, 180_000);
  ui = await startConsole(catalog);
  const { base, browser } = ui;
  const load = async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    let bytes = 0;
    let requests = 0;
    cdp.on('Network.loadingFinished', (e) => {
      bytes += e.encodedDataLength;
      requests++;
    });
    const t0 = performance.now();
    await page.goto(`${base}packages?catalog=${catalog}`, { waitUntil: 'networkidle0' });
    const wall = performance.now() - t0;
    const fcp = await page.evaluate(
      () =>
        (
          performance.getEntriesByName('first-contentful-paint')[0] as
            { startTime: number } | undefined
        )?.startTime,
    );
    const packages = await page.$$eval('li.package', (l) => l.length);
    await page.close();
    return {
      bytes,
      requests,
      firstContentfulPaintMs: Math.round(fcp ?? -1),
      loadMs: Math.round(wall),
      packages,
    };
  };
  const cold = await load();
  const warm = await load();
  const htmlBytes = Buffer.byteLength(
    await (await fetch(`${base}packages?catalog=${catalog}`)).text(),
  );
  await ui.close();
  const result = {
    catalog: { packages: cold.packages, blobs: blobs.length },
    htmlBytes,
    cold,
    warm,
    machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}`,
  };
  await mkdir(path.join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(
    path.join(ROOT, 'bench', 'results', 'ui.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  console.log(JSON.stringify(result, null, 2));
} finally {
  await ui?.close();
  await kubectlOk(['delete', 'clustercatalog', catalog, '--ignore-not-found', '--wait=false']);
  await controller.stop();
  await rm(tmp, { recursive: true, force: true });
}
