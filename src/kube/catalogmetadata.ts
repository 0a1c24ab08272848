// The sync engine's CatalogMetadataWriter over the apiserver: metadata-only, label-selected,
// paginated lists; creates and conditional updates and deletes that resolve the races a
// level-triggered controller meets (an object created meanwhile, a stale resourceVersion).
import type { CatalogMetadata } from '../api/v1/index.js';
import { CATALOG_METADATA_PLURAL, GROUP, LABEL_CATALOG, VERSION } from '../api/v1/index.js';
import { labelValue } from '../fbc/index.js';
import type { CatalogMetadataWriter, ExistingObject } from '../sync/index.js';
import type { KubeClient } from './client.js';
import { isAlreadyExists, isConflict, isNotFound } from './errors.js';
import type { ObjectMetadata } from './resource.js';
import { Resource } from './resource.js';

const type = { group: GROUP, version: VERSION, plural: CATALOG_METADATA_PLURAL };

export function catalogMetadataSelector(catalog: string): string {
  return `${LABEL_CATALOG}=${labelValue(catalog)}`;
}

export function toExisting(o: ObjectMetadata): ExistingObject {
  const owner = o.metadata.ownerReferences?.find((r) => r.controller);
  return {
    name: o.metadata.name,
    uid: o.metadata.uid ?? '',
    resourceVersion: o.metadata.resourceVersion ?? '',
    labels: o.metadata.labels ?? {},
    annotations: o.metadata.annotations ?? {},
    ...(owner && { ownerUid: owner.uid }),
    deleting: o.metadata.deletionTimestamp !== undefined,
  };
}

export function catalogMetadataWriter(client: KubeClient, pageSize = 500): CatalogMetadataWriter {
  const full = new Resource<CatalogMetadata>(client, type);
  const meta = new Resource<ObjectMetadata>(client, type, true);

  async function currentVersion(name: string, signal?: AbortSignal): Promise<string | undefined> {
    try {
      return (await full.get(name, signal)).metadata.resourceVersion;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  const writer: CatalogMetadataWriter = {
    async *listExisting(catalog, signal) {
      for await (const o of meta.listAll(catalogMetadataSelector(catalog), pageSize, signal)) {
        yield toExisting(o);
      }
    },
    async create(obj, signal) {
      try {
        await full.create(obj, signal);
      } catch (err) {
        // An object of that name exists without our catalog label (not listed): take it over.
        if (!isAlreadyExists(err)) throw err;
        const rv = await currentVersion(obj.metadata.name, signal);
        await full.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: rv } }, signal);
      }
    },
    async update(obj, signal) {
      try {
        await full.update(obj, signal);
      } catch (err) {
        // Changed since we listed it (a hand edit): the desired object wins; retry once on
        // the current version, or create it if it was deleted meanwhile.
        if (!isConflict(err) && !isNotFound(err)) throw err;
        const rv = await currentVersion(obj.metadata.name, signal);
        const { resourceVersion: _drop, ...metadata } = obj.metadata;
        if (rv === undefined) await full.create({ ...obj, metadata }, signal);
        else await full.update({ ...obj, metadata: { ...metadata, resourceVersion: rv } }, signal);
      }
    },
    async delete(name, uid, signal) {
      try {
        await full.delete(name, { uid }, signal);
      } catch (err) {
        if (isNotFound(err)) return; // already gone: the goal is reached
        throw err;
      }
    },
  };
  return writer;
}
