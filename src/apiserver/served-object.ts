// A revision's blob as the served API shows it: the CatalogMetadata object the CRD mode writes
// for it (src/fbc/objects.ts: name, labels, annotations, spec, the owner reference), under the
// served group's apiVersion, with a uid derived from the catalog's and the object's name and the
// catalog's creationTimestamp, so every replica shows the same object.
import { createHash } from 'node:crypto';
import type { CatalogMetadata, ContentProfile } from '../api/v1/index.js';
import {
  blobHash,
  catalogMetadataLabels,
  extractMeta,
  objectName,
  ownerReference,
  serializeCatalogMetadata,
  toCatalogMetadata,
} from '../fbc/index.js';
import type { Blob, BlobIdentity } from '../fbc/index.js';
import type { ViewCatalog } from './ports.js';
import { SERVED_API_VERSION } from './ports.js';

/** A blob's identity and the fields selectors read, without its object built. */
export interface BlobEntry {
  seq: number;
  identity: BlobIdentity;
  /** The object's name. */
  name: string;
  /** `sha256:<hex>` of the canonical blob (the content-hash annotation). */
  hash: string;
  labels: Record<string, string>;
  fields: Record<string, string | undefined>;
}

/**
 * The identity of a blob read from a revision (blob order), as the parser gave it
 * (src/fbc/catalog.ts): a repeated identity of a custom schema is told apart by its content hash
 * but for one blob, which keeps the plain identity. The parser keeps it for the first in walk
 * order, which blob order does not keep: where that is not the first in blob order, the revision
 * records it (index.json plainRepeats) and `keptPlain` says whether this is the blob; undefined
 * elsewhere, where the first in blob order is the one, so a blob is told apart when `previous`
 * (the blob before it in blob order) has its identity.
 */
export function blobIdentity(
  catalog: string,
  content: unknown,
  hash: string,
  previous: BlobIdentity | undefined,
  keptPlain: boolean | undefined,
): BlobIdentity {
  const parsed = extractMeta(content);
  if ('error' in parsed) throw new Error(`a stored blob has no valid meta: ${parsed.error}`);
  const { meta } = parsed;
  const id: BlobIdentity = { catalog, schema: meta.schema };
  if (meta.package !== '') id.package = meta.package;
  if (meta.name !== '') id.name = meta.name;
  const toldApart =
    (meta.package === '' && meta.name === '') ||
    (keptPlain === undefined
      ? previous !== undefined &&
        previous.schema === id.schema &&
        previous.package === id.package &&
        previous.name === id.name
      : !keptPlain);
  if (toldApart) id.disambiguator = hash.slice('sha256:'.length);
  return id;
}

/**
 * The entry of a blob line at `seq`, from its parsed content. `plainSeq`: the revision's
 * repeatPlainSeq(seq), the blob its run keeps plain, if recorded.
 */
export function blobEntry(
  catalog: string,
  seq: number,
  content: unknown,
  line: string,
  previous: BlobIdentity | undefined,
  plainSeq: number | undefined,
): BlobEntry {
  const hash = blobHash(line);
  const keptPlain = plainSeq === undefined ? undefined : plainSeq === seq;
  const identity = blobIdentity(catalog, content, hash, previous, keptPlain);
  const name = objectName(identity);
  return {
    seq,
    identity,
    name,
    hash,
    labels: catalogMetadataLabels(identity),
    fields: {
      'metadata.name': name,
      'spec.catalog.name': identity.catalog,
      'spec.schema': identity.schema,
      'spec.package': identity.package,
      'spec.name': identity.name,
    },
  };
}

/** How a catalog's objects are built (the controller's settings for the CRD mode). */
export interface ObjectSettings {
  /** --max-object-bytes: a larger object carries spec.contentOmitted. */
  maxObjectBytes: number;
  /** The content server's URL of a blob of the catalog (spec.contentOmitted.url). */
  blobUrl(catalog: string, blob: { schema: string; package?: string; name?: string }): string;
}

export type ServedObject = Omit<CatalogMetadata, 'apiVersion'> & { apiVersion: string };

/** A UUID (version 5, RFC 9562) of `name` in the namespace of the catalog's uid. */
export function derivedUid(namespaceUid: string, name: string): string {
  const hex = namespaceUid.replace(/-/g, '');
  const ns = /^[0-9a-fA-F]{32}$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.from(namespaceUid);
  const h = createHash('sha1').update(ns).update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * The object of a blob, and its JSON (the canonical content spliced in, not serialized again).
 * `resourceVersion`: the state the object is read at.
 */
export function servedObject(
  catalog: ViewCatalog,
  entry: BlobEntry,
  content: Record<string, unknown>,
  line: string,
  settings: ObjectSettings,
  resourceVersion: string,
): { object: ServedObject; json: string } {
  const blob: Blob = {
    identity: entry.identity,
    schema: entry.identity.schema,
    content,
    canonical: line,
    hash: entry.hash,
    bytes: Buffer.byteLength(line),
    position: { file: '', line: 0, column: 0, offset: 0 },
  };
  if (entry.identity.package !== undefined) blob.package = entry.identity.package;
  if (entry.identity.name !== undefined) blob.name = entry.identity.name;
  const profile: ContentProfile = catalog.profile === 'lean' ? 'lean' : 'full';
  // Built as the CRD mode builds it (its size, hence whether content is omitted, included),
  // then shown under the served group.
  const crdObject = toCatalogMetadata(blob, {
    ownerReference: ownerReference(catalog),
    maxObjectBytes: settings.maxObjectBytes,
    contentUrl: (b) => settings.blobUrl(catalog.name, b),
    profile,
  });
  const metadata = {
    ...crdObject.metadata,
    uid: derivedUid(catalog.uid, crdObject.metadata.name),
    resourceVersion,
    creationTimestamp: catalog.creationTimestamp,
  };
  const object: ServedObject = { ...crdObject, apiVersion: SERVED_API_VERSION, metadata };
  const json = serializeCatalogMetadata(object as CatalogMetadata, line);
  return { object, json };
}
