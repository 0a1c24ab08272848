// Resilience against the failures of the parts around the controller (issue 7), each with the
// real mechanism: kube-apiserver stopped and restarted mid-sync, the leader SIGKILLed while a
// standby waits, the registry stopped, an image whose FBC does not parse. Every case must end
// with the catalog's objects at exactly one revision and nothing lost.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  applyCatalog,
  condition,
  getCatalog,
  listObjects,
  normalize,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
  objectsSynced,
} from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { Revision } from '../support/revisions.js';
import { matchRevision, revisionInCluster, revisionOf } from '../support/revisions.js';

/** Stops or starts one component of the local cluster by PID (hack/cluster.sh). */
function cluster(action: 'stop' | 'start', component: 'kube-apiserver' | 'registry'): void {
  execFileSync(path.join(repoRoot, 'hack', 'cluster.sh'), [action, component], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function objectCount(catalog: string): Promise<number> {
  const out = await kubectlOk(['get', 'catalogmetadata', '-l', `catalog=${catalog}`, '-o', 'name']);
  return out.split('\n').filter(Boolean).length;
}

/** A 3 MB generated catalog (about 650 blobs): long enough to interrupt at one write at a time. */
async function generated(tmp: string, catalog: string): Promise<{ ref: string; rev: Revision }> {
  const dir = path.join(tmp, 'gen');
  await generateCatalog(dir, { seed: 7, sizeMB: 3 });
  return { ref: await push(dir, `faults:${uniqueName('v')}`), rev: await revisionOf(dir, catalog) };
}

describe('resilience e2e: kube-apiserver stopped and restarted during a sync', function () {
  this.timeout(400_000);
  let controller: RunningController | undefined;
  let tmp = '';
  const name = uniqueName('apiserver-restart');

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'catalog-faults-' }));
  });

  after(async () => {
    cluster('start', 'kube-apiserver'); // whatever happened, the next tests need it
    await tearDownE2e({ controllers: [controller], catalogs: [name], tmp });
  });

  it('ends in one revision without manual help', async () => {
    const { ref, rev } = await generated(tmp, name);
    controller = await startController({ args: ['--write-concurrency=1'] });
    await applyCatalog(name, ref);
    await pollUntil(async () => (await objectCount(name)) >= 20, {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: 'the sync to be under way',
    });
    cluster('stop', 'kube-apiserver');
    // Down for longer than the controller's request retries (about 6 s) and its lease's renew
    // deadline (10 s): the sync fails, leadership is lost, and both must recover on their own.
    const down = Date.now();
    await pollUntil(async () => Date.now() - down >= 12_000, {
      timeoutMs: 13_000,
      what: 'the outage to last 12 s',
    });
    cluster('start', 'kube-apiserver');

    const synced = await pollUntil(
      async () => {
        const c = await getCatalog(name);
        return objectsSynced(c) ? c : undefined;
      },
      { timeoutMs: 240_000, what: `ClusterCatalog ${name} to sync after the restart` },
    );
    const { match, detail } = matchRevision(await revisionInCluster(name), { new: rev });
    expect(match, detail).to.equal('new');
    expect(synced.status?.objectCount).to.equal(rev.size);
  });
});

describe('resilience e2e: leader failover', function () {
  this.timeout(400_000);
  const leaders: RunningController[] = [];
  let tmp = '';
  const name = uniqueName('failover');
  const lease = uniqueName('lease');

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'catalog-failover-' }));
  });

  after(async () => {
    await tearDownE2e({ controllers: leaders, signal: 'SIGKILL', catalogs: [name] });
    await kubectl(['delete', 'lease', '-n', 'default', lease, '--ignore-not-found']);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('only the leader writes; killing it mid-sync hands over within the lease duration and ends in one revision', async () => {
    const { ref, rev } = await generated(tmp, name);
    const holder = async () =>
      (
        await kubectl([
          'get',
          'lease',
          '-n',
          'default',
          lease,
          '-o',
          'jsonpath={.spec.holderIdentity}',
        ])
      ).stdout.trim();
    const args = ['--write-concurrency=1'];
    const first = await startController({ leaseId: lease, args });
    leaders.push(first);
    const firstIdentity = await pollUntil(holder, { timeoutMs: 30_000, what: 'a leader' });
    const second = await startController({ leaseId: lease, args });
    leaders.push(second);

    await applyCatalog(name, ref);
    await pollUntil(async () => (await objectCount(name)) >= 20, {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: 'the sync to be under way',
    });
    const writes = (c: RunningController) => c.metric('catalogd_catalogmetadata_writes_total');
    expect(await writes(first), 'the leader writes').to.be.greaterThan(0);
    expect(await writes(second), 'the standby does not write').to.equal(0);
    expect(
      await second.metric('catalogd_apiserver_requests_total', {
        resource: 'catalogmetadata',
        verb: 'create',
      }),
      'the standby sends no CatalogMetadata writes',
    ).to.equal(0);

    await first.stop('SIGKILL');
    const killedAt = Date.now();
    // The Lease says 15 s: a standby takes over once it has seen no renewal for that long.
    const newIdentity = await pollUntil(
      async () => {
        const h = await holder();
        return h !== '' && h !== firstIdentity ? h : undefined;
      },
      { timeoutMs: 15_000 + 10_000, intervalMs: 200, what: 'the standby to take the lease' },
    );
    console.log(
      `      handover after ${((Date.now() - killedAt) / 1000).toFixed(1)} s to ${newIdentity}`,
    );

    const synced = await waitSynced(name);
    expect(await writes(second), 'the new leader finished the sync').to.be.greaterThan(0);
    const { match, detail } = matchRevision(await revisionInCluster(name), { new: rev });
    expect(match, detail).to.equal('new');
    expect(synced.status?.objectCount).to.equal(rev.size);
  });
});

