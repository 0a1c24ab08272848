// ClusterCatalog status as upstream means it (issue 54), watched on the real apiserver: a normal
// update never says Progressing=Retrying (its objects' progress is our ObjectsSynced condition),
// and a deletion writes Serving=False/Unavailable with resolvedSource and urls cleared before the
// finalizer goes. (An update whose objects admission refuses: test/e2e/resilience.test.ts.)
import { expect } from 'chai';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { CLUSTER_CATALOG_PLURAL, GROUP, VERSION } from '../../src/api/v1/index.js';
import { KubeClient, Resource } from '../../src/kube/index.js';
import {
  applyCatalog,
  condition,
  installCrds,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
} from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

/** Every state of one ClusterCatalog a watch sees, in order, until stopped. */
function watchCatalog(name: string) {
  const client = new KubeClient({ kubeconfig: process.env.KUBECONFIG ?? '', maxSockets: 2 });
  const catalogs = new Resource<ClusterCatalog>(client, {
    group: GROUP,
    version: VERSION,
    plural: CLUSTER_CATALOG_PLURAL,
  });
  const seen: Array<{ type: string; catalog: ClusterCatalog }> = [];
  const stop = new AbortController();
  const fieldSelector = `metadata.name=${name}`;
  const done = (async () => {
    const list = await catalogs.list({ fieldSelector }, stop.signal);
    for (const c of list.items) seen.push({ type: 'LISTED', catalog: c });
    await catalogs
      .watch(
        {
          fieldSelector,
          resourceVersion: list.resourceVersion,
          allowWatchBookmarks: false,
          timeoutSeconds: 600,
        },
        (type, catalog) => {
          if (type !== 'BOOKMARK') seen.push({ type, catalog });
        },
        stop.signal,
      )
      .catch(() => undefined);
  })();
  return {
    seen,
    async stop() {
      stop.abort();
      await done.catch(() => undefined);
      client.close();
    },
  };
}

const reasons = (c: ClusterCatalog, type: string) => condition(c, type)?.reason;

describe('status semantics e2e: conditions as upstream means them', function () {
  this.timeout(300_000);
  let controller: RunningController;

  before(async () => {
    await installCrds();
    controller = await startController();
  });

  after(async () => {
    await controller?.stop();
  });

  it('a normal update: never Retrying; ObjectsSynced goes Planning/Writing to Synced', async () => {
    const name = uniqueName('semantics');
    await applyCatalog(name, await push(sampleDir, `sample:${uniqueName('v1')}`));
    const first = await waitSynced(name);
    const watch = watchCatalog(name);
    try {
      const v2 = await push(await writeSampleV2(), `sample:${uniqueName('v2')}`);
      await applyCatalog(name, v2);
      await waitSynced(name, first.status?.contentHash);
      await pollUntil(
        async () =>
          watch.seen.some(
            (e) =>
              reasons(e.catalog, 'ObjectsSynced') === 'Synced' &&
              e.catalog.status?.contentHash !== first.status?.contentHash,
          ),
        {
          timeoutMs: 60_000,
          what: 'the watch to see the update synced',
        },
      );
    } finally {
      await watch.stop();
    }
    const sequence = watch.seen.map(
      (e) =>
        `Progressing=${reasons(e.catalog, 'Progressing')} ObjectsSynced=${reasons(e.catalog, 'ObjectsSynced')}`,
    );
    expect(
      sequence.filter((s) => s.includes('Retrying')),
      sequence.join('\n'),
    ).to.deep.equal([]);
    expect(
      sequence.some((s) => /ObjectsSynced=(Planning|Writing)/.test(s)),
      sequence.join('\n'),
    ).to.equal(true);
    expect(sequence.at(-1)).to.equal('Progressing=Succeeded ObjectsSynced=Synced');
    await kubectlOk(['delete', 'clustercatalog', name, '--wait=false']);
  });

  it('deletion: Serving=False/Unavailable with resolvedSource and urls cleared, then gone', async () => {
    const name = uniqueName('deleted');
    await applyCatalog(name, await push(sampleDir, `sample:${uniqueName('v1')}`));
    await waitSynced(name);
    const watch = watchCatalog(name);
    try {
      await pollUntil(async () => watch.seen.length > 0, {
        timeoutMs: 30_000,
        what: 'the watch to list the catalog',
      });
      await kubectlOk(['delete', 'clustercatalog', name, '--wait=false']);
      await pollUntil(async () => watch.seen.some((e) => e.type === 'DELETED'), {
        timeoutMs: 60_000,
        what: 'the catalog to be deleted',
      });
    } finally {
      await watch.stop();
    }
    const lastBeforeDeleted = watch.seen.filter((e) => e.type !== 'DELETED').at(-1)!.catalog;
    expect(lastBeforeDeleted.metadata.deletionTimestamp).to.not.equal(undefined);
    expect(condition(lastBeforeDeleted, 'Serving')).to.include({
      status: 'False',
      reason: 'Unavailable',
    });
    expect(lastBeforeDeleted.status?.resolvedSource).to.equal(undefined);
    expect(lastBeforeDeleted.status?.urls).to.equal(undefined);
  });
});
