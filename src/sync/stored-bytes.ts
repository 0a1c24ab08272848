// The size of a CatalogMetadata object as the controller writes it: the sum over a catalog's
// objects is status.storedBytes, what the catalog costs the apiserver before its own overhead
// (issue 25). Computed while scanning, without serializing the content again: an object with
// content is its canonical blob plus the object around it (the size rule of toCatalogMetadata's
// --max-object-bytes check); an object whose content is omitted is small, serialized whole.
import type { CatalogMetadata } from '../api/v1/index.js';
import type { Blob } from '../fbc/index.js';
import { contentCanonical, hasPartialContent } from '../fbc/index.js';

/** Bytes of the object's JSON as written (without resourceVersion, which only updates carry). */
export function storedObjectBytes(
  obj: CatalogMetadata,
  blob: Pick<Blob, 'bytes' | 'canonical'>,
): number {
  if (obj.spec.content === undefined) return Buffer.byteLength(JSON.stringify(obj));
  // A lean object's content is partial: its canonical form is the one toCatalogMetadata made.
  const contentBytes = hasPartialContent(obj.spec)
    ? Buffer.byteLength(contentCanonical(obj, blob.canonical))
    : blob.bytes;
  const withoutContent = { ...obj, spec: { ...obj.spec, content: {} } };
  // `{}` stands for the content: its 2 bytes are replaced by the canonical blob's.
  return Buffer.byteLength(JSON.stringify(withoutContent)) - 2 + contentBytes;
}
