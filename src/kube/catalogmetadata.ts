// The sync engine's CatalogMetadataWriter over the apiserver: metadata-only, label-selected,
// paginated lists; creates and conditional updates and deletes that resolve the races a
// level-triggered controller meets (an object created meanwhile, a stale resourceVersion).
import type { CatalogMetadata } from '../api/v1/index.js';
import {
  ANNOTATION_CONTENT_OMITTED,
  CATALOG_METADATA_PLURAL,
  GROUP,
  LABEL_CATALOG,
  VERSION,
} from '../api/v1/index.js';
import type {
  CatalogMetadataMeta,
  CatalogMetadataRef,
} from '../controllers/clustercatalog/predicates.js';
import { catalogMetadataRef } from '../controllers/clustercatalog/predicates.js';
import type { ListWatch } from '../controllers/runtime/index.js';
import { labelValue } from '../fbc/index.js';
import type { CatalogMetadataWriter, ExistingObject, ObjectWrite } from '../sync/index.js';
import { metadataFingerprint, ObjectTooLargeError } from '../sync/index.js';
import type { KubeClient } from './client.js';
import { isAlreadyExists, isConflict, isNotFound, isTooLarge } from './errors.js';
import type { ObjectMetadata } from './resource.js';
import { FIELD_MANAGER, Resource } from './resource.js';

const type = { group: GROUP, version: VERSION, plural: CATALOG_METADATA_PLURAL };

export function catalogMetadataSelector(catalog: string): string {
  return `${LABEL_CATALOG}=${labelValue(catalog)}`;
}

/**
 * Whether a field manager other than ours owns fields of spec: someone edited the content by
 * hand (kubectl edit, patch, apply). Our next write takes those fields back.
 */
export function specEditedByOthers(o: ObjectMetadata): boolean {
  return (o.metadata.managedFields ?? []).some(
    (m) => m.manager !== FIELD_MANAGER && m.fieldsV1 !== undefined && 'f:spec' in m.fieldsV1,
  );
}

export function toExisting(o: ObjectMetadata): ExistingObject {
  const owner = o.metadata.ownerReferences?.find((r) => r.controller);
  return {
    name: o.metadata.name,
    uid: o.metadata.uid ?? '',
    resourceVersion: o.metadata.resourceVersion ?? '',
    fingerprint: metadataFingerprint(o.metadata),
    omitted: o.metadata.annotations?.[ANNOTATION_CONTENT_OMITTED] !== undefined,
    ...(owner && { ownerUid: owner.uid }),
    deleting: o.metadata.deletionTimestamp !== undefined,
    specEditedByOthers: specEditedByOthers(o),
  };
}

/** The object of a write (its body), for the rare write that must change it. */
function parse(obj: ObjectWrite): CatalogMetadata {
  return JSON.parse(obj.body.toString('utf8')) as CatalogMetadata;
}

/** Runs a write, turning the apiserver's "too large" refusals into ObjectTooLargeError. */
async function tooLargeAsTyped(name: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    throw isTooLarge(err) ? new ObjectTooLargeError(name, err) : err;
  }
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
      await tooLargeAsTyped(obj.name, async () => {
        try {
          await full.createQuietly(obj.body, signal);
        } catch (err) {
          // An object of that name exists without our catalog label (not listed): take it over.
          if (!isAlreadyExists(err)) throw err;
          const rv = await currentVersion(obj.name, signal);
          const o = parse(obj);
          await full.updateQuietly(
            obj.name,
            { ...o, metadata: { ...o.metadata, resourceVersion: rv } },
            signal,
          );
        }
      });
    },
    async update(obj, signal) {
      await tooLargeAsTyped(obj.name, async () => {
        try {
          await full.updateQuietly(obj.name, obj.body, signal);
        } catch (err) {
          // Changed since we listed it (a hand edit): the desired object wins; retry once on
          // the current version, or create it if it was deleted meanwhile.
          if (!isConflict(err) && !isNotFound(err)) throw err;
          const rv = await currentVersion(obj.name, signal);
          const o = parse(obj);
          const { resourceVersion: _drop, ...metadata } = o.metadata;
          if (rv === undefined) await full.createQuietly({ ...o, metadata }, signal);
          else
            await full.updateQuietly(
              obj.name,
              { ...o, metadata: { ...metadata, resourceVersion: rv } },
              signal,
            );
        }
      });
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

/**
 * A metadata-only ListWatch of every CatalogMetadata, reduced to what maps an object to its
 * catalog and tells a hand edit (~150 bytes an object, never content, no managedFields), for
 * the drift watch.
 */
export function catalogMetadataRefs(client: KubeClient): ListWatch<CatalogMetadataRef> {
  const meta = new Resource<ObjectMetadata>(client, type, true).listWatch();
  const slim = (o: ObjectMetadata): CatalogMetadataRef =>
    catalogMetadataRef(o.metadata as CatalogMetadataMeta, FIELD_MANAGER);
  return {
    list: async (opts, signal) => {
      const page = await meta.list(opts, signal);
      return { ...page, items: page.items.map(slim) };
    },
    watch: (opts, onEvent, signal) => meta.watch(opts, (t, o) => onEvent(t, slim(o)), signal),
  };
}
