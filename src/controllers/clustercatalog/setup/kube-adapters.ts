// src/kube is a leaf transport; the ClusterCatalog controller's ports it serves are plugged in
// here: the drift watch's metadata-only ListWatch and the controller's ClusterCatalog writes.
import type { ClusterCatalog } from '../../../api/v1/index.js';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../../../api/v1/index.js';
import type { ClusterCatalogAPI } from '../controller.js';
import { eventTarget } from '../controller.js';
import type { CatalogMetadataRef } from './predicates.js';
import { catalogMetadataRef } from './predicates.js';
import type { ListWatch } from '../../runtime/index.js';
import type { EventRecorder, KubeClient, ObjectMetadata } from '../../../kube/index.js';
import { FIELD_MANAGER, Resource } from '../../../kube/index.js';
import type { WriteRateLimit } from '../../../sync/index.js';

const type = { group: GROUP, version: VERSION, plural: CATALOG_METADATA_PLURAL };

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
