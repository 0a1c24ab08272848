// Upstream's ClusterCatalog CRD (OLM v1's release manifests install it) applied over ours: the
// apiserver prunes our status fields. The controller says so (log, event, metric, every catalog's
// Progressing message), no replica serves a stale 200 meanwhile, and re-applying our CRD recovers
// with no other step (docs/api.md, "When another ClusterCatalog CRD is applied").
import { expect } from 'chai';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  applyCatalog,
  condition,
  getCatalog,
  installCrds,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
} from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { pushAndSync } from '../support/e2e-setup.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { bodyContentHash } from '../support/olm-client.js';
import { pollUntil } from '../support/poll.js';
import { catalogContentHash } from '../support/revisions.js';
import { startRoundRobinProxy } from '../support/round-robin-proxy.js';
import type { RoundRobinProxy } from '../support/round-robin-proxy.js';

const UPSTREAM_CRD = path.join(
  repoRoot,
  'test/fixtures/upstream/clustercatalogs-operator-controller-v1.5.1.yaml',
);
const METRIC = 'catalogd_clustercatalog_crd_missing_status_fields';
const PROBLEM = 'the ClusterCatalog CRD the apiserver serves lacks the status fields';

/** GET url until 200; every answer before must be retryable (404/503). Returns the body's hash. */
async function fetchUntilOk(url: string): Promise<string> {
  return pollUntil(
    async () => {
      const r = await fetch(url);
      const body = await r.text();
      if (r.status === 200) return bodyContentHash(body);
      expect([404, 503], `${url}: ${body}`).to.include(r.status);
      return undefined;
    },
    { timeoutMs: 60_000, intervalMs: 20, what: `${url} to answer 200` },
  );
}

describe('CRD clobber e2e: upstream ClusterCatalog CRD applied over ours', function () {
  this.timeout(600_000);
  let proxy: RoundRobinProxy;
  let leader: RunningController | undefined;
  let follower: RunningController | undefined;
  const name = uniqueName('clobber');
  const leaseId = uniqueName('lease');

  before(async () => {
    await installCrds();
    proxy = await startRoundRobinProxy();
    const args = [`--server-url=${proxy.url}`];
    leader = await startController({ leaseId, args });
    await pushAndSync(name, sampleDir, `clobber:${uniqueName('v')}`);
    follower = await startController({ leaseId, args });
    proxy.backends.push(leader.serverUrl, follower.serverUrl);
  });

  after(async () => {
    // Whatever happened, the next tests get our CRD.
    await installCrds();
    await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    await follower?.stop();
    await leader?.stop();
    await proxy?.close();
  });

  it('says what is wrong, serves no stale 200, and recovers when our CRD is applied again', async () => {
    await kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', UPSTREAM_CRD]);

    // Detection: metric and log line on both replicas, an event, every catalog's Progressing.
    for (const r of [leader!, follower!])
      await pollUntil(async () => (await r.metric(METRIC)) === 6, {
        timeoutMs: 60_000,
        intervalMs: 100,
        what: `${METRIC} to be 6`,
      });
    const withProblem = await pollUntil(
      async () => {
        const c = await getCatalog(name);
        const p = condition(c, 'Progressing');
        return p?.message.startsWith(PROBLEM) ? c : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'Progressing to say what is wrong' },
    );
    expect(condition(withProblem, 'Progressing')?.reason).to.equal('Retrying');
    expect(condition(withProblem, 'Progressing')?.message).to.contain(
      'run "kubectl apply --server-side --force-conflicts -k config/crd"',
    );
    // One log line of its own (a failed reconcile's line may quote the Progressing message too).
    const log = await readFile(leader!.logFile, 'utf8');
    const own = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; missing?: string[] })
      .filter((l) => l.msg?.startsWith(PROBLEM));
    expect(own).to.have.length(1);
    expect(own[0]?.missing).to.deep.equal([
      'contentHash',
      'objectCount',
      'objectSourceRef',
      'observedGeneration',
      'storedBytes',
      'syncingTo',
    ]);
    const events = await kubectlOk([
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      'reason=CRDMissingStatusFields',
      '-o',
      'jsonpath={.items[*].involvedObject.name}',
    ]);
    expect(events).to.contain('clustercatalogs.olm.operatorframework.io');

    // A new revision under upstream's CRD: status has no contentHash, yet every replica serves
    // what urls.base names, and never the old revision under it.
    const v2 = await writeSampleV2();
    try {
      const v2Hash = await catalogContentHash(v2, name);
      const v2Ref = await push(v2, `clobber:${uniqueName('v2')}`);
      await applyCatalog(name, v2Ref);
      const updated = await pollUntil(
        async () => {
          const c = await getCatalog(name);
          return c.status?.resolvedSource?.image.ref === v2Ref ? c : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 50, what: 'the status to name v2' },
      );
      expect(updated.status?.contentHash, 'pruned by upstream CRD').to.equal(undefined);
      // Our ObjectsSynced condition is kept by upstream's CRD (conditions take any type): the
      // objects' progress of this update is there, then their sync.
      const objectsSynced = await pollUntil(
        async () => {
          const c = await getCatalog(name);
          const o = condition(c, 'ObjectsSynced');
          return o?.status === 'True' && o.observedGeneration === c.metadata.generation
            ? o
            : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 100, what: 'ObjectsSynced=True under upstream CRD' },
      );
      expect(objectsSynced.reason).to.equal('Synced');
      const base = updated.status?.urls?.base ?? '';
      for (const target of [proxy.url, leader!.serverUrl, follower!.serverUrl]) {
        const url = `${base.replace(proxy.url, target)}/api/v1/all`;
        expect(await fetchUntilOk(url), url).to.equal(v2Hash);
      }
      // The follower learnt the revision from urls.base: its unversioned URL serves v2 too.
      expect(await fetchUntilOk(`${follower!.serverUrl}/catalogs/${name}/api/v1/all`)).to.equal(
        v2Hash,
      );

      // Our CRD again: nothing else to do.
      await installCrds();
      await pollUntil(async () => (await leader!.metric(METRIC)) === 0, {
        timeoutMs: 60_000,
        intervalMs: 100,
        what: `${METRIC} to be 0`,
      });
      const recovered = await waitSynced(name, undefined, 60_000);
      expect(recovered.status?.contentHash).to.equal(v2Hash);
      expect(condition(recovered, 'Progressing')?.message).to.not.contain(PROBLEM);
    } finally {
      await rm(v2, { recursive: true, force: true });
    }
  });
});
