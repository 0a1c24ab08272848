// A JSON merge patch that turns one status into another: changed fields are set, removed
// ones are set to null (merge patches cannot otherwise delete). undefined when nothing changed,
// so an unchanged reconcile makes no status write.
import stableStringify from 'fast-json-stable-stringify';
import type { ClusterCatalogStatus } from '../../api/v1/index.js';

export function statusPatch(
  before: ClusterCatalogStatus | undefined,
  after: ClusterCatalogStatus,
): Record<string, unknown> | undefined {
  const old = (before ?? {}) as Record<string, unknown>;
  const next = after as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(old), ...Object.keys(next)])) {
    const a = old[key];
    const b = next[key];
    if (b === undefined) {
      if (a !== undefined) patch[key] = null;
    } else if (a === undefined || stableStringify(a) !== stableStringify(b)) {
      patch[key] = b;
    }
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
