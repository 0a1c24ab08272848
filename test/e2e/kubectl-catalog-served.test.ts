// `kubectl catalog`, the client library and the console against the served view (issue 55,
// point 5; docs/client.md "Object view"). The sample catalog is synced by a CRD-mode controller
// and every command's answer recorded; then that controller stops, the catalog's CatalogMetadata
// objects are deleted, and a controller with --object-view=served behind the APIService
// (test/support/served-api.ts, as served-view.test.ts) serves the same catalog: each command with
// --object-view served answers exactly what the CRD mode answered (read from
// content.olm.operatorframework.io, since no CRD object is left); without the flag the cluster
// has both the CRD and the APIService, so the CRD's (empty) view is read and a warning says why;
// the client library's watch follows a catalog update in the served group; the console's
// packages page lists the catalog's packages.
import { expect } from 'chai';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import type { CatalogMetadata, MetadataEventType } from '../../src/client/index.js';
import { CatalogClient } from '../../src/client/index.js';
import { sampleDir } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningConsole } from '../support/console.js';
import { startConsole } from '../support/console.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { ProcessResult } from '../support/process.js';
import { runProcess, tsxEntry } from '../support/process.js';
import type { ServedController } from '../support/served-e2e.js';
import { startServedController, syncSampleV2 } from '../support/served-e2e.js';

const PKG = 'example-operator';

/** Runs the plugin as a process, as kubectl would (KUBECONFIG from the e2e hooks). */
const kc = (args: readonly string[]): Promise<ProcessResult> =>
  runProcess(process.execPath, [...tsxEntry('plugin/kubectl-catalog.ts'), ...args], {
    cwd: repoRoot,
  });

/** The commands compared; list is compared on the fields that do not name the controller. */
function commands(catalog: string): string[][] {
  const c = ['--catalog', catalog];
  return [
    ['packages', ...c],
    ['packages', ...c, '-o', 'json'],
    ['channels', PKG, ...c],
    ['channels', PKG, ...c, '-o', 'json'],
    ['bundles', PKG, ...c],
    ['bundles', PKG, ...c, '--channel', 'candidate', '-o', 'json'],
    ['show', PKG, ...c],
    ['show', PKG, ...c, '-o', 'json'],
    ['upgrades', PKG, '--from', '1.0.0', ...c],
    ['upgrades', PKG, '--from', '1.0.0', '--channel', 'candidate', ...c, '-o', 'json'],
  ];
}

/** What `list -o json` says of the catalog that both modes agree on (not its urls, messages). */
async function listed(catalog: string, flags: readonly string[]): Promise<unknown> {
  const r = await kc(['list', '-o', 'json', ...flags]);
  expect(r.code, r.stderr).to.equal(0);
  const { items } = JSON.parse(r.stdout) as { items: Array<Record<string, unknown>> };
  const c = items.find((i) => i.name === catalog);
  if (!c) throw new Error(`list does not show ${catalog}`);
  const { name, image, priority, availabilityMode, contentHash, objectCount, serving } = c;
  return {
    name,
    image,
    priority,
    availabilityMode,
    contentHash,
    objectCount,
    serving: (serving as { status?: string } | undefined)?.status,
  };
}

