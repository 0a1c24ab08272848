// The local cluster's node (NODE=1, hack/cluster-node.sh), with the one image it has without a
// build: the local pause image (hack/pause), whose `serve` and `get` modes answer and send HTTP.
// - the node is Ready and pods of a Deployment run on it under the enforced `restricted`
//   PodSecurity profile (scheduler, kubelet, containerd, runc, CNI);
// - a pod reaches a Service by its DNS name `<service>.<namespace>.svc` (CoreDNS, kube-proxy);
// - the host reaches the Service's ClusterIP (kube-proxy's nftables rules);
// - a pod reaches the apiserver through the `kubernetes` Service (advertised on the node's
//   address, its ServiceAccount token mounted) and pulls from the registry on the node's address.
// Whether `make cluster-down` leaves nothing behind is checked after the suite, by
// `make cluster-down-check` (a recorded check of `make test`).
import { expect } from 'chai';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const restrictedContainer = {
  securityContext: {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    runAsUser: 65532,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  },
};

describe('the local node (NODE=1)', function () {
  this.timeout(5 * 60 * 1000);
  const ns = uniqueName('node');
  let image = '';

  before(function () {
    if (!process.env.NODE_REGISTRY) {
      this.skip(); // a cluster started without NODE=1 (make test always starts the node)
    }
    image = `${process.env.NODE_REGISTRY}/pause:local`;
  });

  before(async function () {
    if (!process.env.NODE_REGISTRY) this.skip();
    await kubectlOk(['create', 'namespace', ns]);
    await kubectlOk([
      'label',
      'namespace',
      ns,
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/enforce-version=latest',
    ]);
  });

  after(async function () {
    if (!process.env.NODE_REGISTRY) return;
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
  });

  async function podLogsWhenDone(name: string): Promise<{ phase: string; logs: string }> {
    const phase = await pollUntil(
      async () => {
        const p = await kubectlOk(['-n', ns, 'get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
        return p === 'Succeeded' || p === 'Failed' ? p : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `pod ${name} to finish` },
    );
    const logs = await kubectlOk(['-n', ns, 'logs', name]);
    return { phase, logs };
  }

  function getterPod(name: string, url: string, extra: Record<string, unknown> = {}) {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'get', image, args: ['get', url], ...restrictedContainer, ...extra }],
      },
    });
  }

  it('is Ready and runs a Deployment behind a Service under the restricted profile', async () => {
    const ready = await kubectlOk([
      'get',
      'node',
      'local-node',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
    ]);
    expect(ready).to.equal('True');
    const labels = { app: 'web' };
    await kubectlOk(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'web', namespace: ns },
            spec: {
              replicas: 2,
              selector: { matchLabels: labels },
              template: {
                metadata: { labels },
                spec: {
                  automountServiceAccountToken: false,
                  securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
                  containers: [
                    {
                      name: 'web',
                      image,
                      args: ['serve', ':8080'],
                      ports: [{ containerPort: 8080 }],
                      readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
                      ...restrictedContainer,
                    },
                  ],
                },
              },
            },
          },
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'web', namespace: ns },
            spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
          },
        ],
      }),
    );
    await kubectlOk(['-n', ns, 'rollout', 'status', 'deployment/web', '--timeout=180s']);
  });

  it('reaches the Service ClusterIP from the host', async () => {
    // Also the wait for kube-proxy to program the new Service before a pod uses it.
    const ip = await kubectlOk([
      '-n',
      ns,
      'get',
      'service',
      'web',
      '-o',
      'jsonpath={.spec.clusterIP}',
    ]);
    const body = await pollUntil(
      async () => {
        const res = await fetch(`http://${ip}/`, { signal: AbortSignal.timeout(5000) });
        return res.ok ? res.text() : undefined;
      },
      { timeoutMs: 60_000, what: `GET http://${ip}/` },
    );
    expect(body).to.match(/^web-/);
  });

  it('resolves <service>.<namespace>.svc in a pod and reaches the Service through it', async () => {
    await kubectlOk(['apply', '-f', '-'], getterPod('dns-get', `http://web.${ns}.svc/`));
    const { phase, logs } = await podLogsWhenDone('dns-get');
    expect(logs, logs).to.match(/^web-/);
    expect(phase).to.equal('Succeeded');
  });

  it('reaches the apiserver from a pod through the kubernetes Service', async () => {
    // The apiserver's TLS is not trusted by the Go default roots: /livez over plain TCP through
    // the ClusterIP fails on the handshake, so the pod asks the readiness of a name it resolves:
    // kubernetes.default.svc must resolve and its port must answer (an HTTP 400 "client sent an
    // HTTP request to an HTTPS server" is an answer from the apiserver itself).
    await kubectlOk(
      ['apply', '-f', '-'],
      getterPod('api-get', 'http://kubernetes.default.svc:443/'),
    );
    const { logs } = await podLogsWhenDone('api-get');
    expect(logs).to.contain('400 Bad Request');
  });
});
