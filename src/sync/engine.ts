// The sync engine: make a catalog's CatalogMetadata objects match an unpacked catalog with the
// fewest writes. Two passes keep memory bounded whatever the catalog's size:
//   plan   list the catalog's objects (metadata only), then parse every blob, build and
//          validate its object, keep name → fingerprint only, and spool the request body of
//          each object that differs from what exists (spool.ts);
//   apply  send the spooled bodies, a bounded number at a time, then the deletes.
// Nothing is written before the whole catalog has been validated.
import type { CatalogMetadata, ContentProfile } from '../api/v1/index.js';
import { CONTENT_PROFILE_NONE, OMITTED_APISERVER_LIMIT } from '../api/v1/index.js';
import type { Blob } from '../fbc/index.js';
import {
  CatalogHasher,
  canonicalize,
  hasPartialContent,
  isDNS1123Subdomain,
  isValidLabelValue,
  ownerReference,
  readCatalog,
  serializeCatalogMetadata,
  toCatalogMetadata,
  withContentOmitted,
} from '../fbc/index.js';
import type { ExistingObject, Fingerprint, SyncPlan } from './plan.js';
import { isUpToDate, noteSpecAgreement, specDigest } from './drift.js';
import { metadataFingerprint, planSync } from './plan.js';
import type { AdmissionRefusals } from './admission-refusals.js';
import { checkRememberedRefusal } from './admission-refusals.js';
import { runBounded } from '../util/bounded.js';
import type { SpooledWrite } from './spool.js';
import { WriteSpool } from './spool.js';
import { storedObjectBytes } from './stored-bytes.js';
import type { CatalogMetadataWriter, ObjectWrite } from './writer-port.js';
import { ObjectTooLargeError, SyncWriteError } from './writer-port.js';

/** Spec reads in flight at once while planning (GETs of co-owned objects). */
const SPEC_READ_CONCURRENCY = 16;

/**
 * Reads the spec digest of every listed object whose spec another field manager co-owns, so the
 * drift rule can compare content (drift.ts). Objects not owned by the catalog or being deleted
 * are rewritten or left anyway: not read.
 */
async function readCoOwnedSpecs(
  existing: Iterable<ExistingObject>,
  writer: CatalogMetadataWriter,
  ownerUid: string,
  signal?: AbortSignal,
): Promise<void> {
  const read = writer.liveSpecDigest?.bind(writer);
  if (!read) return;
  async function* tasks(): AsyncGenerator<() => Promise<void>> {
    for (const have of existing) {
      if (!have.specCoOwned || have.deleting || have.ownerUid !== ownerUid) continue;
      yield async () => {
        const digest = await read!(have, signal);
        if (digest !== undefined) have.liveSpecDigest = digest;
      };
    }
  }
  await runBounded(tasks(), SPEC_READ_CONCURRENCY);
}

/** The blob fields an HTTP URL of a blob is made of. */
export type BlobRef = Pick<Blob, 'schema' | 'package' | 'name'>;

export interface SyncTarget {
  /** The owning ClusterCatalog. */
  catalog: { name: string; uid: string };
  /** The unpacked catalog directory. */
  dir: string;
  maxObjectBytes: number;
  /** The HTTP URL of a blob, for objects whose content is omitted or partial. */
  contentUrl: (blob: BlobRef) => string;
  /**
   * The content profile (SPEC §2.2; default full): lean leaves display-only parts out of the
   * objects (src/fbc/lean.ts), none writes no objects (every existing one is deleted). Part of the target, so whatever keys on the target sees it.
   */
  contentProfile?: ContentProfile;
}

export interface ScanResult {
  /** Object name → objectFingerprint. */
  desired: Map<string, Fingerprint>;
  contentHash: string;
  /** The objects the blobs become (every blob one; none under profile none). */
  blobs: number;
  /** Objects that --max-object-bytes makes carry contentOmitted instead of content. */
  omitted: number;
  /** Bytes of canonical blob content. */
  bytes: number;
  /**
   * Bytes of the objects as written (stored-bytes.ts): status.storedBytes. planCatalogSync
   * counts objects the apiserver made omit their content at their omitted size.
   */
  storedBytes: number;
}

function buildObject(blob: Blob, target: SyncTarget): CatalogMetadata {
  return toCatalogMetadata(blob, {
    ownerReference: ownerReference(target.catalog),
    maxObjectBytes: target.maxObjectBytes,
    contentUrl: target.contentUrl,
    ...(target.contentProfile && { profile: target.contentProfile }),
  });
}

