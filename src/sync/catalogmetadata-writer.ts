// The CatalogMetadataWriter over the apiserver, with the sync's policy for the races a
// level-triggered controller meets: an object of that name created meanwhile (taken over), a
// stale resourceVersion or an object deleted meanwhile (the desired object wins), a delete of
// an object already gone (done). The transport is a port: src/kube's Resource satisfies it
// structurally and src/cmd wires it.
import type { CatalogMetadata } from '../api/v1/index.js';
import { ANNOTATION_CONTENT_OMITTED, LABEL_CATALOG, labelValue } from '../api/v1/index.js';
import { isAlreadyExists, isConflict, isNotFound, isTooLarge } from '../kube/errors.js';
import type { ManagedFieldsEntry, SpecLike } from './drift.js';
import { specCoOwned, specDigest } from './drift.js';
import type { CatalogMetadataWriter, ObjectWrite, WriteResponse } from './writer-port.js';
import { ObjectTooLargeError } from './writer-port.js';
import type { ExistingObject } from './plan.js';
import { apiserverLimitLeanFingerprint, metadataFingerprint, wholeContentOmitted } from './plan.js';

/** A CatalogMetadata as a metadata-only list returns it. */
export interface ListedMetadata {
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ uid: string; controller?: boolean }>;
    deletionTimestamp?: string;
    managedFields?: ManagedFieldsEntry[];
  };
}

/** Options of a write; `dryRun` asks the apiserver to admit the write without persisting it. */
export interface WriteOptions {
  dryRun?: boolean;
  /** Called with the answer to each attempt of the request (write pacing, pacing.ts). */
  onResponse?: (r: WriteResponse) => void;
}

/** The CatalogMetadata requests the writer makes (src/kube's Resource<CatalogMetadata>). */
export interface CatalogMetadataObjects {
  get(
    name: string,
    signal?: AbortSignal,
  ): Promise<{
    metadata: { resourceVersion?: string; uid?: string; generation?: number };
    spec?: SpecLike;
  }>;
  createQuietly(
    obj: CatalogMetadata | Buffer | string,
    signal?: AbortSignal,
    opts?: WriteOptions,
  ): Promise<void>;
  updateQuietly(
    name: string,
    obj: CatalogMetadata | Buffer | string,
    signal?: AbortSignal,
    opts?: WriteOptions,
  ): Promise<void>;
  delete(
    name: string,
    preconditions?: { uid?: string },
    signal?: AbortSignal,
    opts?: Pick<WriteOptions, 'onResponse'>,
  ): Promise<void>;
}

/** Metadata-only, paginated lists (src/kube's metadata-only Resource). */
export interface MetadataLister {
  listAll(
    labelSelector: string | undefined,
    pageSize?: number,
    signal?: AbortSignal,
  ): AsyncIterable<ListedMetadata>;
}

export interface CatalogMetadataWriterOptions {
  objects: CatalogMetadataObjects;
  metadata: MetadataLister;
  /** The field manager of the controller's writes: tells its own fields from hand edits. */
  fieldManager: string;
  pageSize?: number;
  /** How many spec digests to remember (per uid and generation); the oldest go first. */
  maxRememberedSpecs?: number;
}

function catalogMetadataSelector(catalog: string): string {
  return `${LABEL_CATALOG}=${labelValue(catalog)}`;
}

