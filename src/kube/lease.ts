// The controller runtime's LeaseClient over coordination.k8s.io/v1 Leases of one namespace.
import type { Lease, LeaseClient, LeaseSpec } from '../controllers/runtime/index.js';
import { LeaseConflictError } from '../controllers/runtime/index.js';
import type { KubeClient } from './client.js';
import { isNotFound, KubeApiError } from './errors.js';
import { Resource } from './resource.js';

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

function conflictOr(err: unknown): unknown {
  return err instanceof KubeApiError && err.status === 409 ? new LeaseConflictError() : err;
}

export function leaseClient(client: KubeClient, namespace: string): LeaseClient {
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
      try {
        return toLease(
          await leases.create(
            {
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: { name, namespace },
              spec,
            },
            signal,
          ),
        );
      } catch (err) {
        throw conflictOr(err);
      }
    },
    async update(name, lease, signal) {
      try {
        return toLease(
          await leases.update(
            {
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: { name, namespace, resourceVersion: lease.resourceVersion },
              spec: lease.spec,
            },
            signal,
          ),
        );
      } catch (err) {
        throw conflictOr(err);
      }
    },
  };
}
