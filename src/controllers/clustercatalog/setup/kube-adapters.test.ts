import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClusterCatalog } from '../../../api/v1/index.js';
import type { CatalogMetadataRef } from './predicates.js';
import type { EventRecorder, Resource } from '../../../kube/index.js';
import { KubeClient } from '../../../kube/index.js';
import { WriteRateLimit } from '../../../sync/index.js';
import { ManualClock } from '../../../util/clock.js';
import { machineFor } from '../../../../test/support/kube-env.js';
import { watchFixture } from '../../../../test/support/watch-fixtures.js';
import { catalogMetadataRefs, clusterCatalogAPI } from './kube-adapters.js';

describe('clustercatalog/setup/kube-adapters: the ClusterCatalog writes under --max-write-rate', () => {
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

describe('clustercatalog/setup/kube-adapters: the drift watch of CatalogMetadata', () => {
  it('watches in protobuf and reduces each event to its ref', async () => {
    // The real apiserver's answer to a metadata-only protobuf watch (test/fixtures/kube-protobuf).
    const pb = watchFixture('watch.pb');
    const accepts: string[] = [];
    const server = http.createServer((req, res) => {
      accepts.push(String(req.headers.accept));
      res.writeHead(200, { 'content-type': 'application/vnd.kubernetes.protobuf;stream=watch' });
      res.end(pb);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    });
    const refs: Array<[string, CatalogMetadataRef]> = [];
    try {
      await catalogMetadataRefs(client).watch(
        { resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 1 },
        (type, ref) => refs.push([type, ref]),
        new AbortController().signal,
      );
    } finally {
      client.close();
      server.close();
    }
    expect(accepts[0]).to.match(
      /^application\/vnd\.kubernetes\.protobuf;as=PartialObjectMetadata;/,
    );
    expect(
      refs.map(([t, r]) => [t, r.metadata.name, r.catalog, r.writtenByController]),
    ).to.deep.equal([
      ['ADDED', 'fixture-owner-olm.package-example', 'fixture-owner', true],
      // A label added by another manager a second later: drift.
      ['MODIFIED', 'fixture-owner-olm.package-example', 'fixture-owner', false],
      ['DELETED', 'fixture-owner-olm.package-example', 'fixture-owner', false],
    ]);
  });
});
