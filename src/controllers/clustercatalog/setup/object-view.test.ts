// The served view's controller (--object-view=served) against a recording apiserver: it lists
// and watches ClusterCatalogs but never asks for CatalogMetadata (there is no CRD to ask, and no
// drift to watch), and readiness waits for the catalogs alone; the CRD mode does ask.
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { machineFor, recordingServer } from '../../../../test/support/kube-env.js';
import { KubeClient, eventRecorder } from '../../../kube/index.js';
import { RuntimeMetrics } from '../../runtime/index.js';
import { pollUntil } from '../../../../test/support/poll.js';
import type { ClusterCatalogParts } from './index.js';
import { setupClusterCatalogController } from './index.js';

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

async function requestsOf(objectView: 'crd' | 'served') {
  const api = await recordingServer((req) => (req.url ?? '').split('?')[0] ?? '');
  const client = new KubeClient({ env: machineFor(`http://127.0.0.1:${api.port}`) });
  const registry = new Registry();
  const setup = setupClusterCatalogController(
    {
      workers: 1,
      pullWorkers: 1,
      maxObjectBytes: 1 << 20,
      contentProfile: 'full',
      pullTimeoutMs: 60_000,
      driftWatchPauseWrites: 0,
      objectView,
    },
    {
      client,
      events: eventRecorder(client, { component: 'test', instance: 'test' }),
      // Never called: there is no catalog to reconcile.
      puller: {} as ClusterCatalogParts['puller'],
      syncer: {} as ClusterCatalogParts['syncer'],
      content: {} as ClusterCatalogParts['content'],
      log: quiet,
      registry,
      runtimeMetrics: new RuntimeMetrics(registry),
    },
  );
  const stop = new AbortController();
  const run = setup.run(stop.signal);
  try {
    await pollUntil(async () => setup.informers.every((i) => i.hasSynced()), {
      timeoutMs: 10_000,
      what: 'the informers to sync',
    });
    return { paths: [...new Set(api.seen)], informers: setup.informers.map((i) => i.name) };
  } finally {
    stop.abort();
    await run;
    setup.stop();
    client.close();
    api.close();
  }
}

describe('controllers/clustercatalog/setup: --object-view', () => {
  const catalogMetadata = (p: string) => p.includes('/catalogmetadata');

  it('served: never asks for CatalogMetadata; readiness is the catalogs', async () => {
    const { paths, informers } = await requestsOf('served');
    expect(paths.some((p) => p.endsWith('/clustercatalogs'))).to.equal(true);
    expect(paths.filter(catalogMetadata)).to.deep.equal([]);
    expect(informers).to.deep.equal(['clustercatalogs']);
  });

  it('crd: lists CatalogMetadata for the drift watch', async () => {
    const { paths, informers } = await requestsOf('crd');
    expect(paths.filter(catalogMetadata)).to.not.deep.equal([]);
    expect(informers).to.deep.equal(['clustercatalogs', 'catalogmetadata']);
  });
});
