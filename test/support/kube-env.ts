// A machine for KubeClient in unit tests: a kubeconfig, read from memory, naming one server with
// a bearer token.
import type { KubeconfigEnv } from '../../src/kube/kubeconfig.js';

export function machineFor(server: string): KubeconfigEnv {
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
