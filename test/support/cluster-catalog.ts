// One ClusterCatalog for the reconcile's unit tests: the catalog 'ops' (uid-1) of an Image source,
// with what a test varies given as overrides.
import type { ClusterCatalog, ClusterCatalogStatus } from '../../src/api/v1/index.js';

export interface CatalogOverrides {
  uid?: string;
  generation?: number;
  /** The image source; by default a tag polled every 10 minutes. */
  image?: { ref: string; pollIntervalMinutes?: number };
  spec?: Partial<ClusterCatalog['spec']>;
  status?: ClusterCatalogStatus;
}

export function clusterCatalog(over: CatalogOverrides = {}): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'ops', uid: over.uid ?? 'uid-1', generation: over.generation ?? 3 },
    spec: {
      source: {
        type: 'Image',
        image: over.image ?? {
          ref: 'registry.example/ops/catalog:latest',
          pollIntervalMinutes: 10,
        },
      },
      priority: 0,
      availabilityMode: 'Available',
      ...over.spec,
    },
    ...(over.status && { status: over.status }),
  };
}
