// Which unpacked image a deleted catalog leaves behind, if no other catalog uses it.
import type { ClusterCatalog } from '../../api/v1/index.js';

/** The digest to evict from the image cache when `name` is deleted, or undefined to keep it. */
export function digestToEvict(
  name: string,
  catalogs: Iterable<ClusterCatalog>,
): string | undefined {
  const all = [...catalogs];
  const digest = all
    .find((c) => c.metadata.name === name)
    ?.status?.resolvedSource?.image.ref.split('@')[1];
  if (!digest) return undefined;
  const usedElsewhere = all.some(
    (c) =>
      c.metadata.name !== name &&
      (c.status?.resolvedSource?.image.ref.endsWith(`@${digest}`) ||
        c.spec.source.image?.ref.endsWith(`@${digest}`)),
  );
  return usedElsewhere ? undefined : digest;
}
