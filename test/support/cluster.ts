// The local control plane and registry, as the e2e tests see them: started once per test run by
// hack/cluster.sh (or reused when one is already running, e.g. after `make cluster-up`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const clusterScript = path.join(repoRoot, 'hack', 'cluster.sh');
export const localDir = process.env.CATALOGD_LOCAL ?? path.join(repoRoot, '.local');

export interface ClusterEnv {
  /** Admin kubeconfig of the local apiserver. */
  KUBECONFIG: string;
  /** host:port of the local registry (plain HTTP on 127.0.0.1). */
  REGISTRY: string;
  /** Directory with the kubectl (and control-plane binaries) matching the apiserver's version. */
  KUBE_BIN_DIR: string;
  /** The host's non-loopback address, where the apiserver reaches APIService backends on it. */
  HOST_IP?: string;
  /** With a node (NODE=1): the node's address, where pods reach the host. */
  NODE_IP?: string;
  /** With a node: host:port of the same registry as pods (and containerd) reach it. */
  NODE_REGISTRY?: string;
}

function isRunning(): boolean {
  try {
    execFileSync(clusterScript, ['status'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function readClusterEnv(): ClusterEnv {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path.join(localDir, 'env'), 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  for (const key of ['KUBECONFIG', 'REGISTRY', 'KUBE_BIN_DIR'] as const) {
    if (!env[key]) throw new Error(`${localDir}/env has no ${key}`);
  }
  return env as unknown as ClusterEnv;
}

/** Starts the cluster unless one is running. Returns whether this call started it. */
export function ensureCluster(): boolean {
  if (isRunning()) return false;
  execFileSync(clusterScript, ['up'], { stdio: ['ignore', 'inherit', 'inherit'] });
  return true;
}

export function stopCluster(): void {
  execFileSync(clusterScript, ['down'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
