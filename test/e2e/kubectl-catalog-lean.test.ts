// `kubectl catalog` and the client library on a lean catalog (issue 25): one controller syncs the
// same image twice, as a full ClusterCatalog and as a lean one (the content-profile annotation);
// the plugin answers every command the same on both, `show` fetches the head's details from the
// content server, and the library's blobOf returns the whole blob, byte for byte.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { CatalogMetadata } from '../../src/api/v1/index.js';
import {
  ANNOTATION_CONTENT_HASH,
  ANNOTATION_CONTENT_PROFILE,
  CONTENT_PROFILE_LEAN,
} from '../../src/api/v1/index.js';
import type { BundleBlob, ChannelBlob } from '../../src/client/index.js';
import {
  CatalogClient,
  bundleCsvMetadata,
  channelHead,
  contentOf,
  formatGvk,
} from '../../src/client/index.js';
import { run } from '../../src/plugin/main.js';
import { blobHash, canonicalize } from '../../src/api/v1/index.js';
import { answersCatalog, writeAnswersCatalog } from '../support/answers-catalog.js';
import { push, waitSynced } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import { startConsoleServer } from '../support/console.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { tsxEntry } from '../support/process.js';

const GVK = { group: 'lean.example.com', version: 'v1', kind: 'Thing' };
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  /** Blobs read from the content server. */
  fetches: string[];
}

/** Runs the plugin in this process; its client counts what it fetches from the content server. */
async function inProcess(args: string[]): Promise<Result> {
  const out: string[] = [];
  const err: string[] = [];
  const fetches: string[] = [];
  const code = await run(args, {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    client: () =>
      new CatalogClient({
        fetch: (input, init) => {
          fetches.push(input instanceof Request ? input.url : input.toString());
          return fetch(input, init);
        },
      }),
  });
  return { code, stdout: out.join(''), stderr: err.join(''), fetches };
}

/** Applies the image as a full and a lean ClusterCatalog (by the annotation) and waits for both. */
async function syncFullAndLean(ref: string, full: string, lean: string, timeoutMs = 120_000) {
  for (const [name, annotations] of [
    [full, {}],
    [lean, { [ANNOTATION_CONTENT_PROFILE]: CONTENT_PROFILE_LEAN }],
  ] as const) {
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name, annotations },
        spec: { source: { type: 'Image', image: { ref } } },
      }),
    );
  }
  await waitSynced(full, undefined, timeoutMs);
  await waitSynced(lean, undefined, timeoutMs);
}

/** Runs the command on both catalogs: the same exit code, stdout and stderr (names aside). */
async function expectSameAnswers(args: string[], full: string, lean: string) {
  const f = await inProcess([...args, '--catalog', full]);
  const l = await inProcess([...args, '--catalog', lean]);
  const what = args.join(' ');
  expect(f.code, `${what}: ${f.stderr}`).to.equal(0);
  expect(f.fetches, `${what} on the full catalog`).to.deep.equal([]);
  expect(l.code, what).to.equal(f.code);
  expect(l.stdout.replaceAll(lean, full), what).to.equal(f.stdout);
  expect(l.stderr.replaceAll(lean, full), what).to.equal(f.stderr);
  return { full: f, lean: l };
}

