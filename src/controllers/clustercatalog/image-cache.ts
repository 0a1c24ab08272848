// Which unpacked image a deleted catalog leaves behind, if no other catalog uses it.
import type { ClusterCatalog } from '../../api/v1/index.js';
import { parseReference } from '../../source/index.js';

/** The digest a reference pins, if it is a valid reference that pins one. */
function pinnedDigest(ref: string | undefined): string | undefined {
  if (!ref) return undefined;
  try {
    return parseReference(ref).digest;
  } catch {
    return undefined; // an invalid spec reference pins nothing
  }
}

/** The digest to evict from the image cache when `name` is deleted, or undefined to keep it. */
export function digestToEvict(
  name: string,
  catalogs: Iterable<ClusterCatalog>,
): string | undefined {
  const all = [...catalogs];
  const digest = pinnedDigest(
    all.find((c) => c.metadata.name === name)?.status?.resolvedSource?.image.ref,
  );
  if (!digest) return undefined;
  const usedElsewhere = all.some(
    (c) =>
      c.metadata.name !== name &&
      (pinnedDigest(c.status?.resolvedSource?.image.ref) === digest ||
        pinnedDigest(c.spec.source.image?.ref) === digest),
  );
  return usedElsewhere ? undefined : digest;
}
