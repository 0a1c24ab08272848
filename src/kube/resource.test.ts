import { expect } from 'chai';
import { KubeClient } from './client.js';
import { machineFor, recordingServer } from '../../test/support/kube-env.js';
import { Resource } from './resource.js';

const METADATA_ONLY =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

describe('kube/resource: Resource', () => {
  it('asks for metadata only on the writes whose response it does not read', async () => {
    const srv = await recordingServer((req) => `${req.method} ${req.headers.accept}`);
    const client = new KubeClient({ env: machineFor(`http://127.0.0.1:${srv.port}`) });
    const things = new Resource<{ metadata: { name: string } }>(client, {
      group: 'g',
      version: 'v1',
      plural: 'things',
    });
    try {
      const obj = { metadata: { name: 'a' } };
      await things.createQuietly(Buffer.from(JSON.stringify(obj)));
      await things.updateQuietly('a', JSON.stringify(obj));
      await things.delete('a', { uid: 'u' });
      // The writes whose result is used get the whole object.
      await things.create(obj);
      await things.update(obj);
      expect(srv.seen).to.deep.equal([
        `POST ${METADATA_ONLY}`,
        `PUT ${METADATA_ONLY}`,
        `DELETE ${METADATA_ONLY}`,
        'POST application/json',
        'PUT application/json',
      ]);
    } finally {
      client.close();
      srv.close();
    }
  });

  it('watches metadata in protobuf first only when asked, with JSON to fall back on', async () => {
    const srv = await recordingServer((req) => String(req.headers.accept));
    const client = new KubeClient({ env: machineFor(`http://127.0.0.1:${srv.port}`) });
    const type = { group: 'g', version: 'v1', plural: 'things' };
    const opts = { resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 1 };
    const signal = new AbortController().signal;
    try {
      for (const o of [{}, { metadataOnly: true }, { metadataOnly: true, protobufWatch: true }]) {
        await new Resource<{ metadata: { name: string } }>(client, type, o).watch(
          opts,
          () => {},
          signal,
        );
      }
      expect(srv.seen).to.deep.equal([
        'application/json',
        METADATA_ONLY,
        `application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,${METADATA_ONLY}`,
      ]);
    } finally {
      client.close();
      srv.close();
    }
  });
});
