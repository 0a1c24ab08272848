import { expect } from 'chai';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import { isTerminal } from '../../util/errors.js';
import type { ClusterCatalogAPI, ClusterCatalogControllerOptions } from './controller.js';
import { ClusterCatalogController, PRUNED_RETRY_MS } from './controller.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const OLD_HASH = `sha256:${'0'.repeat(64)}`;
const HASH = `sha256:${'b'.repeat(64)}`;

function catalogAt(resourceVersion: string, status: ClusterCatalogStatus): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: {
      name: 'ops',
      uid: 'uid-1',
      generation: 1,
      resourceVersion,
      labels: { 'olm.operatorframework.io/metadata.name': 'ops' },
      finalizers: ['olm.operatorframework.io/delete-server-cache'],
    },
    spec: {
      source: { type: 'Image', image: { ref: `registry.example/ops/catalog@${DIGEST}` } },
      priority: 0,
      availabilityMode: 'Available',
    },
    status,
  };
}

/** An apiserver of one ClusterCatalog that enforces the resourceVersion precondition. */
class FakeApiserver implements ClusterCatalogAPI {
  preconditions: string[] = [];
  /** Status fields its ClusterCatalog CRD does not have (pruned from every write). */
  prunes: string[] = [];
  constructor(public object: ClusterCatalog) {}

  /** Metadata patches allowed (a deletion's finalizer); others are unexpected. */
  metadataPatches: Array<{ metadata: unknown; resourceVersion: string }> | undefined;

  async patchMetadata(
    _name: string,
    metadata: unknown,
    resourceVersion: string,
  ): Promise<ClusterCatalog> {
    if (!this.metadataPatches) throw new Error('unexpected metadata patch');
    this.metadataPatches.push({ metadata, resourceVersion });
    return structuredClone(this.object);
  }

  async patchStatus(
    _name: string,
    patch: Record<string, unknown>,
    resourceVersion: string,
  ): Promise<ClusterCatalog> {
    this.preconditions.push(resourceVersion);
    if (resourceVersion !== this.object.metadata.resourceVersion) {
      throw Object.assign(new Error('Operation cannot be fulfilled: object was modified'), {
        statusCode: 409,
      });
    }
    const status: Record<string, unknown> = { ...this.object.status };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || this.prunes.includes(k)) delete status[k];
      else status[k] = v;
    }
    const rv = String(Number(resourceVersion) + 1);
    this.object = {
      ...this.object,
      metadata: { ...this.object.metadata, resourceVersion: rv },
      status: status,
    };
    return structuredClone(this.object);
  }

  async recordEvent(): Promise<void> {}
}

function deps(): ClusterCatalogControllerOptions['reconcile'] {
  return {
    ports: {
      puller: {
        resolve: async () => DIGEST,
        pull: async (ref) => ({
          ref,
          digest: DIGEST,
          dir: '/cache',
          configsDir: '/cache/configs',
          cached: true,
        }),
      },
      syncer: {
        plan: async (target) => ({
          target,
          scan: {
            desired: new Map(),
            contentHash: HASH,
            blobs: 1,
            omitted: 0,
            bytes: 1,
            storedBytes: 1,
          },
          plan: { create: ['a'], update: [], delete: [], unchanged: 0, unchangedOmitted: 0 },
          dispose: async () => {},
        }),
        apply: async () => ({ omitted: 0, storedBytesDelta: 0 }),
        deleteAll: async () => 0,
      },
      content: {
        baseUrl: () => 'http://content.example/catalogs/ops',
        blobUrl: () => 'http://content.example/blob',
        prepare: async () => HASH,
        publish: async () => {},
        remove: async () => {},
      },
    },
    settings: { maxObjectBytes: 1 << 20 },
    clock: { date: () => new Date('2026-01-02T03:04:05Z') },
  };
}

