import { expect } from 'chai';
import type { ClientCredentials, KubeconfigEnv } from './kubeconfig.js';
import { KubeconfigError, loadConnection, mergeKubeconfigs } from './kubeconfig.js';

function machine(
  files: Record<string, string>,
  env: Record<string, string | undefined> = {},
): KubeconfigEnv {
  return {
    env,
    home: '/home/u',
    readFile: (f) => (f in files ? Buffer.from(files[f]!) : undefined),
    serviceAccountDir: '/sa',
  };
}

const delegated: ClientCredentials = { headers: { authorization: 'Bearer from-exec' } };
const delegate = async (): Promise<ClientCredentials> => delegated;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

const certConfig = `
apiVersion: v1
kind: Config
current-context: local
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: ca.crt
contexts:
- name: local
  context: {cluster: local, user: admin, namespace: ops}
users:
- name: admin
  user:
    client-certificate-data: ${b64('CERT')}
    client-key: keys/admin.key
`;

describe('kubeconfig', () => {
  it('reads ~/.kube/config with files relative to it and inline data', async () => {
    const conn = loadConnection(
      undefined,
      machine({
        '/home/u/.kube/config': certConfig,
        '/home/u/.kube/ca.crt': 'CA',
        '/home/u/.kube/keys/admin.key': 'KEY',
      }),
      delegate,
    );
    expect(conn.server.href).to.equal('https://127.0.0.1:6443/');
    expect(conn.namespace).to.equal('ops');
    expect(conn.ca?.toString()).to.equal('CA');
    expect(conn.rejectUnauthorized).to.equal(true);
    const creds = await conn.credentials();
    expect(creds.cert?.toString()).to.equal('CERT');
    expect(creds.key?.toString()).to.equal('KEY');
    expect(creds.headers).to.deep.equal({});
  });

  it('merges $KUBECONFIG files: the first to set a name or current-context wins', async () => {
    const a = `
current-context: b-ctx
users:
- name: u
  user: {token: first}
`;
    const b = `
current-context: ignored
clusters:
- name: c
  cluster: {server: 'https://b:1', insecure-skip-tls-verify: true, tls-server-name: api}
contexts:
- name: b-ctx
  context: {cluster: c, user: u}
users:
- name: u
  user: {token: second}
`;
    const conn = loadConnection(
      undefined,
      machine({ '/a': a, '/b': b }, { KUBECONFIG: '/missing:/a:/b' }),
      delegate,
    );
    expect(conn.server.host).to.equal('b:1');
    expect(conn.rejectUnauthorized).to.equal(false);
    expect(conn.servername).to.equal('api');
    expect((await conn.credentials()).headers).to.deep.equal({ authorization: 'Bearer first' });
  });

  it('re-reads a tokenFile each time and supports basic auth', async () => {
    const files: Record<string, string> = {
      '/k': `
current-context: x
clusters: [{name: c, cluster: {server: 'http://h:8080'}}]
contexts: [{name: x, context: {cluster: c, user: t}}, {name: y, context: {cluster: c, user: p}}]
users:
- {name: t, user: {tokenFile: /tok}}
- {name: p, user: {username: me, password: pw}}
`,
      '/tok': 'one\n',
    };
    const env = machine(files);
    const conn = loadConnection('/k', env, delegate);
    expect((await conn.credentials()).headers.authorization).to.equal('Bearer one');
    files['/tok'] = 'two';
    expect((await conn.credentials()).headers.authorization).to.equal('Bearer two');

    const basic = loadConnection('/k', env, delegate);
    expect(basic.server.protocol).to.equal('http:');
    files['/k'] = files['/k']!.replace('current-context: x', 'current-context: y');
    const p = loadConnection('/k', env, delegate);
    expect((await p.credentials()).headers.authorization).to.equal(`Basic ${b64('me:pw')}`);
  });

  it('hands exec and auth-provider users to the delegate', async () => {
    const conn = loadConnection(
      '/k',
      machine({
        '/k': `
current-context: x
clusters: [{name: c, cluster: {server: 'https://h'}}]
contexts: [{name: x, context: {cluster: c, user: e}}]
users: [{name: e, user: {exec: {command: aws, apiVersion: client.authentication.k8s.io/v1}}}]
`,
      }),
      delegate,
    );
    expect(await conn.credentials()).to.equal(delegated);
  });

  it('falls back to the in-cluster ServiceAccount', async () => {
    const env = machine(
      { '/sa/token': 'sa-token\n', '/sa/ca.crt': 'CA', '/sa/namespace': 'olmv1-system' },
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
    );
    const conn = loadConnection(undefined, env, delegate);
    expect(conn.server.href).to.equal('https://[fd00::1]/');
    expect(conn.namespace).to.equal('olmv1-system');
    expect(conn.ca?.toString()).to.equal('CA');
    expect((await conn.credentials()).headers.authorization).to.equal('Bearer sa-token');
  });

  it('says what is missing', () => {
    const fail = (files: Record<string, string>, explicit?: string): string => {
      try {
        loadConnection(explicit, machine(files), delegate);
      } catch (err) {
        expect(err).to.be.instanceOf(KubeconfigError);
        return (err as Error).message;
      }
      throw new Error('no error');
    };
    expect(fail({})).to.match(/^no kubeconfig \(looked for \/home\/u\/\.kube\/config\)/);
    expect(fail({}, '/nope')).to.equal('kubeconfig /nope: no such file');
    expect(fail({ '/k': 'clusters: []' }, '/k')).to.equal(
      'kubeconfig /k: current-context is not set',
    );
    expect(fail({ '/k': 'current-context: x' }, '/k')).to.equal(
      'kubeconfig /k: context x not found',
    );
    expect(
      fail({ '/k': 'current-context: x\ncontexts: [{name: x, context: {cluster: c}}]' }, '/k'),
    ).to.equal('kubeconfig /k: cluster c of context x not found');
    expect(fail({ '/k': 'a: [' }, '/k')).to.equal('kubeconfig /k: not valid YAML');
  });

  it('a certificate without its key is an error', async () => {
    const text = `
current-context: x
clusters: [{name: c, cluster: {server: 'https://h'}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
users: [{name: u, user: {client-certificate-data: ${b64('C')}}}]
`;
    expect(mergeKubeconfigs([{ file: '/k', text }]).users.get('u')?.dir).to.equal('/');
    const conn = loadConnection('/k', machine({ '/k': text }), delegate);
    let message = '';
    await conn.credentials().catch((err: Error) => (message = err.message));
    expect(message).to.equal(
      'kubeconfig /k context x: user u: a client certificate needs both certificate and key',
    );
  });
});
