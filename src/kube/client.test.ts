import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient } from './client.js';
import type { KubeconfigEnv } from './kubeconfig.js';

/** A loopback HTTP server that answers `{}` and records the request lines it got. */
async function recordingServer(): Promise<{ port: number; seen: string[]; close(): void }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => server.close(),
  };
}

function machineFor(server: string): KubeconfigEnv {
  const config = `
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: "${server}"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: t}}]
`;
  return {
    env: { KUBECONFIG: '/kc' },
    home: '/home/u',
    readFile: (f) => (f === '/kc' ? Buffer.from(config) : undefined),
    serviceAccountDir: '/sa',
  };
}

describe('kube/client: KubeClient', () => {
  it('puts the server URL path before API paths and encodes the query', async () => {
    const srv = await recordingServer();
    const client = new KubeClient({
      env: machineFor(`http://127.0.0.1:${srv.port}/k8s/clusters/c-1/`),
    });
    try {
      await client.request('/apis/g/v1/things', {
        verb: 'list',
        resource: 'things',
        query: { labelSelector: 'a=b,c in (d)', limit: 500, continue: undefined },
      });
      await client.request('/api/v1/namespaces/x', {
        method: 'POST',
        verb: 'create',
        resource: 'namespaces',
        body: Buffer.from('{}'),
      });
      expect(srv.seen).to.deep.equal([
        'GET /k8s/clusters/c-1/apis/g/v1/things?labelSelector=a%3Db%2Cc%20in%20(d)&limit=500',
        'POST /k8s/clusters/c-1/api/v1/namespaces/x',
      ]);
    } finally {
      client.close();
      srv.close();
    }
  });
});
