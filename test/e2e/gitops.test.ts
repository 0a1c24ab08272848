// GitOps coexistence (issue 23, SPEC §3.3): a GitOps tool applies the `catalogd render` output
// with server-side apply under its own field manager, as Argo CD and Flux do. The apiserver then
// records two owners of the same values; drift is judged by content, so resyncs write nothing,
// and a value the co-owner changes is corrected with exactly one write. `kubectl diff
// --server-side` of the render output against the synced catalog shows no difference, including
// for a blob over 1 MiB whose content is omitted.
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { applyCatalog, getCatalog, push, waitSynced } from '../support/catalogs.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { renderTo } from '../support/render.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { CUSTOM_SCHEMA, generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const SIZE_MB = 4.6; // about 1,000 blobs at seed 7
const RESYNCS = 5;

/** Synced events of a catalog (their counts summed: the apiserver may aggregate repeats). */
async function syncedEvents(catalog: string): Promise<number> {
  const list = JSON.parse(
    await kubectlOk([
      'get',
      'events',
      '-A',
      '--field-selector',
      `involvedObject.name=${catalog},reason=Synced`,
      '-o',
      'json',
    ]),
  ) as { items: Array<{ count?: number }> };
  return list.items.reduce((n, e) => n + (e.count ?? 1), 0);
}

/**
 * Real catalogs to check too: directories in $CATALOGD_REAL_CATALOGS (colon-separated), each
 * optionally `dir@maxObjectBytes`. Not in CI (the catalogs are not in the repo): e.g. two
 * OpenShift community catalogs from redhat-openshift-ecosystem/community-operators-prod.
 */
const REAL = (process.env.CATALOGD_REAL_CATALOGS ?? '')
  .split(':')
  .filter((s) => s !== '')
  .map((s) => {
    const [dir = '', max] = s.split('@');
    return { dir, maxObjectBytes: max === undefined ? undefined : Number(max) };
  });

/**
 * Asks for a resync now (an annotation) and waits until the controller reconciled once more.
 * Returns the catalog's resourceVersion right after the annotation: a reconcile that wrote no
 * status leaves it as it is.
 */
async function resync(c: RunningController, catalog: string, i: number): Promise<string> {
  const reconciles = () =>
    c.metric('controller_runtime_reconcile_total', { controller: 'clustercatalog' });
  const before = await reconciles();
  const annotated = JSON.parse(
    await kubectlOk([
      'annotate',
      'clustercatalog',
      catalog,
      `resync=${uniqueName('now')}`,
      '--overwrite',
      '-o',
      'json',
    ]),
  ) as ClusterCatalog;
  await pollUntil(async () => (await reconciles()) > before, {
    timeoutMs: 120_000,
    what: `resync ${i} of ${catalog}`,
  });
  return annotated.metadata.resourceVersion ?? '';
}

describe('GitOps e2e: a second field manager and catalogd render', function () {
  this.timeout(600_000);
  const name = uniqueName('gitops');
  let tmp = '';
  let controller: RunningController | undefined;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'catalog-gitops-' }));
  });

  after(async () => {
    await tearDownE2e({ controllers: [controller], catalogs: [name], tmp });
  });

  it('co-owned identical content costs no writes; render diffs clean, an oversized blob included', async () => {
    const dir = path.join(tmp, 'catalog');
    await generateCatalog(dir, { seed: 7, sizeMB: SIZE_MB });
    // One blob over 1 MiB (the controller's default --max-object-bytes): its content is omitted.
    const big = { schema: CUSTOM_SCHEMA, name: 'release-notes', notes: 'n'.repeat(1_200_000) };
    await writeFile(path.join(dir, 'release-notes.json'), `${JSON.stringify(big)}\n`);
    const ref = await push(dir, `gitops:${uniqueName('v')}`);

    controller = await startController();
    let c = controller;
    await applyCatalog(name, ref);
    const synced = await waitSynced(name);
    const objects = synced.status?.objectCount ?? 0;
    expect(objects).to.be.within(900, 1200);

    const rendered = path.join(tmp, 'render.yaml');
    await renderTo(dir, rendered, ['--catalog', name, '--server-url', c.serverUrl]);
    const text = await readFile(rendered, 'utf8');
    expect(text).to.contain('content-omitted: max-object-bytes');

    // The render output is what the controller stores: no diff (exit 0), as `kubectl diff`
    // would show a GitOps user.
    const diff = await kubectl(['diff', '--server-side', '-f', rendered]);
    expect(diff.stderr).to.equal('');
    expect(diff.stdout).to.equal('');
    expect(diff.code).to.equal(0);

    // The GitOps tool takes co-ownership of every object's values.
    await kubectlOk(['apply', '--server-side', '--field-manager=gitops', '-f', rendered]);

    let writesBefore = await c.metric('catalogd_catalogmetadata_writes_total');
    const eventsBefore = await syncedEvents(name);
    const reads: number[] = [];
    for (let i = 1; i <= RESYNCS; i++) {
      const getsBefore = await c.metric('catalogd_apiserver_requests_total', {
        verb: 'get',
        resource: 'catalogmetadata',
      });
      const annotated = await resync(c, name, i);
      // No status write at all: syncingTo was never set, no progress was reported.
      const after = await getCatalog(name);
      expect(after.metadata.resourceVersion, `resync ${i}: status written`).to.equal(annotated);
      reads.push(
        (await c.metric('catalogd_apiserver_requests_total', {
          verb: 'get',
          resource: 'catalogmetadata',
        })) - getsBefore,
      );
    }
    console.log(`      spec reads per resync: ${reads.join(', ')} (${objects} objects)`);
    expect(await c.metric('catalogd_catalogmetadata_writes_total')).to.equal(writesBefore);
    expect(await syncedEvents(name)).to.equal(eventsBefore);
    // A co-owner applying identical values is not drift (same generation, labels and
    // annotations): the steady-state memo skips each resync's plan, so no spec is read at all.
    expect(reads).to.deep.equal(reads.map(() => 0));
    // A full plan (after a restart: nothing in memory) reads each co-owned spec once and writes
    // nothing; what it read is remembered until the spec changes (the corrective plan below
    // reads the edited spec only).
    await c.stop();
    // The same server URL: the omitted blob's contentOmitted.url (and status) stay as they are.
    controller = c = await startController({ args: [`--server-url=${c.serverUrl}`] });
    const specReads = () =>
      c.metric('catalogd_apiserver_requests_total', { verb: 'get', resource: 'catalogmetadata' });
    // The reconcile count is of every catalog (one left by another test may finish first): wait
    // for this catalog's plan to have read its specs, then check it read each once only.
    await pollUntil(
      async () =>
        (await c.metric('controller_runtime_reconcile_total', { controller: 'clustercatalog' })) >
          0 && (await specReads()) >= objects,
      { timeoutMs: 120_000, what: 'the first plan after the restart to read the specs' },
    );
    expect(await specReads()).to.equal(objects);
    writesBefore = 0;
    expect(await c.metric('catalogd_catalogmetadata_writes_total')).to.equal(writesBefore);
    const readsBeforeEdit = await specReads();

    // The co-owner changes one value: exactly one corrective write restores it.
    const doc = text
      .split(/^---\n/m)
      .find((d) => d.includes('schema: olm.package\n') && !d.includes('contentOmitted'));
    expect(doc).to.not.equal(undefined);
    const objectName = /^ {2}name: (\S+)$/m.exec(doc ?? '')?.[1] ?? '';
    const edited = (doc ?? '').replace('\n  content:\n', '\n  content:\n    x-gitops: edited\n');
    expect(edited).to.not.equal(doc);
    const updatesBefore = await c.metric('catalogd_catalogmetadata_writes_total', {
      verb: 'update',
    });
    await kubectlOk(
      ['apply', '--server-side', '--field-manager=gitops', '--force-conflicts', '-f', '-'],
      edited,
    );
    await pollUntil(
      async () => {
        const o = JSON.parse(
          await kubectlOk(['get', 'catalogmetadata', objectName, '-o', 'json']),
        ) as { spec: { content: Record<string, unknown> } };
        return !('x-gitops' in o.spec.content);
      },
      { timeoutMs: 120_000, what: `the edit of ${objectName} to be corrected` },
    );
    await waitSynced(name);
    expect(
      (await c.metric('catalogd_catalogmetadata_writes_total', { verb: 'update' })) - updatesBefore,
    ).to.equal(1);
    expect(await c.metric('catalogd_catalogmetadata_writes_total')).to.equal(writesBefore + 1);
    // The edited spec, not every co-owned one; read again at most once more, when the write's
    // managedFields time ties the co-owner's (the same second) and the write looks like drift.
    expect((await specReads()) - readsBeforeEdit, 'specs read by the corrective plan').to.be.within(
      1,
      2,
    );

    // And the catalog is clean again: the render output diffs with no difference.
    const again = await kubectl(['diff', '--server-side', '-f', rendered]);
    expect([again.code, again.stdout]).to.deep.equal([0, '']);
  });

  for (const real of REAL) {
    it(`real catalog ${real.dir}: render diffs clean, a co-owner's apply costs no writes`, async () => {
      const flags =
        real.maxObjectBytes === undefined ? [] : [`--max-object-bytes=${real.maxObjectBytes}`];
      await controller?.stop();
      controller = await startController({ args: flags });
      const c = controller;
      const realName = uniqueName('real');
      const ref = await push(real.dir, `gitops-real:${uniqueName('v')}`);
      await applyCatalog(realName, ref);
      try {
        const synced = await waitSynced(realName);
        const rendered = path.join(tmp, `${realName}.yaml`);
        await renderTo(real.dir, rendered, [
          '--catalog',
          realName,
          '--server-url',
          c.serverUrl,
          ...flags.flatMap((f) => f.split('=')),
        ]);
        const omitted = (await readFile(rendered, 'utf8')).split('contentOmitted:').length - 1;
        const diff = await kubectl(['diff', '--server-side', '-f', rendered]);
        expect([diff.code, diff.stdout, diff.stderr]).to.deep.equal([0, '', '']);
        await kubectlOk(['apply', '--server-side', '--field-manager=gitops', '-f', rendered]);
        const writes = await c.metric('catalogd_catalogmetadata_writes_total');
        for (let i = 1; i <= RESYNCS; i++) await resync(c, realName, i);
        const written = (await c.metric('catalogd_catalogmetadata_writes_total')) - writes;
        console.log(
          `      ${real.dir}: ${synced.status?.objectCount} objects, ${omitted} with content omitted; ${written} writes in ${RESYNCS} resyncs after the co-owner's apply`,
        );
        expect(written).to.equal(0);
      } finally {
        await kubectl(['delete', 'clustercatalog', realName, '--wait=false']);
      }
    });
  }
});
