// `kubectl catalog ui` in a real browser: Debian's headless chromium driven by puppeteer-core
// against the console serving a generated catalog of 32 packages synced by a real controller.
// The package list shows every package, search and a filter narrow it, a package page shows
// every channel head and an SVG graph per channel, and a pushed catalog update appears without
// a reload. UI_SCREENSHOTS=DIR saves screenshots of the main pages there (docs/images/).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { loadAll } from 'js-yaml';
import type { BundleBlob, ChannelBlob, PackageBlob } from '../../src/client/index.js';
import { channelHead, matchesPackageFilter, packageFacts } from '../../src/client/index.js';
import type { Blob } from '../support/answers-catalog.js';
import { answersCatalog, writeAnswersCatalog } from '../support/answers-catalog.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningConsole } from '../support/console.js';
import { startConsole } from '../support/console.js';
import type { RunningController } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { tsxEntry } from '../support/process.js';

/** What the page callbacks touch of DOM elements (the project compiles without lib.dom). */
interface El {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(sel: string): El | null;
}

const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * Opens a package's page by its link on the packages page, and checks that it shows every
 * channel with its head (as the library computes it) and one SVG graph per channel.
 */
async function expectChannelHeads(
  page: Page,
  base: string,
  catalog: string,
  blobs: Blob[],
  pkg: string,
): Promise<ChannelBlob[]> {
  await page.goto(`${base}packages?catalog=${catalog}`);
  await Promise.all([page.waitForNavigation(), page.click(`li.package[data-name="${pkg}"] h2 a`)]);
  const channels = blobs.filter(
    (b): b is Blob & ChannelBlob => b.schema === 'olm.channel' && b.package === pkg,
  );
  const rows = await page.$$eval('table.channels tbody tr', (trs: El[]) =>
    trs.map((tr) => [tr.getAttribute('data-channel'), tr.querySelector('.head')?.textContent]),
  );
  expect(rows.sort(), pkg).to.deep.equal(
    channels
      .map((c) => {
        const h = channelHead(c);
        return [c.name, h.head ?? `(${h.error ?? 'none'})`];
      })
      .sort(),
  );
  expect(await page.$$eval('svg.graph', (svgs) => svgs.length), pkg).to.equal(channels.length);
  return channels;
}