describe('resilience e2e: the previous revision keeps serving', function () {
  this.timeout(300_000);
  let controller: RunningController;
  const dirs: string[] = [];

  before(async () => {
    ({ controller } = await setUpE2e({ controller: {} }));
  });

  after(async () => {
    cluster('start', 'registry');
    await controller?.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  /** The contentHash of the revision the HTTP server serves (its strong ETag is the hex). */
  async function servedHash(catalog: string): Promise<string | undefined> {
    const res = await fetch(`${controller.serverUrl}/catalogs/${catalog}/api/v1/all`, {
      method: 'HEAD',
      headers: { 'accept-encoding': 'identity' },
    });
    const hex = /^"([0-9a-f]{64})"$/.exec(res.headers.get('etag') ?? '')?.[1];
    return hex && `sha256:${hex}`;
  }

  it('when the new image has broken FBC: the condition names the file', async () => {
    const name = uniqueName('broken-fbc');
    const broken = await mkdtemp(path.join(os.tmpdir(), 'catalog-broken-'));
    dirs.push(broken);
    await cp(sampleDir, broken, { recursive: true });
    await appendFile(path.join(broken, 'utility-operator', 'catalog.json'), '{"schema": \n');
    try {
      await applyCatalog(name, await push(sampleDir, `sample:${uniqueName('v1')}`));
      const v1 = await waitSynced(name);
      const uid = v1.metadata.uid ?? '';
      const before = normalize(await listObjects(`catalog=${name}`), uid);
      const served = await servedHash(name);
      expect(served).to.equal(v1.status?.contentHash);

      // By tag: a parse error is then Retrying (the tag may move to a fixed image); a digest
      // reference would be Blocked, since only a spec change can fix it.
      const tag = uniqueName('v2');
      await push(broken, `broken:${tag}`);
      await applyCatalog(name, `${process.env.REGISTRY}/e2e/broken:${tag}`);
      const failed = await pollUntil(
        async () => {
          const c = await getCatalog(name);
          const p = condition(c, 'Progressing');
          return p?.reason === 'Retrying' && p.observedGeneration === c.metadata.generation
            ? c
            : undefined;
        },
        { timeoutMs: 60_000, what: 'Progressing=Retrying for the broken FBC' },
      );
      const message = condition(failed, 'Progressing')?.message ?? '';
      expect(message).to.contain('utility-operator/catalog.json:5:1');
      expect(condition(failed, 'Serving')?.status).to.equal('True');
      expect(failed.status?.contentHash).to.equal(v1.status?.contentHash);
      expect(await servedHash(name)).to.equal(served);
      expect(normalize(await listObjects(`catalog=${name}`), uid)).to.deep.equal(before);
    } finally {
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    }
  });

  it('when the registry is stopped: the condition says why, and the new revision lands once it is back', async () => {
    const name = uniqueName('registry-down');
    const v2Dir = await writeSampleV2();
    dirs.push(v2Dir);
    try {
      await applyCatalog(name, await push(sampleDir, `sample:${uniqueName('v1')}`));
      const v1 = await waitSynced(name);
      const uid = v1.metadata.uid ?? '';
      const before = normalize(await listObjects(`catalog=${name}`), uid);
      const v2Ref = await push(v2Dir, `sample:${uniqueName('v2')}`);

      cluster('stop', 'registry');
      await applyCatalog(name, v2Ref);
      const failed = await pollUntil(
        async () => {
          const c = await getCatalog(name);
          const p = condition(c, 'Progressing');
          return p?.reason === 'Retrying' && p.observedGeneration === c.metadata.generation
            ? c
            : undefined;
        },
        { timeoutMs: 120_000, what: 'Progressing=Retrying while the registry is down' },
      );
      const message = condition(failed, 'Progressing')?.message ?? '';
      expect(message).to.match(/registry|connect|ECONNREFUSED/i);
      expect(condition(failed, 'Serving')?.status).to.equal('True');
      expect(await servedHash(name)).to.equal(v1.status?.contentHash);
      expect(normalize(await listObjects(`catalog=${name}`), uid)).to.deep.equal(before);

      cluster('start', 'registry');
      const v2 = await waitSynced(name, v1.status?.contentHash);
      expect(await servedHash(name)).to.equal(v2.status?.contentHash);
      expect(v2.status?.objectCount).to.equal(10);
    } finally {
      cluster('start', 'registry');
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    }
  });
});
