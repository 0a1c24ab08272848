// The sync engine: make a catalog's CatalogMetadata objects match an unpacked catalog with the
// fewest writes. Two passes over the catalog on disk keep memory bounded whatever its size:
//   scan   parse every blob, build and validate its object, keep name → fingerprint only;
//   apply  after planning against a metadata-only list, parse again and write only the objects
//          the plan names, a bounded number at a time.
import type { CatalogMetadata, OwnerReference } from '../api/v1/index.js';
import { API_VERSION, OMITTED_APISERVER_LIMIT } from '../api/v1/index.js';
import type { Blob } from '../fbc/index.js';
import {
  CatalogHasher,
  isDNS1123Subdomain,
  isValidLabelValue,
  readCatalog,
  toCatalogMetadata,
} from '../fbc/index.js';
import type { ExistingObject, Fingerprint, SyncPlan } from './plan.js';
import { metadataFingerprint, planSync } from './plan.js';

/** Access to CatalogMetadata objects; the entry point wires it to the apiserver. */
export interface CatalogMetadataWriter {
  /** Objects labelled as this catalog's, metadata only, paginated. */
  listExisting(catalog: string, signal?: AbortSignal): AsyncIterable<ExistingObject>;
  create(obj: CatalogMetadata, signal?: AbortSignal): Promise<void>;
  /** Replace; metadata.resourceVersion is set and makes it conditional. */
  update(obj: CatalogMetadata, signal?: AbortSignal): Promise<void>;
  delete(name: string, uid: string, signal?: AbortSignal): Promise<void>;
}

export interface SyncTarget {
  /** The owning ClusterCatalog. */
  catalog: { name: string; uid: string };
  /** The unpacked catalog directory. */
  dir: string;
  maxObjectBytes: number;
  /** The HTTP URL of a blob, for objects whose content is omitted. */
  contentUrl: (blob: Blob) => string;
}

export interface ScanResult {
  /** Object name → objectFingerprint. */
  desired: Map<string, Fingerprint>;
  contentHash: string;
  blobs: number;
  /** Objects that --max-object-bytes makes carry contentOmitted instead of content. */
  omitted: number;
  /** Bytes of canonical blob content. */
  bytes: number;
}

export interface SyncResult extends ScanResult {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/**
 * The apiserver refused an object whole because of its size (etcd's request limit, the
 * apiserver's body limit). The writer throws it so the engine can write the object again
 * with its content omitted.
 */
export class ObjectTooLargeError extends Error {
  constructor(
    readonly object: string,
    cause: unknown,
  ) {
    super(`CatalogMetadata ${object} is too large for the apiserver`, { cause });
    this.name = 'ObjectTooLargeError';
  }
}

/** A write the apiserver refused; names the object so the status can say which. */
export class SyncWriteError extends Error {
  constructor(
    readonly verb: 'create' | 'update' | 'delete',
    readonly object: string,
    cause: unknown,
  ) {
    super(`${verb} CatalogMetadata ${object}`, { cause });
    this.name = 'SyncWriteError';
  }
}

export function ownerReference(catalog: { name: string; uid: string }): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterCatalog',
    name: catalog.name,
    uid: catalog.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function buildObject(
  blob: Blob,
  target: SyncTarget,
  omitContent?: typeof OMITTED_APISERVER_LIMIT,
): CatalogMetadata {
  return toCatalogMetadata(blob, {
    ownerReference: ownerReference(target.catalog),
    maxObjectBytes: target.maxObjectBytes,
    contentUrl: target.contentUrl,
    ...(omitContent && { omitContent }),
  });
}

/** Client-side validation of an object before anything is written (SPEC §3.3). */
export function validateObject(obj: CatalogMetadata, maxObjectBytes: number): string | undefined {
  const name = obj.metadata.name;
  if (!isDNS1123Subdomain(name))
    return `object name ${JSON.stringify(name)} is not a DNS-1123 subdomain`;
  for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
    if (!isValidLabelValue(v))
      return `object ${name}: label ${k}=${JSON.stringify(v)} is not a valid label value`;
  }
  if (obj.spec.content === undefined) {
    const size = Buffer.byteLength(JSON.stringify(obj));
    if (size > maxObjectBytes) return `object ${name} is ${size} bytes even without its content`;
  }
  return undefined;
}

/** Pass 1: parse and validate the whole catalog, keeping only name → fingerprint. */
export async function scanCatalog(target: SyncTarget, signal?: AbortSignal): Promise<ScanResult> {
  const desired = new Map<string, Fingerprint>();
  const hasher = new CatalogHasher();
  let omitted = 0;
  let bytes = 0;
  for await (const blob of readCatalog(target.dir, { catalog: target.catalog.name })) {
    signal?.throwIfAborted();
    const obj = buildObject(blob, target);
    const invalid = validateObject(obj, target.maxObjectBytes);
    if (invalid) throw new Error(`invalid CatalogMetadata: ${invalid}`);
    if (desired.has(obj.metadata.name)) {
      // Names are injective over identities and identities are unique (src/fbc), so this is a bug.
      throw new Error(`two blobs map to the object name ${obj.metadata.name}`);
    }
    desired.set(obj.metadata.name, metadataFingerprint(obj.metadata));
    hasher.add(blob.hash);
    if (obj.spec.contentOmitted) omitted++;
    bytes += blob.bytes;
  }
  return { desired, contentHash: hasher.digest(), blobs: desired.size, omitted, bytes };
}

