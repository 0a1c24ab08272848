import { expect } from 'chai';
import type { ClusterCatalog } from '../api/v1/index.js';
import type { EventRecorder, Resource } from '../kube/index.js';
import { WriteRateLimit } from '../sync/index.js';
import { ManualClock } from '../util/clock.js';
import { clusterCatalogAPI } from './kube-ports.js';

describe('cmd/kube-ports: the ClusterCatalog writes under --max-write-rate', () => {
  it('status, metadata and event writes take their slots of the one ceiling', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const sent: Array<[string, number]> = [];
    const catalog = { metadata: { name: 'c', uid: 'u' } } as ClusterCatalog;
    const catalogs = {
      mergePatch: async (_name: string, _patch: unknown, sub?: string) => {
        sent.push([sub ?? 'metadata', clock.now() - t0]);
        return catalog;
      },
    } as unknown as Resource<ClusterCatalog>;
    const events = {
      record: async () => void sent.push(['event', clock.now() - t0]),
    } as unknown as EventRecorder;
    const api = clusterCatalogAPI(catalogs, events, new WriteRateLimit(4, clock));
    const all = Promise.all([
      api.patchStatus('c', {}, '1'),
      api.patchMetadata('c', { finalizers: null }, '1'),
      api.recordEvent(catalog, { type: 'Normal', reason: 'Synced', message: 'm' }),
    ]);
    while (await clock.advanceToNextTimer());
    await all;
    expect(sent).to.deep.equal([
      ['status', 0],
      ['metadata', 250],
      ['event', 500],
    ]);
  });
});