describe('ClusterCatalogController status writes', () => {
  it('patch status only against the resourceVersion read; a 409 retries, never shows', async () => {
    // The apiserver has a sync journal (syncingTo) the lagging informer cache has not seen yet.
    const server = new FakeApiserver(
      catalogAt('5', { syncingTo: OLD_HASH, contentHash: OLD_HASH }),
    );
    let cache = catalogAt('4', { contentHash: OLD_HASH });
    const controller = new ClusterCatalogController({
      catalogs: { get: () => cache },
      api: server,
      reconcile: deps(),
      cleanup: async () => {},
      removeOrphans: async () => {},
    });

    const err = await controller.reconcile('ops', new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, 'the stale write is refused and the reconcile retried').to.be.instanceOf(Error);
    expect(isTerminal(err)).to.equal(false);
    expect(server.preconditions).to.deep.equal(['4']);
    expect(server.object.status?.syncingTo, 'nothing written from the stale cache').to.equal(
      OLD_HASH,
    );

    cache = structuredClone(server.object); // the informer caught up
    await controller.reconcile('ops', new AbortController().signal);
    // The HTTP view (publish), the journal, then the final write, each against the
    // resourceVersion the one before returned.
    expect(server.preconditions.slice(1)).to.deep.equal(['5', '6', '7']);
    expect(server.object.status?.syncingTo).to.equal(undefined);
    expect(server.object.status?.contentHash).to.equal(HASH);
  });

  it('a write whose fields the apiserver dropped is made again soon, unless the CRD check knows why', async () => {
    const server = new FakeApiserver(catalogAt('5', {}));
    server.prunes = ['contentHash', 'objectCount', 'storedBytes', 'observedGeneration'];
    let problem: string | undefined;
    const controller = new ClusterCatalogController({
      catalogs: { get: () => structuredClone(server.object) },
      api: server,
      reconcile: { ...deps(), ports: { ...deps().ports, crdProblem: () => problem } },
      cleanup: async () => {},
      removeOrphans: async () => {},
    });
    const signal = new AbortController().signal;
    // Our CRD is back but the apiserver still pruned: look again soon.
    expect(await controller.reconcile('ops', signal)).to.deep.equal({
      requeueAfter: PRUNED_RETRY_MS,
    });
    // The check knows of the problem: the end of it queues the catalog, no polling meanwhile.
    problem = 'the ClusterCatalog CRD the apiserver serves lacks the status fields contentHash';
    server.object.status = {};
    expect(await controller.reconcile('ops', signal)).to.equal(undefined);
    // Nothing dropped: nothing to look at again (a digest ref is not polled).
    server.prunes = [];
    problem = undefined;
    server.object.status = {};
    expect(await controller.reconcile('ops', signal)).to.equal(undefined);
    expect(server.object.status?.contentHash).to.equal(HASH);
  });
});

describe('ClusterCatalogController deletion', () => {
  it('as upstream: Serving=False/Unavailable, resolvedSource and urls cleared, then the finalizer', async () => {
    const served: ClusterCatalogStatus = {
      resolvedSource: { type: 'Image', image: { ref: `registry.example/ops/catalog@${DIGEST}` } },
      urls: { base: 'http://content.example/catalogs/ops/revisions/bbbbbbbbbbbbbbbb' },
      lastUnpacked: '2026-01-02T03:04:05Z',
      contentHash: HASH,
      conditions: [
        {
          type: 'Serving',
          status: 'True',
          reason: 'Available',
          message: 'serving the content of the resolved source',
          lastTransitionTime: '2026-01-02T03:04:05Z',
          observedGeneration: 1,
        },
      ],
    };
    const deleting = catalogAt('5', served);
    deleting.metadata.deletionTimestamp = '2026-01-03T00:00:00Z';
    const server = new FakeApiserver(deleting);
    server.metadataPatches = [];
    const cleaned: string[] = [];
    const controller = new ClusterCatalogController({
      catalogs: { get: () => structuredClone(server.object) },
      api: server,
      reconcile: deps(),
      cleanup: async (name) => void cleaned.push(name),
      removeOrphans: async () => {},
    });
    await controller.reconcile('ops', new AbortController().signal);
    expect(cleaned).to.deep.equal(['ops']);
    const status = server.object.status!;
    expect(status.resolvedSource).to.equal(undefined);
    expect(status.urls).to.equal(undefined);
    expect(status.lastUnpacked).to.equal(undefined);
    expect(status.conditions?.find((c) => c.type === 'Serving')).to.include({
      status: 'False',
      reason: 'Unavailable',
    });
    // The finalizer goes after the status write, against the resourceVersion it returned.
    expect(server.metadataPatches).to.deep.equal([
      { metadata: { finalizers: null }, resourceVersion: '6' },
    ]);
  });
});
