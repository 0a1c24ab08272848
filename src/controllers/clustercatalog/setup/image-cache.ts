// Which unpacked image a deleted catalog leaves behind, if no other catalog uses it.
import type { ClusterCatalog } from '../../../api/v1/index.js';
import { parseImageReference } from '../../../api/v1/imageref-grammar.js';

/** The digest a reference pins, if it is a valid reference that pins one. */
function pinnedDigest(ref: string | undefined): string | undefined {
  if (!ref) return undefined;
  try {
    return parseImageReference(ref).digest;
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

/**
 * The digests catalogs serve, which the image cache must keep: every catalog's
 * status.resolvedSource (its serving revision) and status.objectSourceRef (its objects' revision,
 * what a rollback pulls) unless the catalog is being deleted. `latest` holds what this process's
 * last reconcile of a catalog resolved, which the informer may not show yet (undefined: nothing
 * served).
 */
export function servedDigests(
  catalogs: Iterable<ClusterCatalog>,
  latest: ReadonlyMap<string, string | undefined>,
): Set<string> {
  const served = new Set<string>();
  for (const c of catalogs) {
    if (c.metadata.deletionTimestamp) continue;
    // The objects' image too: behind resolvedSource while a revision's objects are written (or
    // were refused), and what a rollback pulls.
    for (const ref of [c.status?.resolvedSource?.image.ref, c.status?.objectSourceRef]) {
      const d = pinnedDigest(ref);
      if (d) served.add(d);
    }
  }
  for (const ref of latest.values()) {
    const d = pinnedDigest(ref);
    if (d) served.add(d);
  }
  return served;
}

/** What the pruner asks of the image cache (src/source's ImagePuller). */
export interface PrunableImageCache {
  /** Removes every image but those in `keep` (and those held by an attempt); returns them. */
  prune(keep: Iterable<string>): Promise<string[]>;
  evict(digest: string): Promise<void>;
}

/**
 * The image cache keeps only what catalogs serve (and what attempts hold): pruned once the
 * catalogs are known, then after each attempt. One prune at a time; a request during one runs
 * once after it.
 */
export function imagePruner(
  images: PrunableImageCache,
  catalogs: { values(): Iterable<ClusterCatalog> },
  onError: (err: unknown) => void,
  onRemoved: (removed: string[]) => void,
) {
  const latestResolved = new Map<string, string | undefined>();
  let pruning: Promise<void> | undefined;
  let pruneAgain = false;
  const prune = (): void => {
    if (pruning) {
      pruneAgain = true;
      return;
    }
    pruning = (async () => {
      do {
        pruneAgain = false;
        const removed = await images
          .prune(servedDigests(catalogs.values(), latestResolved))
          .catch((err: unknown) => {
            onError(err);
            return [];
          });
        if (removed.length > 0) onRemoved(removed);
      } while (pruneAgain);
      pruning = undefined;
    })();
  };
  return { latestResolved, prune };
}
