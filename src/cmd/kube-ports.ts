// src/kube is a leaf transport; the consumers (the sync, the drift watch, the image source)
// own the narrow interfaces it serves. This file plugs the one into the others.
import type { CatalogMetadata, ClusterCatalog } from '../api/v1/index.js';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../api/v1/index.js';
import type { ClusterCatalogAPI } from '../controllers/clustercatalog/controller.js';
import { eventTarget } from '../controllers/clustercatalog/controller.js';
import type { CatalogMetadataRef } from '../controllers/clustercatalog/predicates.js';
import { catalogMetadataRef } from '../controllers/clustercatalog/predicates.js';
import type { ListWatch } from '../controllers/runtime/index.js';
import type {
  EventRecorder,
  KubeClient,
  ObjectMetadata,
  PullSecretOptions,
} from '../kube/index.js';
import { FIELD_MANAGER, Resource, pullSecretReader } from '../kube/index.js';
import type { PullSecretSource } from '../source/index.js';
import { parseDockerConfigJSON } from '../source/index.js';
import type { CatalogMetadataWriter, WriteRateLimit } from '../sync/index.js';
import { catalogMetadataWriter } from '../sync/index.js';

const type = { group: GROUP, version: VERSION, plural: CATALOG_METADATA_PLURAL };

/** The sync's CatalogMetadataWriter over the apiserver. */
export function apiserverCatalogMetadataWriter(
  client: KubeClient,
  pageSize = 500,
): CatalogMetadataWriter {
  return catalogMetadataWriter({
    objects: new Resource<CatalogMetadata>(client, type),
    metadata: new Resource<ObjectMetadata>(client, type, { metadataOnly: true }),
    fieldManager: FIELD_MANAGER,
    pageSize,
  });
}

/**
 * A metadata-only ListWatch of every CatalogMetadata, reduced to what maps an object to its
 * catalog and tells a hand edit (~150 bytes an object, never content, no managedFields), for
 * the drift watch. It watches in protobuf: one event per write of every sync, which the
 * apiserver encodes for less CPU than in JSON and sends in 25% fewer bytes; the controller reads
 * either for about the same CPU (bench/README.md, stop 43).
 */
export function catalogMetadataRefs(client: KubeClient): ListWatch<CatalogMetadataRef> {
  const meta = new Resource<ObjectMetadata>(client, type, {
    metadataOnly: true,
    protobufWatch: true,
  }).listWatch();
  const slim = (o: ObjectMetadata): CatalogMetadataRef =>
    catalogMetadataRef(o.metadata, FIELD_MANAGER);
  return {
    list: async (opts, signal) => {
      const page = await meta.list(opts, signal);
      return { ...page, items: page.items.map(slim) };
    },
    watch: (opts, onEvent, signal) => meta.watch(opts, (t, o) => onEvent(t, slim(o)), signal),
  };
}

/** The image source's pull secrets: read by src/kube, parsed by src/source. */
export function pullSecretSource(client: KubeClient, opts: PullSecretOptions): PullSecretSource {
  const reader = pullSecretReader(client, opts);
  return {
    async dockerConfigs() {
      return (await reader.dockerConfigSecrets()).map(({ secret, json }) => {
        try {
          return parseDockerConfigJSON(json);
        } catch (err) {
          throw new Error(`read pull secret ${secret}`, { cause: err });
        }
      });
    },
  };
}

/**
 * The ClusterCatalog controller's writes: metadata and status merge patches, each conditional
 * on the resourceVersion it was computed from (the apiserver answers 409 if it moved on), and
 * events. With `writeRate` (--max-write-rate), each takes its slot of the process's ceiling, as
 * CatalogMetadata writes do: every write moves etcd's revision alike.
 */
export function clusterCatalogAPI(
  catalogs: Resource<ClusterCatalog>,
  events: EventRecorder,
  writeRate?: WriteRateLimit,
): ClusterCatalogAPI {
  const slot = async () => writeRate?.acquire();
  return {
    patchMetadata: async (name, metadata, resourceVersion) => {
      await slot();
      return catalogs.mergePatch(name, { metadata: { ...metadata, resourceVersion } });
    },
    patchStatus: async (name, status, resourceVersion) => {
      await slot();
      return catalogs.mergePatch(name, { metadata: { resourceVersion }, status }, 'status');
    },
    recordEvent: async (catalog, e) => {
      await slot();
      await events.record(eventTarget(catalog), e.type, e.reason, e.message);
    },
  };
}
