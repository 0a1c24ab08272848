// Atomic at rest, with a real failure: a ValidatingAdmissionPolicy makes the apiserver refuse
// one object of the new revision. The catalog's objects must end exactly as the previous
// revision, status must name the refused object, and once the policy is gone the catalog must
// converge to the new revision.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readCatalog, toCatalogMetadata } from '../../src/fbc/index.js';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import {
  applyCatalog,
  installCrds,
  condition,
  getCatalog,
  listObjects,
  normalize,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
} from '../support/catalogs.js';
import { refusingPolicy, waitUntilRefused } from '../support/admission-policy.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e } from '../support/e2e-setup.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const REFUSED_BUNDLE = 'utility-operator.v0.2.0';

function policy(name: string, catalog: string): string {
  return refusingPolicy(
    name,
    `!(has(object.metadata.labels) && object.metadata.labels['catalog'] == '${catalog}' && object.metadata.labels['name'] == '${REFUSED_BUNDLE}')`,
    `the e2e policy refuses ${REFUSED_BUNDLE}`,
  );
}

/**
 * The catalog once a failed sync is over: Progressing Retrying, its message saying it rolled
 * back, ObjectsSynced RolledBack, and no sync journal left (between the publish step and the
 * first write, Progressing is Succeeded and ObjectsSynced Planning, with no journal yet).
 */
async function waitRolledBack(
  catalog: string,
  what: string,
  messageHas = 'rolled back',
): Promise<ClusterCatalog> {
  return pollUntil(
    async () => {
      const c = await getCatalog(catalog);
      const p = condition(c, 'Progressing');
      const objects = condition(c, 'ObjectsSynced');
      return p?.reason === 'Retrying' &&
        p.message.includes(messageHas) &&
        objects?.reason === 'RolledBack' &&
        !c.status?.syncingTo
        ? c
        : undefined;
    },
    { timeoutMs: 120_000, what },
  );
}