describe('kubectl catalog ui in a browser (e2e)', function () {
  this.timeout(180_000);
  const catalog = uniqueName('ui');
  const prefix = uniqueName('uip');
  const blobs: Blob[] = answersCatalog(32, 11, prefix);
  const first = blobs.find((b) => b.schema === 'olm.package')!;
  // A hostile description and an icon on the first package.
  first.description =
    '# Hostile\n\n<script>window.__pwned = 1</script>\n\n[click me](javascript:window.__pwned=2)';
  first.icon = { base64data: PNG_1X1, mediatype: 'image/png' };
  // An API only the first package's bundles provide.
  const gvk = { group: `${prefix}.example.com`, version: 'v1', kind: 'Widget' };
  for (const b of blobs)
    if (b.schema === 'olm.bundle' && b.package === first.name)
      (b.properties as unknown[]).push({ type: 'olm.gvk', value: gvk });
  let controller: RunningController;
  let tmp: string;
  let ui: RunningConsole | undefined;
  let page: Page;
  let base: string;
  let contentHash: string | undefined;
  const shots = process.env.UI_SCREENSHOTS;

  /** Pushes `list` as a new image of the catalog and waits until it is synced; its contentHash. */
  const writeAndSync = async (list: Blob[], dir: string, previousHash?: string) => {
    await writeAnswersCatalog(dir, list);
    const synced = await pushAndSync(catalog, dir, `ui:${uniqueName('v')}`, {
      notHash: previousHash,
    });
    return synced.status?.contentHash;
  };

  const names = (list: Blob[]) =>
    list
      .filter((b) => b.schema === 'olm.package')
      .map((b) => String(b.name))
      .sort();
  const facts = (list: Blob[]) =>
    list
      .filter((b): b is Blob & PackageBlob => b.schema === 'olm.package')
      .map((p) =>
        packageFacts(
          p,
          list.filter((b) => b.schema === 'olm.channel' && b.package === p.name) as ChannelBlob[],
          list.filter((b) => b.schema === 'olm.bundle' && b.package === p.name) as BundleBlob[],
        ),
      );
  const shownNames = () =>
    page.$$eval('li.package', (els: El[]) =>
      els.map((e) => e.getAttribute('data-name') ?? '').sort(),
    );

  before(async () => {
    ({ tmp, controller } = await setUpE2e({ tmpPrefix: 'ui-e2e-', controller: {} }));
    contentHash = await writeAndSync(blobs, path.join(tmp, 'v1'));
    ui = await startConsole(catalog);
    ({ base, page } = ui);
  });

  after(async () => {
    if (ui) expect(await ui.close()).to.equal(0);
    await tearDownE2e({ catalogs: [catalog], deleteFirst: true, controllers: [controller], tmp });
  });

  it('binds loopback, sends a CSP and lists every ClusterCatalog on the index', async () => {
    expect(base).to.match(/^http:\/\/127\.0\.0\.1:/);
    const res = await page.goto(base);
    expect(res?.headers()['content-security-policy']).to.contain("script-src 'self'");
    expect(await page.$eval('table.catalogs', (t: El) => t.textContent)).to.contain(catalog);
    // Only requests addressed to the server by its name (no DNS rebinding).
    const { port } = new URL(base);
    const status = await new Promise<number>((resolve, reject) =>
      http
        .get(
          { host: '127.0.0.1', port, path: '/', headers: { host: `evil.example:${port}` } },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        )
        .on('error', reject),
    );
    expect(status).to.equal(421);
    // Keyboard: the first Tab reaches the skip link; every filter control has a label.
    await page.goto(`${base}packages?catalog=${catalog}`);
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: El } }).document.activeElement
            .textContent,
      ),
    ).to.equal('Skip to content');
    const unlabelled = await page.$$eval(
      'form.filters input:not([type=hidden]), form.filters select',
      (els: El[]) => els.filter((e) => e.getAttribute('id') === null).length,
    );
    expect(unlabelled).to.equal(0);
    const labels = await page.$$eval('form.filters label', (els: El[]) =>
      els.map((l) => l.getAttribute('for')),
    );
    expect(labels).to.have.length(9);
    if (shots) await page.screenshot({ path: path.join(shots, 'ui-catalogs.png') });
  });

  it('shows every package; search and a filter narrow the list', async () => {
    await page.goto(`${base}packages?catalog=${catalog}`);
    expect(await shownNames()).to.deep.equal(names(blobs));
    if (shots) {
      // The picture for the docs: a filter in use (and not the hostile package's card).
      await page.goto(`${base}packages?catalog=${catalog}&provider=Odd`);
      await page.screenshot({ path: path.join(shots, 'ui-packages.png') });
      await page.goto(`${base}packages?catalog=${catalog}`);
    }
    // An icon is served as an image with cache headers and lazy-loaded.
    const img = await page.$eval(`li.package[data-name="${String(first.name)}"] img`, (i: El) => ({
      src: i.getAttribute('src'),
      loading: i.getAttribute('loading'),
    }));
    expect(img.loading).to.equal('lazy');
    const icon = await fetch(new URL(img.src ?? '', base));
    expect(icon.headers.get('content-type')).to.equal('image/png');
    expect(icon.headers.get('cache-control')).to.match(/max-age=\d+/);

    await page.type('#f-search', 'databases');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    const bySearch = facts(blobs)
      .filter((f) => matchesPackageFilter(f, { search: 'databases' }))
      .map((f) => f.name)
      .sort();
    expect(bySearch.length).to.be.within(1, 31);
    expect(await shownNames()).to.deep.equal(bySearch);

    await page.goto(`${base}packages?catalog=${catalog}`);
    await page.select('#f-installMode', 'AllNamespaces');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
    const byMode = facts(blobs)
      .filter((f) => matchesPackageFilter(f, { installMode: 'AllNamespaces' }))
      .map((f) => f.name)
      .sort();
    expect(byMode.length).to.be.within(1, 31);
    expect(await shownNames()).to.deep.equal(byMode);
  });

  it('a package page shows every channel head and an SVG graph per channel, safely', async () => {
    const pkg = String(first.name);
    const channels = await expectChannelHeads(page, base, catalog, blobs, pkg);
    expect(await page.$$eval('svg.graph g.node.head', (s) => s.length)).to.equal(
      channels.filter((c) => channelHead(c).head !== undefined).length,
    );
    // The hostile description: rendered as text, its script not run, its link not a link.
    expect(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
    ).to.equal(undefined);
    expect(await page.$$eval('.markdown a', (as) => as.length)).to.equal(0);
    expect(await page.$eval('.markdown', (d: El) => d.textContent)).to.contain('<script>');
    // The upgrades form: from the oldest stable entry, the head is reachable.
    const stable = channels.find((c) => c.name === 'stable')!;
    await page.type('#from', stable.entries[0]!.name);
    await Promise.all([page.waitForNavigation(), page.click('form.upgrades button[type=submit]')]);
    expect(await page.$eval('#upgrades', (e: El) => e.textContent)).to.contain(
      `Upgrades from ${stable.entries[0]!.name}`,
    );
    if (shots) {
      // A package with CSV metadata and a single head in every channel makes the better picture.
      const nice = names(blobs).find(
        (n) =>
          n !== pkg &&
          facts(blobs).find((f) => f.name === n)?.displayName !== undefined &&
          blobs
            .filter((b): b is Blob & ChannelBlob => b.schema === 'olm.channel' && b.package === n)
            .every((c) => channelHead(c).head !== undefined),
      )!;
      await page.goto(`${base}package/${catalog}/${nice}`);
      await page.screenshot({ path: path.join(shots, 'ui-package.png') });
      const section = await page.$('section[aria-labelledby=h-channels]');
      await section!.screenshot({ path: path.join(shots, 'ui-graph.png') });
    }
  });

  it('the provides form finds the package that provides an API', async () => {
    await page.goto(`${base}provides`);
    await page.type('#gvk', `${gvk.group}/${gvk.version}/${gvk.kind}`);
    await Promise.all([page.waitForNavigation(), page.click('form.provides button[type=submit]')]);
    const rows = await page.$$eval('#providers tbody tr', (trs: El[]) =>
      trs.map((tr) => tr.querySelector('td')?.textContent?.trim()),
    );
    const bundles = blobs.filter((b) => b.schema === 'olm.bundle' && b.package === first.name);
    expect(rows).to.deep.equal(bundles.map(() => first.name));
  });

  it('runs as a process: prints its URL, serves, and stops cleanly on Ctrl-C', async () => {
    const child = spawn(
      process.execPath,
      [...tsxEntry('plugin/kubectl-catalog.ts'), 'ui', '--no-open', '--catalog', catalog],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const url = await pollUntil(
      () => Promise.resolve(/(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1]),
      { timeoutMs: 30_000, what: `the console URL (output: ${out})` },
    );
    const res = await fetch(`${url}packages`);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain(`${String(first.name)}`);
    child.kill('SIGINT');
    expect(await exited).to.equal(0);
    expect(out).to.contain('Stopped.');
  });

  it('shows a pushed catalog update without a reload', async () => {
    await page.goto(`${base}packages?catalog=${catalog}`);
    await page.evaluate(() => ((globalThis as unknown as { __same: number }).__same = 1));
    const added = uniqueName('uinew');
    const next = [...blobs, ...answersCatalog(1, 3, added)];
    contentHash = await writeAndSync(next, path.join(tmp, 'v2'), contentHash);
    await page.waitForSelector(`li.package[data-name="${added}-0"]`, { timeout: 20_000 }); // < the 30-s poll: the watch does it
    expect(
      await page.evaluate(() => (globalThis as unknown as { __same?: number }).__same),
    ).to.equal(1);
    expect(await shownNames()).to.deep.equal(names(next));
  });
});

