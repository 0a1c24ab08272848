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
import puppeteer from 'puppeteer-core';
import { runUi } from '../src/cmd/kubectl-catalog/ui/command.js';
import { pushCatalog } from '../src/source/index.js';
import { answersCatalog, writeAnswersCatalog } from '../test/support/answers-catalog.js';
import { readClusterEnv } from '../test/support/cluster.js';
import { startController } from '../test/support/controller.js';
import { kubectlOk } from '../test/support/kubectl.js';
import { pollUntil } from '../test/support/poll.js';

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
let stop = () => {};
try {
  await writeAnswersCatalog(tmp, blobs);
  const { ref } = await pushCatalog(tmp, `${env.REGISTRY}/bench/ui:${catalog}`);
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: catalog },
      spec: { source: { type: 'Image', image: { ref } } },
    }),
  );
  await pollUntil(
    async () =>
      (await kubectlOk(['get', 'clustercatalog', catalog, '-o', 'json'])).includes(
        '"reason": "Available"',
      ) || undefined,
    { timeoutMs: 180_000, what: `${catalog} to be served` },
  );
  const out: string[] = [];
  const done = runUi(['--no-open', '--catalog', catalog], {
    stdout: (s) => out.push(s),
    stderr: (s) => out.push(s),
    stopped: new Promise((r) => (stop = () => r(undefined))),
  });
  const base = await pollUntil(
    () => Promise.resolve(/(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out.join(''))?.[1]),
    { timeoutMs: 30_000, what: 'the console URL' },
  );
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
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
  await browser.close();
  stop();
  await done;
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
  stop();
  await kubectlOk(['delete', 'clustercatalog', catalog, '--ignore-not-found', '--wait=false']);
  await controller.stop();
  await rm(tmp, { recursive: true, force: true });
}