describe('resilience e2e: a refused write rolls the catalog back to the previous revision', function () {
  this.timeout(300_000);
  let controller: RunningController;

  before(async () => {
    ({ controller } = await setUpE2e({ controller: {} }));
  });

  after(async () => {
    await controller?.stop();
  });

  it('ends byte-for-byte at the previous revision, names the object, then converges once allowed', async () => {
    const name = uniqueName('atomic');
    const policyName = uniqueName('refuse-bundle');
    const v1Ref = await push(sampleDir, `sample:${uniqueName('v1')}`);
    const v2Dir = await writeSampleV2();
    try {
      const v2Ref = await push(v2Dir, `sample:${uniqueName('v2')}`);
      await applyCatalog(name, v1Ref);
      const v1 = await waitSynced(name);
      const uid = v1.metadata.uid ?? '';
      const before = normalize(await listObjects(`catalog=${name}`), uid);

      await kubectlOk(['apply', '-f', '-'], policy(policyName, name));
      await waitUntilRefused(name, { name: REFUSED_BUNDLE }, 'olm.bundle');

      await applyCatalog(name, v2Ref);
      const failed = await waitRolledBack(name, 'the failed sync to be rolled back');
      const message = condition(failed, 'Progressing')?.message ?? '';
      expect(message).to.contain(`${name}-bundle-utility-operator-${REFUSED_BUNDLE}`);
      expect(message).to.contain(`the e2e policy refuses ${REFUSED_BUNDLE}`);
      expect(message).to.contain(`rolled back to ${v1.status?.contentHash}`);
      expect(failed.status?.contentHash).to.equal(v1.status?.contentHash);
      expect(condition(failed, 'Serving')?.status).to.equal('True');
      // At rest between retries (1 s backoff, doubling), the objects are the previous revision.
      const atRest = normalize(await listObjects(`catalog=${name}`), uid);
      const still = await getCatalog(name);
      expect(still.status?.syncingTo, 'no retry started meanwhile').to.equal(undefined);
      expect(JSON.stringify(atRest)).to.equal(JSON.stringify(before));

      await kubectlOk(['delete', '-f', '-'], policy(policyName, name));
      const v2 = await waitSynced(name, v1.status?.contentHash);
      expect(v2.status?.objectCount).to.equal(10);
      expect((await listObjects(`catalog=${name},name=${REFUSED_BUNDLE}`)).items).to.have.length(1);
    } finally {
      await kubectl(['delete', '-f', '-', '--ignore-not-found'], policy(policyName, name));
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
      await rm(v2Dir, { recursive: true, force: true });
    }
  });

  it('retries of a revision admission keeps refusing check with dry-run and write nothing', async () => {
    const name = uniqueName('refused');
    const policyName = uniqueName('refuse-bundle');
    const v1Ref = await push(sampleDir, `sample:${uniqueName('v1')}`);
    const v2Dir = await writeSampleV2();
    const writes = () =>
      controller.metric('catalogd_catalogmetadata_writes_total', { catalog: name });
    const dryRuns = () =>
      controller.metric('catalogd_catalogmetadata_dry_run_writes_total', { catalog: name });
    try {
      const v2Ref = await push(v2Dir, `sample:${uniqueName('v2')}`);
      await applyCatalog(name, v1Ref);
      await waitSynced(name);
      await kubectlOk(['apply', '-f', '-'], policy(policyName, name));
      await waitUntilRefused(name, { name: REFUSED_BUNDLE }, 'olm.bundle');

      await applyCatalog(name, v2Ref);
      const failed = await waitRolledBack(name, 'the refused sync to be rolled back');
      const message = condition(failed, 'Progressing')?.message ?? '';
      expect(message).to.contain(`the e2e policy refuses ${REFUSED_BUNDLE}`);
      const writesAfterFirst = await writes();
      expect(await dryRuns(), 'the first attempt writes without a check').to.equal(0);
      // This controller reconciles no other failing catalog meanwhile: its errors are retries.
      const failures = () => controller.metric('controller_runtime_reconcile_errors_total');
      const failuresAfterFirst = await failures();

      // Five retries (1 s backoff, doubling): each is one dry-run of the refused object.
      await pollUntil(async () => (await failures()) >= failuresAfterFirst + 5, {
        timeoutMs: 120_000,
        what: 'five retries of the refused revision',
      });
      const retries = (await failures()) - failuresAfterFirst;
      expect(await writes(), `writes over ${retries} retries`).to.equal(writesAfterFirst);
      expect(await dryRuns(), 'one dry-run per retry').to.equal(retries);
      const still = await getCatalog(name);
      expect(condition(still, 'Progressing')?.message, 'the same message').to.equal(message);

      await kubectlOk(['delete', '-f', '-'], policy(policyName, name));
      const v2 = await waitSynced(name, failed.status?.contentHash);
      expect(v2.status?.objectCount).to.equal(10);
    } finally {
      await kubectl(['delete', '-f', '-', '--ignore-not-found'], policy(policyName, name));
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
      await rm(v2Dir, { recursive: true, force: true });
    }
  });
});

