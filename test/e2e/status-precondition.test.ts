// The controller's status writes (clusterCatalogAPI's patchStatus, src/controllers/clustercatalog/setup/kube-adapters.ts) are
// merge patches of the status subresource that carry metadata.resourceVersion: the apiserver
// must refuse one computed from an older object with 409 Conflict, or a lagging informer cache
// could drop a field that must be cleared. This drives the controller's own wiring against the
// real apiserver.
import { expect } from 'chai';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import type { ClusterCatalogAPI } from '../../src/controllers/clustercatalog/controller.js';
import { clusterCatalogAPI } from '../../src/controllers/clustercatalog/setup/kube-adapters.js';
import type { Resource } from '../../src/kube/index.js';
import { KubeClient, isConflict } from '../../src/kube/index.js';
import { clusterCatalogResource, inertCatalog, installCrds } from '../support/catalogs.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

describe('status writes carry a resourceVersion precondition', () => {
  let client: KubeClient;
  let catalogs: Resource<ClusterCatalog>;
  let api: ClusterCatalogAPI;
  before(async () => {
    await installCrds();
    // KUBECONFIG is set by the e2e hooks, after this file is loaded.
    client = new KubeClient({ kubeconfig: process.env.KUBECONFIG ?? '', maxSockets: 2 });
    catalogs = clusterCatalogResource(client);
    // Events are not what this test is about.
    api = clusterCatalogAPI(catalogs, { record: async () => {} });
  });
  const name = uniqueName('e2e-status-rv');

  after(async () => {
    await catalogs.delete(name).catch(() => {});
    client.close();
  });

  it('a status patch against an older resourceVersion is refused with 409', async () => {
    await catalogs.create(inertCatalog(name));
    // A controller of another test may write this object too: retry until a patch against the
    // resourceVersion just read goes through, which makes that resourceVersion stale.
    const stale = await pollUntil(
      async () => {
        const current = await catalogs.get(name);
        const rv = current.metadata.resourceVersion ?? '';
        try {
          await api.patchStatus(name, { syncingTo: `sha256:${'1'.repeat(64)}` }, rv);
          return rv;
        } catch (err) {
          if (isConflict(err)) return undefined;
          throw err;
        }
      },
      { timeoutMs: 30_000, what: 'a status patch against the resourceVersion read' },
    );
    const refused = await api.patchStatus(name, { syncingTo: null }, stale).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isConflict(refused), String(refused)).to.equal(true);
  });
});