describe('kubectl catalog on a lean catalog (e2e)', function () {
  this.timeout(300_000);
  // Names of one length, so that tables line up the same on both.
  const full = uniqueName('kcl-full');
  const lean = uniqueName('kcl-lean');
  const prefix = uniqueName('lean');
  const blobs = answersCatalog(8, 11, prefix).map((b) =>
    b.schema === 'olm.package'
      ? {
          ...b,
          icon: { base64data: Buffer.from(SVG).toString('base64'), mediatype: 'image/svg+xml' },
        }
      : b.schema === 'olm.bundle'
        ? { ...b, properties: [...(b.properties as unknown[]), { type: 'olm.gvk', value: GVK }] }
        : b,
  );
  const packages = blobs.filter((b) => b.schema === 'olm.package').map((b) => String(b.name));
  let controller: RunningController;
  let tmp: string;

  before(async () => {
    expect(full.length).to.equal(lean.length);
    ({ tmp } = await setUpE2e({ tmpPrefix: 'kc-lean-e2e-' }));
    await writeAnswersCatalog(tmp, blobs);
    controller = await startController();
    await syncFullAndLean(await push(tmp, `kc-lean:${uniqueName('v')}`), full, lean);
  });

  after(async () => {
    await tearDownE2e({
      catalogs: [full, lean],
      deleteFirst: true,
      controllers: [controller],
      tmp,
    });
  });

  async function objectsOf(catalog: string): Promise<CatalogMetadata[]> {
    const client = new CatalogClient();
    try {
      return (await client.consistentList({ catalog })).items;
    } finally {
      client.close();
    }
  }

  it('the lean objects hold partial content; the library returns the whole blob, byte for byte', async () => {
    const leanObjects = await objectsOf(lean);
    expect(leanObjects).to.have.length(blobs.length);
    const partial = leanObjects.filter((o) => contentOf(o).state === 'partial');
    // Every package (icon) and every bundle with CSV metadata.
    expect(partial.length).to.be.greaterThan(packages.length);
    const client = new CatalogClient();
    try {
      const whole = await client.blobsOf(partial);
      const source = new Map(
        blobs.map((b) => [
          `${b.schema}\0${(b.package as string | undefined) ?? ''}\0${b.name as string}`,
          b,
        ]),
      );
      for (const [i, o] of partial.entries()) {
        const want = canonicalize(
          source.get(`${o.spec.schema}\0${o.spec.package ?? ''}\0${o.spec.name}`),
        );
        expect(canonicalize(whole[i]), o.metadata.name).to.equal(want);
        expect(o.metadata.annotations?.[ANNOTATION_CONTENT_HASH]).to.equal(blobHash(want));
      }
    } finally {
      client.close();
    }
  });

  it('every command answers the same on the lean catalog as on the full one', async () => {
    const channels = blobs.filter((b) => b.schema === 'olm.channel') as unknown as ChannelBlob[];
    const commands: string[][] = [
      ['packages'],
      ['packages', '--install-mode', 'AllNamespaces', '-o', 'json'],
      ['packages', '--search', prefix],
      ['packages', '--kube-version', '1.27', '--arch', 'amd64'],
      ['provides', formatGvk(GVK), '-o', 'yaml'],
      ['provides', formatGvk(GVK)],
      ...packages.flatMap((p) => {
        const ch = channels.find((c) => c.package === p)!;
        return [
          ['show', p],
          ['show', p, '-o', 'json'],
          ['channels', p],
          ['bundles', p, '-o', 'json'],
          ['graph', p, '--channel', ch.name],
          ['upgrades', p, '--from', ch.entries[0]!.name, '--channel', ch.name],
        ];
      }),
    ];
    const provides = await inProcess(['provides', formatGvk(GVK), '--catalog', lean]);
    expect(provides.stdout.trim().split('\n')).to.have.length(
      blobs.filter((b) => b.schema === 'olm.bundle').length + 1,
    );
    let fetchedByShow = 0;
    for (const args of commands) {
      const { lean: l } = await expectSameAnswers(args, full, lean);
      const what = args.join(' ');
      if (args[0] === 'show') {
        // The default channel's head only: its CSV metadata holds the details.
        expect(l.fetches.length, what).to.be.at.most(1);
        fetchedByShow += l.fetches.length;
      } else if (!(args[0] === 'packages' && args.length > 1)) {
        expect(l.fetches, `${what}: the lean content has all it needs`).to.deep.equal([]);
      }
    }
    expect(fetchedByShow, 'show fetched the heads’ details').to.be.greaterThan(0);
  });

  it('says what to do, without a stack trace, when the content server cannot be reached', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const { port } = s.address() as AddressInfo;
    await new Promise((r) => s.close(r));
    // A package whose default channel's head has CSV metadata: show must fetch it.
    const pkg = packages.find((p) => {
      const pb = blobs.find((b) => b.schema === 'olm.package' && b.name === p)!;
      const ch = blobs.find(
        (b) => b.schema === 'olm.channel' && b.package === p && b.name === pb.defaultChannel,
      );
      const head = ch && channelHead(ch as unknown as ChannelBlob).head;
      const hb = blobs.find((b) => b.schema === 'olm.bundle' && b.name === head);
      return hb !== undefined && bundleCsvMetadata(hb as unknown as BundleBlob) !== undefined;
    })!;
    const r = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          ...tsxEntry('plugin/kubectl-catalog.ts'),
          'show',
          pkg,
          '--catalog',
          lean,
          '--server-url',
          `http://127.0.0.1:${port}`,
        ],
        { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(
      new RegExp(
        `^error: cannot read the whole blob of olm\\.bundle .* from http://127\\.0\\.0\\.1:${port}/`,
      ),
    );
    expect(r.stderr).to.include('port-forward');
    expect(r.stderr).to.not.match(/\n\s+at /);
  });

  /** The console for one catalog, without a browser: its pages read over HTTP. */
  async function withConsole<T>(catalog: string, fn: (base: string) => Promise<T>): Promise<T> {
    const server = await startConsoleServer(catalog);
    try {
      return await fn(server.base);
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  }

  it('the console shows the same pages, and serves the fetched icon itself under its CSP', async () => {
    const pkg = packages[0]!;
    const read = (catalog: string) =>
      withConsole(catalog, async (base) => {
        const get = async (p: string) => {
          const res = await fetch(`${base}${p}`);
          expect(res.status, p).to.equal(200);
          return res;
        };
        // The page's revision tag hashes the catalog's name: left out of the comparison.
        const page = async (p: string) =>
          (await (await get(p)).text())
            .replaceAll(catalog, '<catalog>')
            .replace(/data-revision="[0-9a-f]+"/, '');
        const icon = await get(`icon/${catalog}/${pkg}`);
        return {
          packages: await page(`packages?catalog=${catalog}`),
          package: await page(`package/${catalog}/${pkg}`),
          icon: {
            type: icon.headers.get('content-type'),
            csp: icon.headers.get('content-security-policy'),
            body: await icon.text(),
          },
        };
      });
    const f = await read(full);
    const l = await read(lean);
    expect(f.packages).to.include(`/icon/<catalog>/${pkg}?rev=`);
    expect(l).to.deep.equal(f);
    expect(l.icon.body).to.equal(SVG);
    expect(l.icon.csp).to.contain("default-src 'none'");
  });
});