/**
 * The acceptance check on a real public catalog: CATALOGD_UI_REAL_CATALOG=DIR (an FBC directory
 * of YAML files, e.g. community-operators-prod's catalogs/v4.20). Not in CI: the catalog is not
 * in the repo.
 */
const REAL = process.env.CATALOGD_UI_REAL_CATALOG;
(REAL ? describe : describe.skip)('kubectl catalog ui on a real catalog (e2e)', function () {
  this.timeout(600_000);
  const catalog = uniqueName('ui-real');
  let controller: RunningController;
  let ui: RunningConsole | undefined;
  let page: Page;
  let base: string;
  const blobs: Blob[] = [];

  before(async () => {
    for (const f of (await readdir(REAL!, { recursive: true })).filter((n) => /\.ya?ml$/.test(n)))
      for (const d of loadAll(await readFile(path.join(REAL!, f), 'utf8')))
        if (d && typeof d === 'object') blobs.push(d as Blob);
    ({ controller } = await setUpE2e({ controller: {} }));
    await pushAndSync(catalog, REAL!, `ui-real:${uniqueName('v')}`, { timeoutMs: 300_000 });
    ui = await startConsole(catalog);
    ({ base, page } = ui);
  });

  after(async () => {
    if (ui) expect(await ui.close()).to.equal(0);
    await tearDownE2e({ catalogs: [catalog], deleteFirst: true, controllers: [controller] });
  });

  it('the index shows every package; each package page shows every channel head and an SVG graph', async () => {
    const pkgs = blobs
      .filter((b) => b.schema === 'olm.package')
      .map((b) => String(b.name))
      .sort();
    expect(pkgs.length).to.be.at.least(30);
    await page.goto(`${base}packages?catalog=${catalog}`);
    const shown = await page.$$eval('li.package', (els: El[]) =>
      els.map((e) => e.getAttribute('data-name') ?? '').sort(),
    );
    expect(shown).to.deep.equal(pkgs);
    const shots = process.env.UI_SCREENSHOTS;
    if (shots) {
      await page.goto(`${base}packages?catalog=${catalog}`, { waitUntil: 'networkidle0' });
      await page.screenshot({ path: path.join(shots, 'ui-real-packages.png') });
      // The channel with the most entries: the picture of a long graph.
      const longest = blobs
        .filter((b): b is Blob & ChannelBlob => b.schema === 'olm.channel')
        .sort((a, b) => b.entries.length - a.entries.length)[0]!;
      await page.goto(`${base}package/${catalog}/${longest.package}`);
      const graph = await page.$(`#ch-${longest.name} + p + .graph-wrap`);
      await graph!.screenshot({ path: path.join(shots, 'ui-real-graph.png') });
      await page.goto(`${base}package/${catalog}/${pkgs[0]}`);
      const description = await page.$('section[aria-labelledby=h-desc]');
      await description!.screenshot({ path: path.join(shots, 'ui-real-description.png') });
    }
    for (const pkg of pkgs) await expectChannelHeads(page, base, catalog, blobs, pkg);
  });
});