describe('kubectl catalog e2e: the served view', function () {
  this.timeout(600_000);
  const name = uniqueName('kc-served');
  let tmp = '';
  let crdController: RunningController | undefined;
  let served: ServedController | undefined;
  let console: RunningConsole | undefined;
  const crdAnswers = new Map<string, ProcessResult>();
  let crdList: unknown;
  let objectCount = 0;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'kc-served-e2e-' }));
    // The CRD mode's answers, discovered (the served group is not registered yet).
    crdController = await startController({});
    const synced = await pushAndSync(name, sampleDir, `sample:${name}`);
    objectCount = synced.status?.objectCount ?? 0;
    expect(objectCount).to.be.greaterThan(0);
    for (const args of commands(name)) {
      const r = await kc(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(0);
      expect(r.stderr, args.join(' ')).to.equal('');
      crdAnswers.set(args.join(' '), r);
    }
    crdList = await listed(name, []);
    await crdController.stop();
    crdController = undefined;
    // Nothing left in the CRD's group: an answer can only come from the served view.
    await kubectlOk([
      ...['delete', 'catalogmetadata.olm.operatorframework.io', '-l', `catalog=${name}`],
      '--wait=true',
    ]);

    served = await startServedController({ tmp, service: 'catalogd-kc-served-e2e' });
    // The served controller holds the catalog's revision and answers its objects.
    let seen = '';
    await pollUntil(
      async () => {
        const raw = await kubectlOk([
          ...['get', `catalogmetadata.${SERVED_GROUP}`, '-l', `catalog=${name}`, '-o', 'name'],
        ]);
        seen = raw;
        return raw.trim().split('\n').length === objectCount ? true : undefined;
      },
      { timeoutMs: 120_000, what: `the served view to answer ${name}'s ${objectCount} objects` },
    ).catch((err: Error) => {
      throw new Error(`${err.message} (last answer: ${seen}; ${String(err.cause)})`);
    });
  });

  after(async () => {
    await console?.close();
    // Unregistering also refreshes kubectl's discovery cache (forgetServedGroup): the suites
    // after this one resolve `kubectl get catalogmetadata` to the CRD again.
    await served?.stop();
    await tearDownE2e({ controllers: [crdController], catalogs: [name], tmp });
  });

  it('each command answers with --object-view served what it answered in the CRD mode', async () => {
    for (const args of commands(name)) {
      const r = await kc([...args, '--object-view', 'served']);
      const want = crdAnswers.get(args.join(' '))!;
      expect([r.code, r.stdout, r.stderr], args.join(' ')).to.deep.equal([0, want.stdout, '']);
    }
    expect(await listed(name, ['--object-view', 'served'])).to.deep.equal(crdList);
  });

  it('with both views on the cluster, reads the CRD and warns saying why', async () => {
    const r = await kc(['packages', '--catalog', name]);
    expect(r.code, r.stderr).to.equal(0);
    // The CRD holds none of the catalog's objects any more: its view has no packages.
    expect(r.stdout).to.not.include(PKG);
    expect(r.stderr).to.match(
      /(^|\n)warning: both olm\.operatorframework\.io\/v1 \(the CatalogMetadata CRD\) and content\.olm\.operatorframework\.io\/v1 \(catalogd-ts's served view\) serve catalogmetadata; the CRD's objects are read/,
    );
    expect(r.stderr).to.include('kubectl catalog --object-view served');
  });

  it("the console's packages page lists the catalog's packages from the served view", async () => {
    console = await startConsole(name, ['--object-view', 'served']);
    const { page, base } = console;
    await page.goto(`${base}packages?catalog=${name}`);
    const shown = await page.$$eval('li.package', (lis) =>
      lis.map((li) =>
        (li as unknown as { getAttribute(n: string): string }).getAttribute('data-name'),
      ),
    );
    const { items } = JSON.parse(crdAnswers.get(commands(name)[1]!.join(' '))!.stdout) as {
      items: Array<{ name: string }>;
    };
    const want = items.map((p) => p.name);
    expect(shown.sort()).to.deep.equal(want.sort());
    expect(shown).to.include(PKG);
    await console.close();
    console = undefined;
  });

  it('the client library watches the served group through a catalog update', async () => {
    const client = new CatalogClient({ objectView: 'served' });
    const abort = new AbortController();
    try {
      const q = { catalog: name };
      const { items, resourceVersion } = await client.listMetadataWithVersion(q);
      expect(items).to.have.length(objectCount);
      // The type says the CRD group (src/api/v1); in served mode the objects carry the served one.
      expect(new Set(items.map((o) => o.apiVersion as string))).to.deep.equal(
        new Set([`${SERVED_GROUP}/v1`]),
      );
      const events: string[] = [];
      const onEvent = (type: MetadataEventType, o: CatalogMetadata) => {
        if (type !== 'BOOKMARK') events.push(`${type} ${o.spec.schema} ${o.spec.name ?? ''}`);
      };
      const watching = client.watchMetadata(q, resourceVersion, onEvent, abort.signal);
      // Resolves once the catalog's status names the new revision.
      const updated = await syncSampleV2(name);
      await pollUntil(() => Promise.resolve(events.length >= 2 ? true : undefined), {
        timeoutMs: 120_000,
        what: 'the watch to see the update',
      });
      expect(events.sort()).to.deep.equal([
        'ADDED olm.bundle utility-operator.v0.2.0',
        'MODIFIED olm.channel alpha',
      ]);
      abort.abort();
      await watching;
      // The consistent list reads the new revision the status names.
      const list = await client.consistentList(q);
      expect(list.contentHash).to.equal(updated.status?.contentHash);
      expect(list.items).to.have.length(objectCount + 1);
    } finally {
      abort.abort();
      client.close();
    }
  });
});
