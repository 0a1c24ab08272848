// The local cluster's aggregation layer (hack/cluster.sh), proven end to end with a throwaway
// HTTPS server of this test behind the served group's APIService (test/support/served-api.ts):
// a request to /apis/content.olm.operatorframework.io/v1 through the apiserver reaches the
// server with the user in X-Remote-User/X-Remote-Group and a client certificate, CN
// front-proxy-client, that verifies against the front-proxy CA the apiserver publishes in
// kube-system/extension-apiserver-authentication. Without the requestheader or proxy-client
// flags (or --enable-aggregator-routing) these tests fail.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { SERVED_API_VERSION } from '../../src/api/v1/index.js';
import { repoRoot } from '../support/cluster.js';
import { kubectlOk } from '../support/kubectl.js';
import type { ServedApiRegistration } from '../support/served-api.js';
import { frontProxyCa, registerServedApi } from '../support/served-api.js';

const DISCOVERY_PATH = `/apis/${SERVED_API_VERSION}`;
const NAMESPACE = 'default';
const SERVICE = 'catalogd-ts-served-e2e';

/** What the server saw of one request: its path, headers and the client's certificate (DER). */
interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
  clientCert?: Buffer;
}

const resourceList = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: SERVED_API_VERSION,
  resources: [],
};

/** Answers the group-version's discovery document; 404 elsewhere. Records every request. */
function discoveryServer(cert: string, key: string, seen: SeenRequest[]): Server {
  return createServer(
    // Asks for a client certificate and accepts any: the test checks it against the CA itself.
    { cert, key, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({
        path: req.url ?? '',
        headers: req.headers,
        ...(peer.raw && { clientCert: peer.raw }),
      });
      if (req.url?.split('?')[0] !== DISCOVERY_PATH) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(resourceList));
    },
  );
}

/** A header's values: Node joins a repeated header's values with ", ". */
const asList = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

describe('aggregation layer of the local cluster', function () {
  let tmp = '';
  let server: Server | undefined;
  let registration: ServedApiRegistration | undefined;
  const seen: SeenRequest[] = [];

  before(async function () {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'aggregation-'));
    // The serving certificate the way a deployment gets one: for <service>.<namespace>.svc, the
    // name the apiserver verifies an APIService backend's certificate against.
    execFileSync(
      path.join(repoRoot, 'hack', 'serving-cert.sh'),
      ['--out', tmp, '--namespace', NAMESPACE, '--service', SERVICE, '--no-secret', '--days', '2'],
      { stdio: 'pipe' },
    );
    const [cert, key, ca] = await Promise.all(
      ['tls.crt', 'tls.key', 'ca.crt'].map((f) => readFile(path.join(tmp, f), 'utf8')),
    );
    server = discoveryServer(cert!, key!, seen);
    // All addresses: the apiserver connects to this host's non-loopback one.
    await new Promise<void>((resolve) => server!.listen(0, '0.0.0.0', resolve));
    const { port } = server.address() as AddressInfo;
    registration = await registerServedApi({
      port,
      caBundle: ca!,
      namespace: NAMESPACE,
      service: SERVICE,
    });
  });

  after(async () => {
    await registration?.unregister();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('publishes the front-proxy CA and allowed names in extension-apiserver-authentication', async () => {
    const data = JSON.parse(
      await kubectlOk([
        ...['-n', 'kube-system', 'get', 'configmap', 'extension-apiserver-authentication'],
        ...['-o', 'jsonpath={.data}'],
      ]),
    ) as Record<string, string>;
    expect(data['requestheader-client-ca-file']).to.include('BEGIN CERTIFICATE');
    expect(JSON.parse(data['requestheader-allowed-names'] ?? '[]')).to.deep.equal([
      'front-proxy-client',
    ]);
    expect(JSON.parse(data['requestheader-username-headers'] ?? '[]')).to.deep.equal([
      'X-Remote-User',
    ]);
    expect(JSON.parse(data['requestheader-group-headers'] ?? '[]')).to.deep.equal([
      'X-Remote-Group',
    ]);
    expect(JSON.parse(data['requestheader-extra-headers-prefix'] ?? '[]')).to.deep.equal([
      'X-Remote-Extra-',
    ]);
    // Not the cluster CA: the front-proxy certificate must not authenticate to the apiserver.
    expect(data['requestheader-client-ca-file']).to.not.equal(data['client-ca-file']);
  });

  it('proxies a request to the backend with the user in headers and the front-proxy client certificate', async () => {
    const out = await kubectlOk([
      ...['get', '--raw', DISCOVERY_PATH],
      // An impersonated user, so that the headers name who asked, not the admin certificate.
      ...['--as', 'aggregation-e2e-user', '--as-group', 'aggregation-e2e-group'],
    ]);
    expect(JSON.parse(out)).to.deep.equal(resourceList);

    const request = seen.find(
      (r) =>
        r.path.split('?')[0] === DISCOVERY_PATH &&
        r.headers['x-remote-user'] === 'aggregation-e2e-user',
    );
    expect(request, `requests seen: ${JSON.stringify(seen.map((r) => r.path))}`).to.not.equal(
      undefined,
    );
    expect(
      asList(request!.headers['x-remote-group']).flatMap((g) =>
        g.split(',').map((one) => one.trim()),
      ),
    ).to.include.members(['aggregation-e2e-group', 'system:authenticated']);

    expect(request!.clientCert, 'the apiserver sent no client certificate').to.not.equal(undefined);
    const clientCert = new X509Certificate(request!.clientCert!);
    const frontProxy = new X509Certificate(await frontProxyCa());
    expect(clientCert.subject).to.equal('CN=front-proxy-client');
    expect(clientCert.checkIssued(frontProxy), 'issued by the front-proxy CA').to.equal(true);
    expect(clientCert.verify(frontProxy.publicKey), 'signed by the front-proxy CA').to.equal(true);
  });
});
