// coordination.k8s.io/v1 Leases of one namespace. The controller runtime's LeaseClient port
// (src/controllers/runtime/leader.ts) is written in the Lease shapes below, and leaseClient()
// satisfies it structurally. A write that loses the race fails with the apiserver's 409
// (KubeApiError, code 409), which is what the port asks for.
import type { KubeClient } from './client.js';
import { isNotFound } from './errors.js';
import { Resource } from './resource.js';

/** coordination.k8s.io/v1 LeaseSpec fields used by leader election. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime, e.g. 2026-01-01T00:00:00.000000Z. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  resourceVersion: string;
  spec: LeaseSpec;
}

/** get, create and update of one namespace's Leases, each returning the stored Lease. */
export interface Leases {
  get(name: string, signal?: AbortSignal): Promise<Lease | null>;
  create(name: string, spec: LeaseSpec, signal?: AbortSignal): Promise<Lease>;
  update(name: string, lease: Lease, signal?: AbortSignal): Promise<Lease>;
}
interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

const toLease = (o: LeaseObject): Lease => ({
  resourceVersion: o.metadata.resourceVersion ?? '',
  spec: o.spec ?? {},
});

export function leaseClient(client: KubeClient, namespace: string): Leases {
  const leases = new Resource<LeaseObject>(client, {
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    namespace,
  });
  return {
    async get(name, signal) {
      try {
        return toLease(await leases.get(name, signal));
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },
    async create(name, spec, signal) {
      const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec };
      return toLease(await leases.create({ ...lease, metadata: { name, namespace } }, signal));
    },
    async update(name, lease, signal) {
      const object = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: lease.spec };
      const metadata = { name, namespace, resourceVersion: lease.resourceVersion };
      return toLease(await leases.update({ ...object, metadata }, signal));
    },
  };
}