export function toExisting(o: ListedMetadata, fieldManager: string): ExistingObject {
  const owner = o.metadata.ownerReferences?.find((r) => r.controller);
  const leanFingerprint = apiserverLimitLeanFingerprint(o.metadata);
  return {
    name: o.metadata.name,
    uid: o.metadata.uid ?? '',
    resourceVersion: o.metadata.resourceVersion ?? '',
    fingerprint: metadataFingerprint(o.metadata),
    ...(leanFingerprint !== undefined && { leanFingerprint }),
    omitted: wholeContentOmitted(o.metadata.annotations?.[ANNOTATION_CONTENT_OMITTED]),
    ...(owner && { ownerUid: owner.uid }),
    deleting: o.metadata.deletionTimestamp !== undefined,
    ...(o.metadata.generation !== undefined && { generation: o.metadata.generation }),
    specCoOwned: specCoOwned(o.metadata.managedFields, fieldManager),
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

export function catalogMetadataWriter(opts: CatalogMetadataWriterOptions): CatalogMetadataWriter {
  const { objects: full, metadata: meta, fieldManager, pageSize = 500 } = opts;
  // The digest of a spec is fixed for an object's uid and generation (the apiserver bumps the
  // generation on every spec change), so a co-owned spec is read once per change, not per resync.
  // Bounded: about 100 bytes an entry; past the cap, the oldest entries are read again.
  const remembered = new Map<string, string>();
  const maxRemembered = opts.maxRememberedSpecs ?? 50_000;
  const remember = (key: string, digest: string) => {
    remembered.delete(key);
    remembered.set(key, digest);
    if (remembered.size > maxRemembered) {
      const oldest = remembered.keys().next().value;
      if (oldest !== undefined) remembered.delete(oldest);
    }
  };

  // The answers to the writes (not the dry-runs, not the reads) go to the observers (pacing.ts).
  const listeners: Array<(r: WriteResponse) => void> = [];
  const observed: WriteOptions = {
    onResponse: (r) => {
      for (const l of listeners) l(r);
    },
  };

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
        yield toExisting(o, fieldManager);
      }
    },
    async liveSpecDigest(have, signal) {
      const key = `${have.uid}/${have.generation ?? ''}`;
      const known = remembered.get(key);
      if (known !== undefined && have.generation !== undefined) return known;
      let live;
      try {
        live = await full.get(have.name, signal);
      } catch (err) {
        if (isNotFound(err)) return undefined; // gone: the plan's update creates it again
        throw err;
      }
      const digest = specDigest(live.spec ?? {});
      const { uid, generation } = live.metadata;
      if (uid !== undefined && generation !== undefined) remember(`${uid}/${generation}`, digest);
      return digest;
    },
    async create(obj, signal) {
      await tooLargeAsTyped(obj.name, async () => {
        try {
          await full.createQuietly(obj.body, signal, observed);
        } catch (err) {
          // An object of that name exists without our catalog label (not listed): take it over.
          if (!isAlreadyExists(err)) throw err;
          const rv = await currentVersion(obj.name, signal);
          const o = parse(obj);
          await full.updateQuietly(
            obj.name,
            { ...o, metadata: { ...o.metadata, resourceVersion: rv } },
            signal,
            observed,
          );
        }
      });
    },
    async update(obj, signal) {
      await tooLargeAsTyped(obj.name, async () => {
        try {
          await full.updateQuietly(obj.name, obj.body, signal, observed);
        } catch (err) {
          // Changed since we listed it (a hand edit): the desired object wins; retry once on
          // the current version, or create it if it was deleted meanwhile.
          if (!isConflict(err) && !isNotFound(err)) throw err;
          const rv = await currentVersion(obj.name, signal);
          const o = parse(obj);
          const { resourceVersion: _drop, ...metadata } = o.metadata;
          if (rv === undefined) await full.createQuietly({ ...o, metadata }, signal, observed);
          else
            await full.updateQuietly(
              obj.name,
              { ...o, metadata: { ...metadata, resourceVersion: rv } },
              signal,
              observed,
            );
        }
      });
    },
    async dryRun(verb, obj, signal) {
      if (verb === 'create') await full.createQuietly(obj.body, signal, { dryRun: true });
      else await full.updateQuietly(obj.name, obj.body, signal, { dryRun: true });
    },
    observeResponses(listener) {
      listeners.push(listener);
    },
    async delete(name, uid, signal) {
      try {
        await full.delete(name, { uid }, signal, observed);
      } catch (err) {
        if (isNotFound(err)) return; // already gone: the goal is reached
        throw err;
      }
    },
  };
  return writer;
}
