import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient } from './client.js';
import { machineFor } from '../../test/support/kube-env.js';
import { Resource } from './resource.js';

const METADATA_ONLY =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** A loopback HTTP server that answers an object and records each request's Accept header. */
async function acceptRecorder(): Promise<{ port: number; seen: string[]; close(): void }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.headers.accept}`);
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"metadata":{"name":"a"}}'),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen, close: () => server.close() };
}

describe('kube/resource: Resource', () => {
  it('asks for metadata only on the writes whose response it does not read', async () => {
    const srv = await acceptRecorder();
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
});
