// The drift watch reads CatalogMetadata metadata in protobuf (src/kube/metadata-protobuf.ts):
// against the real apiserver, every event it decodes must be the event the JSON watch returns
// for the same write (managedFields entries without fieldsV1, which the protobuf decoder leaves
// out), and an expired resourceVersion must end it with a 410 as in JSON.
import { expect } from 'chai';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../../src/api/v1/index.js';
import type { ObjectMetadata, WatchEventType } from '../../src/kube/index.js';
import { KubeClient, Resource, isGone } from '../../src/kube/index.js';
import { clusterCatalogResource, inertCatalog, installCrds } from '../support/catalogs.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const CM = { group: GROUP, version: VERSION, plural: CATALOG_METADATA_PLURAL };

type Event = { type: WatchEventType; metadata: ObjectMetadata['metadata'] };

describe('the metadata-only watch in protobuf', () => {
  let client: KubeClient;
  let catalogs: Resource<ClusterCatalog>;
  const owner = uniqueName('e2e-protobuf');
  const name = `${owner}-blob`;
  let ownerUid = '';

  before(async () => {
    await installCrds();
    // KUBECONFIG is set by the e2e hooks, after this file is loaded.
    client = new KubeClient({ kubeconfig: process.env.KUBECONFIG ?? '', maxSockets: 4 });
    catalogs = clusterCatalogResource(client);
    const created = await catalogs.create(inertCatalog(owner));
    ownerUid = created.metadata.uid ?? '';
  });

  after(async () => {
    await client
      .request(`/apis/${GROUP}/${VERSION}/${CATALOG_METADATA_PLURAL}/${name}`, {
        method: 'DELETE',
        verb: 'delete',
        resource: CATALOG_METADATA_PLURAL,
      })
      .catch(() => {});
    await catalogs.delete(owner).catch(() => {});
    client.close();
  });

  it('decodes every event as the JSON watch returns it', async () => {
    const json = new Resource<ObjectMetadata>(client, CM, { metadataOnly: true });
    const proto = new Resource<ObjectMetadata>(client, CM, {
      metadataOnly: true,
      protobufWatch: true,
    });
    // Not the controller's labels: no controller of another test takes this object for its own.
    const labelSelector = `e2e-protobuf=${owner}`;
    const { resourceVersion } = await json.list({ labelSelector, limit: 1 });
    const stop = new AbortController();
    const seen = { json: [] as Event[], proto: [] as Event[] };
    const opts = { resourceVersion, labelSelector, allowWatchBookmarks: false, timeoutSeconds: 60 };
    const watches = [
      json.watch(opts, (type, o) => seen.json.push({ type, metadata: o.metadata }), stop.signal),
      proto.watch(opts, (type, o) => seen.proto.push({ type, metadata: o.metadata }), stop.signal),
    ];
    try {
      const path = `/apis/${GROUP}/${VERSION}/${CATALOG_METADATA_PLURAL}`;
      // Created by one manager, edited by another: two managedFields entries, as a hand edit
      // leaves; labels and annotations with characters JSON escapes; a controller owner.
      await client.request(path, {
        method: 'POST',
        verb: 'create',
        resource: CATALOG_METADATA_PLURAL,
        query: { fieldManager: 'catalogd-ts' },
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'CatalogMetadata',
          metadata: {
            name,
            labels: { 'e2e-protobuf': owner, schema: 'olm.package' },
            annotations: { note: 'a "quoted" \\ é ✓ <value>\nwith a newline' },
            ownerReferences: [
              {
                apiVersion: `${GROUP}/${VERSION}`,
                kind: 'ClusterCatalog',
                name: owner,
                uid: ownerUid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
            finalizers: ['e2e.test/hold'],
          },
          spec: {
            catalog: { name: owner },
            schema: 'olm.package',
            package: 'p',
            content: { schema: 'olm.package', name: 'p' },
          },
        },
      });
      await client.request(`${path}/${name}`, {
        method: 'PATCH',
        verb: 'patch',
        resource: CATALOG_METADATA_PLURAL,
        contentType: 'application/merge-patch+json',
        query: { fieldManager: 'e2e-hand-edit' },
        body: { metadata: { annotations: { edited: 'yes' } }, spec: { package: 'q' } },
      });
      // Deleting with a finalizer sets deletionTimestamp (MODIFIED); removing it deletes.
      await client.request(`${path}/${name}`, {
        method: 'DELETE',
        verb: 'delete',
        resource: CATALOG_METADATA_PLURAL,
      });
      await client.request(`${path}/${name}`, {
        method: 'PATCH',
        verb: 'patch',
        resource: CATALOG_METADATA_PLURAL,
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      });
      await pollUntil(async () => seen.json.length >= 4 && seen.proto.length >= 4, {
        timeoutMs: 20_000,
        intervalMs: 50,
        what: 'four events on both watches',
      });
    } finally {
      stop.abort();
      await Promise.all(watches);
    }
    expect(seen.json.map((e) => e.type)).to.deep.equal([
      'ADDED',
      'MODIFIED',
      'MODIFIED',
      'DELETED',
    ]);
    // The JSON watch carries fieldsV1; the protobuf one does not: this is protobuf.
    expect(seen.json.every((e) => e.metadata.managedFields?.every((m) => m.fieldsV1))).to.equal(
      true,
    );
    expect(
      seen.proto.every((e) => e.metadata.managedFields?.every((m) => !('fieldsV1' in m))),
    ).to.equal(true);
    const withoutFieldsV1 = seen.json.map((e) => ({
      ...e,
      metadata: {
        ...e.metadata,
        managedFields: e.metadata.managedFields?.map(({ fieldsV1: _, ...m }) => m),
      },
    }));
    expect(seen.proto).to.deep.equal(withoutFieldsV1);
    const hand = seen.proto[1]!.metadata.managedFields?.map((m) => m.manager);
    expect(hand).to.deep.equal(['catalogd-ts', 'e2e-hand-edit']);
    expect(seen.proto[2]!.metadata.deletionTimestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('ends with a 410 from an expired resourceVersion, as the JSON watch does', async () => {
    const proto = new Resource<ObjectMetadata>(client, CM, {
      metadataOnly: true,
      protobufWatch: true,
    });
    const stop = new AbortController();
    const opts = { resourceVersion: '1', allowWatchBookmarks: false, timeoutSeconds: 10 };
    const err = await proto
      .watch(opts, () => {}, stop.signal)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    stop.abort();
    expect(isGone(err), String(err)).to.equal(true);
  });
});