/**
 * The acceptance check on a real public catalog: CATALOGD_LEAN_REAL_CATALOG=DIR (an FBC directory
 * of YAML files, e.g. /tmp/real/v4.16). Synced full and lean: `channels` names every head (as
 * the client library's channelHead on the source blobs) and `channels`, `show`, `bundles` and
 * the install-mode filter print the same on both.
 */
const REAL = process.env.CATALOGD_LEAN_REAL_CATALOG;
(REAL ? describe : describe.skip)(
  'kubectl catalog on a real catalog synced lean (e2e)',
  function () {
    this.timeout(900_000);
    const full = uniqueName('kclr-full');
    const lean = uniqueName('kclr-lean');
    let controller: RunningController;
    const blobs: Array<Record<string, unknown>> = [];

    before(async () => {
      for (const f of (await readdir(REAL!, { recursive: true })).filter((n) => /\.ya?ml$/.test(n)))
        for (const d of loadAll(await readFile(path.join(REAL!, f), 'utf8')))
          if (d && typeof d === 'object') blobs.push(d as Record<string, unknown>);
      ({ controller } = await setUpE2e({ controller: {} }));
      await syncFullAndLean(
        await push(REAL!, `kc-lean-real:${uniqueName('v')}`),
        full,
        lean,
        600_000,
      );
    });

    after(async () => {
      await tearDownE2e({ catalogs: [full, lean], deleteFirst: true, controllers: [controller] });
    });

    it('names every channel head and answers as the full catalog', async () => {
      const packages = blobs.filter((b) => b.schema === 'olm.package').map((b) => String(b.name));
      expect(packages.length).to.be.greaterThan(0);
      await expectSameAnswers(['packages', '--install-mode', 'AllNamespaces'], full, lean);
      let heads = 0;
      for (const p of packages) {
        const { lean: l } = await expectSameAnswers(['channels', p, '-o', 'json'], full, lean);
        const shown = (JSON.parse(l.stdout) as { items: Array<{ name: string; head?: string }> })
          .items;
        const channels = blobs.filter(
          (b) => b.schema === 'olm.channel' && b.package === p,
        ) as unknown as ChannelBlob[];
        expect(shown.map((c) => [c.name, c.head])).to.have.deep.members(
          channels.map((c) => [c.name, channelHead(c).head]),
        );
        heads += shown.length;
        await expectSameAnswers(['show', p], full, lean);
        await expectSameAnswers(['bundles', p, '-o', 'json'], full, lean);
      }
      // The objects' spec bytes, lean against the catalog's content bytes (reported).
      const contentBytes = blobs.reduce((n, b) => n + Buffer.byteLength(canonicalize(b)), 0);
      const client = new CatalogClient();
      try {
        const objects = (await client.consistentList({ catalog: lean })).items;
        const specBytes = objects.reduce(
          (n, o) => n + Buffer.byteLength(JSON.stringify(o.spec)),
          0,
        );
        console.log(
          `      real catalog: ${packages.length} packages, ${heads} channel heads named; lean spec bytes ${specBytes} / content bytes ${contentBytes} = ${(specBytes / contentBytes).toFixed(3)}`,
        );
      } finally {
        client.close();
      }
    });
  },
);
