// What a sync's result depends on besides the catalog's content, as one string: a reconcile
// that finds the same digest and the same key as the last successful sync, with no drift since,
// needs no plan (src/controllers/clustercatalog/sync-memo.ts). Derived from every field of
// SyncTarget, so that an option added to it (e.g. a content profile) changes the key without
// anyone remembering to add it here.
import { canonicalize } from '../fbc/index.js';
import type { BlobRef, SyncTarget } from './engine.js';

/**
 * The fields left out: where the unpacked catalog is on disk, a function of the digest (keyed
 * beside it), not an option of the sync.
 */
const NOT_OPTIONS = new Set<string>(['dir']);

/** A function field (contentUrl) is keyed by its value for this blob. */
const PROBE_BLOB: BlobRef = { schema: 'catalogd.probe', package: 'probe', name: 'probe' };

type FunctionFields<T> = {
  [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];
/**
 * Compile-time check: every function field of SyncTarget maps a blob to a string, so that
 * its value for PROBE_BLOB stands for it. A field of another shape fails to compile here.
 */
const functionFieldsTakeABlob: (
  f: SyncTarget[FunctionFields<SyncTarget>],
) => (blob: BlobRef) => string = (f) => f;

/** The key of a sync's options: every SyncTarget field but `dir`, canonical JSON. */
export function syncTargetKey(target: SyncTarget): string {
  const parts: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(target)) {
    if (NOT_OPTIONS.has(field) || value === undefined) continue;
    parts[field] =
      typeof value === 'function'
        ? {
            probe: functionFieldsTakeABlob(value as SyncTarget[FunctionFields<SyncTarget>])(
              PROBE_BLOB,
            ),
          }
        : value;
  }
  return canonicalize(parts);
}