/** Client-side validation of an object before anything is written (SPEC §3.3). */
function validateObject(obj: CatalogMetadata, maxObjectBytes: number): string | undefined {
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

/** Called by scanCatalog for every object, after it is validated. */
export type ObjectVisitor = (
  obj: CatalogMetadata,
  blob: Blob,
  fingerprint: Fingerprint,
) => Promise<void> | void;

/** Parses and validates the whole catalog, keeping only name → fingerprint. */
export async function scanCatalog(
  target: SyncTarget,
  signal?: AbortSignal,
  visit?: ObjectVisitor,
): Promise<ScanResult> {
  const desired = new Map<string, Fingerprint>();
  const hasher = new CatalogHasher();
  let omitted = 0;
  let bytes = 0;
  let storedBytes = 0;
  // Profile none: the catalog is parsed and hashed (its revision is served over HTTP), but it
  // has no objects to build, validate or write.
  const noObjects = target.contentProfile === CONTENT_PROFILE_NONE;
  for await (const blob of readCatalog(target.dir, { catalog: target.catalog.name, signal })) {
    signal?.throwIfAborted();
    if (noObjects) {
      hasher.add(blob.hash);
      bytes += blob.bytes;
      continue;
    }
    const obj = buildObject(blob, target);
    const invalid = validateObject(obj, target.maxObjectBytes);
    if (invalid) throw new Error(`invalid CatalogMetadata: ${invalid}`);
    if (desired.has(obj.metadata.name)) {
      // Names are injective over identities and identities are unique (src/fbc), so this is a bug.
      throw new Error(`two blobs map to the object name ${obj.metadata.name}`);
    }
    const fingerprint = metadataFingerprint(obj.metadata);
    desired.set(obj.metadata.name, fingerprint);
    hasher.add(blob.hash);
    if (obj.spec.content === undefined) omitted++;
    bytes += blob.bytes;
    storedBytes += storedObjectBytes(obj, blob);
    await visit?.(obj, blob, fingerprint);
  }
  return {
    desired,
    contentHash: hasher.digest(),
    blobs: desired.size,
    omitted,
    bytes,
    storedBytes,
  };
}

/** A planned sync: what the catalog holds, the writes that make the cluster match it. */
export interface PlannedSync {
  target: SyncTarget;
  scan: ScanResult;
  plan: SyncPlan;
  /** The request bodies of the plan's creates and updates, in catalog order; none: no spool. */
  writes?: WriteSpool;
  /** Removes the spool. Call it whether or not the plan was applied. */
  dispose(): Promise<void>;
}

/**
 * Pass 1: lists the catalog's objects (metadata only), scans the catalog, plans, and spools the
 * body of every object the plan creates or updates into a file in `spoolDir`.
 */
export async function planCatalogSync(
  target: SyncTarget,
  writer: CatalogMetadataWriter,
  spoolDir: string,
  signal?: AbortSignal,
): Promise<PlannedSync> {
  const existing = new Map<string, ExistingObject>();
  for await (const o of writer.listExisting(target.catalog.name, signal)) existing.set(o.name, o);
  const owner = target.catalog.uid;
  await readCoOwnedSpecs(existing.values(), writer, owner, signal);
  const spool = await WriteSpool.create(spoolDir);
  // Unchanged objects the apiserver refused whole are stored with their content omitted.
  let storedOmittedBytes = 0;
  try {
    // The same decision as planSync's, made per object while its body is at hand.
    const scan = await scanCatalog(target, signal, async (obj, blob, fingerprint) => {
      const have = existing.get(obj.metadata.name);
      // A lean object's content is not the blob: its digest is of the partial content, which
      // is what a GitOps tool applies from `catalogd render --content-profile lean`.
      const contentHash = hasPartialContent(obj.spec) ? undefined : blob.hash;
      if (have) noteSpecAgreement(have, () => specDigest(obj.spec, contentHash));
      if (have && isUpToDate(fingerprint, have, owner)) {
        if (have.omitted && obj.spec.content !== undefined) {
          storedOmittedBytes +=
            storedObjectBytes(omittedByApiserverLimit(obj, target, blob.bytes), blob) -
            storedObjectBytes(obj, blob);
        }
        return;
      }
      if (have) obj.metadata.resourceVersion = have.resourceVersion;
      const body = serializeCatalogMetadata(obj, blob.canonical);
      await spool.add(
        have ? 'update' : 'create',
        obj.metadata.name,
        obj.spec.content === undefined,
        body,
      );
    });
    await spool.finish();
    scan.storedBytes += storedOmittedBytes;
    const plan = planSync(scan.desired, existing.values(), owner);
    if (spool.count !== plan.create.length + plan.update.length) {
      throw new Error(
        `spooled ${spool.count} writes, the plan has ${plan.create.length + plan.update.length}`,
      );
    }
    return { target, scan, plan, writes: spool, dispose: () => spool.dispose() };
  } catch (err) {
    await spool.dispose();
    throw err;
  }
}

export interface ApplyResult {
  /** Objects written with contentOmitted (by --max-object-bytes or the apiserver's limit). */
  omitted: number;
  /**
   * What the objects written with their content omitted because the apiserver refused them
   * whole changed in stored bytes (negative): added to the plan's scan.storedBytes.
   */
  storedBytesDelta: number;
}

export interface ApplyOptions {
  /** Writes in flight; a function is read again as writes end (the paced window, pacing.ts). */
  concurrency: number | (() => number);
  signal?: AbortSignal;
  /** Called after each write with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Admission refusals remembered across attempts (admission-refusals.ts): a revision refused
   * last time is checked with dry-run before anything is written.
   */
  refusals?: AdmissionRefusals;
}

/**
 * Pass 2: performs the plan: the spooled creates and updates, then the deletes. An object the
 * apiserver refuses as too large is written again with its content omitted
 * (OMITTED_APISERVER_LIMIT): nothing is lost, its content stays on the HTTP server.
 */
export async function applyPlan(
  planned: Pick<PlannedSync, 'target' | 'plan' | 'writes'> & {
    scan?: Pick<ScanResult, 'contentHash'>;
  },
  writer: CatalogMetadataWriter,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const { target, plan } = planned;
  const catalog = target.catalog.name;
  const contentHash = planned.scan?.contentHash;
  const { refusals } = opts;
  if (refusals && contentHash !== undefined && planned.writes) {
    await checkRememberedRefusal({
      catalog,
      contentHash,
      writes: planned.writes,
      writer,
      refusals,
      concurrency: opts.concurrency,
      ...(opts.signal && { signal: opts.signal }),
    });
  }
  const total = plan.create.length + plan.update.length + plan.delete.length;
  let done = 0;
  let omitted = 0;
  let storedBytesDelta = 0;
  const progress = () => opts.onProgress?.(++done, total);
  const { signal } = opts;
  const send = (verb: SpooledWrite['verb'], o: ObjectWrite) =>
    verb === 'create' ? writer.create(o, signal) : writer.update(o, signal);
  const write = async (w: SpooledWrite): Promise<void> => {
    let isOmitted = w.omitted;
    try {
      try {
        await send(w.verb, w);
        // Answered: the body is done with, its read buffer may be reused (spool.ts). Not on
        // failure: a request that failed may still have its body queued on the connection.
        w.release?.();
      } catch (err) {
        if (!(err instanceof ObjectTooLargeError) || w.omitted) throw err;
        const body = JSON.stringify(omittedByApiserver(w, target));
        await send(w.verb, { name: w.name, body });
        // Both bodies carry the same resourceVersion (an update's): the difference is exact.
        storedBytesDelta += Buffer.byteLength(body) - Buffer.byteLength(w.body);
        isOmitted = true;
      }
    } catch (err) {
      throw new SyncWriteError(w.verb, w.name, err);
    }
    if (isOmitted) omitted++;
    progress();
  };

  async function* tasks(): AsyncGenerator<() => Promise<void>> {
    if (plan.create.length + plan.update.length > 0) {
      if (!planned.writes) throw new Error('the plan has creates or updates but no spooled writes');
      for await (const w of planned.writes.read()) yield () => write(w);
    }
    // Deletes last: until the new objects exist, clients still see the old ones.
    for (const d of plan.delete) {
      yield () =>
        writer.delete(d.name, d.uid, signal).then(progress, (err: unknown) => {
          throw new SyncWriteError('delete', d.name, err);
        });
    }
  }
  try {
    await runBounded(tasks(), opts.concurrency);
  } catch (err) {
    if (refusals && contentHash !== undefined) refusals.noteFailure(catalog, contentHash, err);
    throw err;
  }
  if (refusals && contentHash !== undefined) refusals.forget(catalog, contentHash);
  return { omitted, storedBytesDelta };
}

/** A spooled object rebuilt with its content omitted, for the apiserver's size limit. */
function omittedByApiserver(w: SpooledWrite, target: SyncTarget): CatalogMetadata {
  const obj = JSON.parse(w.body.toString('utf8')) as CatalogMetadata;
  return omittedByApiserverLimit(obj, target);
}

/**
 * The object with its content omitted for the apiserver's limit; `blobBytes`, the canonical
 * blob's size when known, saves serializing a whole content again.
 */
function omittedByApiserverLimit(
  obj: CatalogMetadata,
  target: SyncTarget,
  blobBytes?: number,
): CatalogMetadata {
  const { schema, package: pkg, name } = obj.spec;
  return withContentOmitted(obj, OMITTED_APISERVER_LIMIT, {
    // A lean object's content is partial: its contentOmitted has the whole blob's size.
    bytes:
      obj.spec.contentOmitted?.bytes ??
      blobBytes ??
      Buffer.byteLength(canonicalize(obj.spec.content ?? {})),
    url: target.contentUrl({
      schema,
      ...(pkg !== undefined && { package: pkg }),
      ...(name !== undefined && { name }),
    }),
  });
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
  const target = {
    catalog: { name: catalog, uid: '' },
    dir: '',
    maxObjectBytes: 0,
    contentUrl: () => '',
  };
  await applyPlan({ target, plan }, writer, opts);
  return existing.length;
}
