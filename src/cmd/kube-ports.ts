// src/kube is a leaf transport; the consumers the controller program builds itself (the sync's
// writer, the image source's pull secrets) own the narrow interfaces it serves. This file plugs
// the one into the others; the ClusterCatalog controller's own adapters are in its setup
// (src/controllers/clustercatalog/setup/kube-adapters.ts).
import type { CatalogMetadata } from '../api/v1/index.js';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../api/v1/index.js';
import type { KubeClient, ObjectMetadata, PullSecretOptions } from '../kube/index.js';
import { FIELD_MANAGER, Resource, pullSecretReader } from '../kube/index.js';
import type { PullSecretSource } from '../source/index.js';
import { parseDockerConfigJSON } from '../source/index.js';
import type { CatalogMetadataWriter } from '../sync/index.js';
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
