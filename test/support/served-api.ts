// Puts a server running on this host (a controller process with --api-listen, or a test's own
// HTTPS server), not in a pod, behind the APIService of the served group, so that requests to
// /apis/content.olm.operatorframework.io/v1 through the local apiserver reach it. The apiserver
// proxies to an APIService's endpoint addresses (hack/cluster.sh: --enable-aggregator-routing),
// so the Service has no selector and an EndpointSlice of our own names this host's address:
// HOST_IP from .local/env (the default route's address), never loopback, which the apiserver
// refuses as an endpoint. The server must listen on that address (or on all of them).
import os from 'node:os';
import { SERVED_GROUP, VERSION as SERVED_VERSION } from '../../src/api/v1/index.js';
import { readClusterEnv } from './cluster.js';
import { kubectl, kubectlOk } from './kubectl.js';
import { pollUntil } from './poll.js';

/** The APIService's name: `<version>.<group>`; one group-version has one backend. */
export const SERVED_API_SERVICE = `${SERVED_VERSION}.${SERVED_GROUP}`;

export interface RegisterServedApiOptions {
  /** The port the server listens on, on this host. */
  port: number;
  /** PEM of the CA that signed the server's certificate (the APIService's caBundle). */
  caBundle: string;
  /**
   * Namespace and name of the selector-less Service; the server's certificate must name
   * `<service>.<namespace>.svc` (hack/serving-cert.sh --service --namespace makes one).
   */
  namespace?: string;
  service?: string;
  /** The address the apiserver connects to (default: hostAddress()). */
  host?: string;
}

export interface ServedApiRegistration {
  /** The address and port the apiserver proxies to. */
  host: string;
  port: number;
  /** Deletes the APIService, the Service and the EndpointSlice, and waits until they are gone. */
  unregister(): Promise<void>;
}

/**
 * The address of this host the apiserver reaches a backend on: HOST_IP of .local/env, else the
 * first non-internal IPv4 address of this machine.
 */
function hostAddress(): string {
  let fromEnv: string | undefined;
  try {
    fromEnv = readClusterEnv().HOST_IP;
  } catch {
    fromEnv = undefined; // no .local/env: a cluster not started by hack/cluster.sh
  }
  if (fromEnv) return fromEnv;
  for (const addrs of Object.values(os.networkInterfaces())) {
    const v4 = addrs?.find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) return v4.address;
  }
  throw new Error('this host has no non-loopback IPv4 address for the apiserver to reach');
}

/** The Service, its EndpointSlice and the APIService, as one List for kubectl apply|delete. */
function servedApiObjects(o: Required<RegisterServedApiOptions>): string {
  const labels = { 'app.kubernetes.io/name': 'catalogd-ts-served-e2e' };
  const items = [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: o.service, namespace: o.namespace, labels },
      spec: { ports: [{ name: 'https', port: 443, targetPort: o.port, protocol: 'TCP' }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: o.service,
        namespace: o.namespace,
        labels: {
          ...labels,
          'kubernetes.io/service-name': o.service,
          // Not the endpointslice controller's: it leaves a slice it does not manage alone.
          'endpointslice.kubernetes.io/managed-by': 'e2e.catalogd-ts.dev',
        },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [o.host], conditions: { ready: true } }],
      ports: [{ name: 'https', port: o.port, protocol: 'TCP' }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: SERVED_API_SERVICE, labels },
      spec: {
        group: SERVED_GROUP,
        version: SERVED_VERSION,
        service: { namespace: o.namespace, name: o.service, port: 443 },
        caBundle: Buffer.from(o.caBundle).toString('base64'),
        // As config/served: below the CRD groups' 1000, so that where both serve `catalogmetadata`
        // (these tests, beside the CRD mode's) kubectl's short name means the CRD's; the group's
        // only version.
        groupPriorityMinimum: 100,
        versionPriority: 15,
      },
    },
  ];
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

interface ApiServiceStatus {
  status?: {
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

/**
 * Registers the server at `port` of this host as the served group's backend and waits until the
 * apiserver reports the APIService Available (it probed the server's discovery document), or
 * fails naming the APIService's last reason and message.
 */
export async function registerServedApi(
  opts: RegisterServedApiOptions,
): Promise<ServedApiRegistration> {
  const o: Required<RegisterServedApiOptions> = {
    namespace: 'default',
    service: 'catalogd-ts-served-e2e',
    host: hostAddress(),
    ...opts,
  };
  const objects = servedApiObjects(o);
  const unregister = async () => {
    await kubectl(['delete', '--ignore-not-found', '--wait=true', '-f', '-'], objects);
    await forgetServedGroup();
  };
  await kubectlOk(['apply', '-f', '-'], objects);
  try {
    await pollUntil(
      async () => {
        const raw = await kubectlOk(['get', 'apiservice', SERVED_API_SERVICE, '-o', 'json']);
        const available = (JSON.parse(raw) as ApiServiceStatus).status?.conditions?.find(
          (c) => c.type === 'Available',
        );
        if (available?.status === 'True') return true;
        throw new Error(
          `APIService ${SERVED_API_SERVICE} is not Available: ${available?.reason ?? 'no condition'}: ${available?.message ?? ''}`,
        );
      },
      { timeoutMs: 60_000, what: `APIService ${SERVED_API_SERVICE} to become Available` },
    );
  } catch (err) {
    await unregister(); // the caller gets no registration to unregister
    throw err;
  }
  return { host: o.host, port: o.port, unregister };
}

/**
 * Once the APIService is deleted: waits until discovery no longer lists the served group, which
 * also refreshes kubectl's discovery cache (`api-resources` reads discovery anew and rewrites it).
 * Without it, later kubectl calls in the run resolve `catalogmetadata` to the served group from
 * the cache and get NotFound (where both groups serve it, the CRD's sorts first: its priority).
 */
export async function forgetServedGroup(): Promise<void> {
  await pollUntil(
    async () =>
      (await kubectlOk(['api-resources', '--api-group', SERVED_GROUP, '-o', 'name'])).trim() === '',
    { timeoutMs: 60_000, what: `discovery to drop ${SERVED_GROUP}` },
  );
}

/** The front-proxy CA the apiserver publishes for aggregated apiservers, as PEM. */
export async function frontProxyCa(): Promise<string> {
  const raw = await kubectlOk([
    ...['-n', 'kube-system', 'get', 'configmap', 'extension-apiserver-authentication'],
    ...['-o', 'jsonpath={.data.requestheader-client-ca-file}'],
  ]);
  if (!raw.includes('BEGIN CERTIFICATE')) {
    throw new Error(
      'kube-system/extension-apiserver-authentication has no requestheader-client-ca-file: the apiserver runs without --requestheader-client-ca-file',
    );
  }
  return raw;
}