/** Runs tasks with at most `limit` in flight; stops starting new ones after the first failure. */
async function runBounded(tasks: AsyncIterable<() => Promise<void>>, limit: number): Promise<void> {
  const inflight = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  for await (const task of tasks) {
    if (failure) break;
    const p = task().then(
      () => void inflight.delete(p),
      (err: unknown) => {
        inflight.delete(p);
        failure ??= { err };
      },
    );
    inflight.add(p);
    if (inflight.size >= limit) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  if (failure) throw failure.err;
}

export interface ApplyResult {
  /** Objects written with contentOmitted (by --max-object-bytes or the apiserver's limit). */
  omitted: number;
}

export interface ApplyOptions {
  concurrency: number;
  signal?: AbortSignal;
  /** Called after each write with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Pass 2: perform the plan, re-reading only the blobs it writes. An object the apiserver
 * refuses as too large is written again with its content omitted (OMITTED_APISERVER_LIMIT):
 * nothing is lost, its content stays on the HTTP server.
 */
export async function applyPlan(
  target: SyncTarget,
  plan: SyncPlan,
  writer: CatalogMetadataWriter,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const total = plan.create.length + plan.update.length + plan.delete.length;
  let done = 0;
  let omitted = 0;
  const progress = () => opts.onProgress?.(++done, total);
  const write = async (
    verb: 'create' | 'update',
    blob: Blob,
    obj: CatalogMetadata,
  ): Promise<void> => {
    const send = (o: CatalogMetadata) =>
      verb === 'create' ? writer.create(o, signal) : writer.update(o, signal);
    try {
      try {
        await send(obj);
      } catch (err) {
        if (!(err instanceof ObjectTooLargeError) || obj.spec.contentOmitted) throw err;
        obj = buildObject(blob, target, OMITTED_APISERVER_LIMIT);
        if (verb === 'update') obj.metadata.resourceVersion = toUpdate.get(obj.metadata.name);
        await send(obj);
      }
    } catch (err) {
      throw new SyncWriteError(verb, obj.metadata.name, err);
    }
    if (obj.spec.contentOmitted) omitted++;
    progress();
  };
  const toCreate = new Set(plan.create);
  const toUpdate = new Map(plan.update.map((u) => [u.name, u.resourceVersion]));
  const { signal } = opts;

  async function* tasks(): AsyncGenerator<() => Promise<void>> {
    if (toCreate.size + toUpdate.size > 0) {
      for await (const blob of readCatalog(target.dir, { catalog: target.catalog.name })) {
        const obj = buildObject(blob, target);
        const name = obj.metadata.name;
        if (toCreate.has(name)) {
          yield () => write('create', blob, obj);
        } else if (toUpdate.has(name)) {
          obj.metadata.resourceVersion = toUpdate.get(name);
          yield () => write('update', blob, obj);
        }
      }
    }
    // Deletes last: until the new objects exist, clients still see the old ones.
    for (const d of plan.delete) {
      yield () =>
        writer.delete(d.name, d.uid, signal).then(progress, (err: unknown) => {
          throw new SyncWriteError('delete', d.name, err);
        });
    }
  }
  await runBounded(tasks(), Math.max(1, opts.concurrency));
  return { omitted };
}

/** Lists the catalog's existing objects (metadata only) and plans against a scan. */
export async function planAgainstCluster(
  scan: ScanResult,
  target: SyncTarget,
  writer: CatalogMetadataWriter,
  signal?: AbortSignal,
): Promise<SyncPlan> {
  const existing: ExistingObject[] = [];
  for await (const o of writer.listExisting(target.catalog.name, signal)) existing.push(o);
  return planSync(scan.desired, existing, target.catalog.uid);
}

/** Deletes every object of the catalog (availabilityMode Unavailable). */
export async function deleteAll(
  catalog: string,
  writer: CatalogMetadataWriter,
  opts: ApplyOptions,
): Promise<number> {
  const existing: ExistingObject[] = [];
  for await (const o of writer.listExisting(catalog, opts.signal))
    if (!o.deleting) existing.push(o);
  const plan: SyncPlan = {
    create: [],
    update: [],
    delete: existing.map((o) => ({ name: o.name, uid: o.uid })),
    unchanged: 0,
    unchangedOmitted: 0,
  };
  await applyPlan(
    { catalog: { name: catalog, uid: '' }, dir: '', maxObjectBytes: 0, contentUrl: () => '' },
    plan,
    writer,
    opts,
  );
  return existing.length;
}
