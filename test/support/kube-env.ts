// For KubeClient unit tests: a kubeconfig read from memory, and a loopback server to point it at.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeconfigEnv } from '../../src/kube/kubeconfig.js';

/** A machine whose kubeconfig names `server` with a bearer token. */
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

/**
 * A loopback HTTP server that answers every request `{}` and records what `describe` says of
 * each (by default its request line).
 */
export async function recordingServer(
  describe: (req: http.IncomingMessage) => string = (req) => `${req.method} ${req.url}`,
): Promise<{ port: number; seen: string[]; close(): void }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(describe(req));
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen, close: () => server.close() };
}