describe('resilience e2e: a controller killed mid-sync', function () {
  this.timeout(300_000);

  before(async () => {
    await installCrds();
  });

  it('leaves the journal in status, and a restarted controller converges to exactly one revision', async () => {
    const name = uniqueName('crash');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'catalog-crash-'));
    let first: RunningController | undefined;
    let second: RunningController | undefined;
    try {
      await generateCatalog(dir, { seed: 7, sizeMB: 3 });
      const expected = new Map<string, string>();
      for await (const blob of readCatalog(dir, { catalog: name })) {
        const obj = toCatalogMetadata(blob);
        expected.set(obj.metadata.name, blob.hash);
      }
      const ref = await push(dir, `crash:${uniqueName('v')}`);
      const lease = uniqueName('lease');
      // One write at a time, so the sync is long enough to be interrupted.
      first = await startController({ leaseId: lease, args: ['--write-concurrency=1'] });
      await applyCatalog(name, ref);
      const count = async () =>
        (await kubectlOk(['get', 'catalogmetadata', '-l', `catalog=${name}`, '-o', 'name']))
          .split('\n')
          .filter(Boolean).length;
      await pollUntil(async () => (await count()) >= 20, {
        timeoutMs: 60_000,
        intervalMs: 50,
        what: 'the sync to be under way',
      });
      await first.stop('SIGKILL');
      const interrupted = await getCatalog(name);
      const written = await count();
      expect(written, 'objects written before the kill').to.be.lessThan(expected.size);
      expect(interrupted.status?.syncingTo, 'the journal').to.match(/^sha256:/);

      second = await startController({ leaseId: lease });
      const synced = await waitSynced(name);
      const objects = await listObjects(`catalog=${name}`);
      const got = new Map(
        objects.items.map((o) => [
          o.metadata.name,
          o.metadata.annotations?.['olm.operatorframework.io/content-hash'],
        ]),
      );
      expect(got).to.deep.equal(expected);
      expect(synced.status?.objectCount).to.equal(expected.size);
      expect(synced.status?.syncingTo).to.equal(undefined);
    } finally {
      await first?.stop('SIGKILL');
      await second?.stop();
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('resilience e2e: drift', function () {
  this.timeout(300_000);
  let controller: RunningController;

  before(async () => {
    ({ controller } = await setUpE2e({ controller: {} }));
  });

  after(async () => {
    await controller?.stop();
  });

  it('restores objects edited or deleted by hand, removes orphans, and never touches other catalogs', async () => {
    const a = uniqueName('drift-a');
    const b = uniqueName('drift-b');
    const ghost = uniqueName('ghost');
    const ref = await push(sampleDir, `sample:${uniqueName('v')}`);
    try {
      await applyCatalog(a, ref);
      await applyCatalog(b, ref);
      const ca = await waitSynced(a);
      await waitSynced(b);
      const before = normalize(await listObjects(`catalog=${a}`), ca.metadata.uid ?? '');
      const versionsOf = async (catalog: string) =>
        new Map(
          (await listObjects(`catalog=${catalog}`)).items.map((o) => [
            o.metadata.name,
            (o.metadata as { resourceVersion?: string }).resourceVersion,
          ]),
        );
      const bBefore = await versionsOf(b);
      const [o1, o2, o3] = before.map((o) => o.name);

      await kubectlOk(['label', 'catalogmetadata', o1 ?? '', 'package=hacked', '--overwrite']);
      await kubectlOk([
        'patch',
        'catalogmetadata',
        o2 ?? '',
        '--type=merge',
        '-p',
        '{"spec":{"content":{"hacked":true}}}',
      ]);
      await kubectlOk(['delete', 'catalogmetadata', o3 ?? '']);
      await kubectlOk(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'CatalogMetadata',
          metadata: { name: `${ghost}-orphan`, labels: { catalog: ghost, schema: 'olm.package' } },
          spec: {
            catalog: { name: ghost },
            schema: 'olm.package',
            content: { schema: 'olm.package' },
          },
        }),
      );

      await pollUntil(
        async () =>
          JSON.stringify(normalize(await listObjects(`catalog=${a}`), ca.metadata.uid ?? '')) ===
          JSON.stringify(before),
        { timeoutMs: 60_000, what: `catalog ${a}'s objects to be restored` },
      );
      await pollUntil(async () => (await listObjects(`catalog=${ghost}`)).items.length === 0, {
        timeoutMs: 60_000,
        what: 'the orphan to be removed',
      });
      expect(await versionsOf(b)).to.deep.equal(bBefore);
    } finally {
      await kubectl(['delete', 'clustercatalog', a, b, '--wait=false']);
      await kubectl(['delete', 'catalogmetadata', '-l', `catalog=${ghost}`]);
    }
  });
});
