// Mocha root hooks for the e2e suite: bring the local control plane and registry up once per run
// (or reuse a running one) and export KUBECONFIG, REGISTRY and KUBE_BIN_DIR to the tests.
// The cluster is torn down at the end only if this run started it.
import { ensureCluster, readClusterEnv, stopCluster } from '../support/cluster.js';

let startedHere = false;

export const mochaHooks = {
  beforeAll(this: Mocha.Context): void {
    this.timeout(60 * 60 * 1000); // the first run builds the control plane from source
    startedHere = ensureCluster();
    const env = readClusterEnv();
    process.env.KUBECONFIG = env.KUBECONFIG;
    process.env.REGISTRY = env.REGISTRY;
    process.env.KUBE_BIN_DIR = env.KUBE_BIN_DIR;
    if (env.NODE_REGISTRY) process.env.NODE_REGISTRY = env.NODE_REGISTRY;
    if (env.NODE_IP) process.env.NODE_IP = env.NODE_IP;
    process.env.PATH = `${env.KUBE_BIN_DIR}:${process.env.PATH ?? ''}`;
  },
  afterAll(this: Mocha.Context): void {
    this.timeout(120 * 1000);
    if (startedHere && !process.env.CATALOGD_KEEP_CLUSTER) stopCluster();
  },
};
