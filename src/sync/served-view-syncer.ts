// The sync of the served view (`--object-view=served`): the objects are not stored in the
// apiserver (the CatalogMetadata CRD is not even installed there); the controller's served API
// answers them from the revision each replica serves. The catalog is still scanned (every object
// built and validated; objectCount, the content hash, what is omitted and storedBytes as in the
// CRD mode), and the plan has nothing to write: each object is unchanged, being what the served
// view shows once the revision is served. No list, no spooled body, no write: nothing takes a
// slot of --max-write-rate, counts as a write, or opens a sync journal in status.
import type { ApplyResult, PlannedSync, SyncTarget } from './engine.js';
import { scanCatalog } from './engine.js';

/** The reconcile's Syncer port (src/controllers/clustercatalog/ports.ts), for the served view. */
export function servedViewSyncer() {
  return {
    plan: async (target: SyncTarget, signal?: AbortSignal): Promise<PlannedSync> => {
      const scan = await scanCatalog(target, signal);
      return {
        target,
        scan,
        plan: {
          create: [],
          update: [],
          delete: [],
          unchanged: scan.blobs,
          unchangedOmitted: scan.omitted,
        },
        dispose: () => Promise.resolve(),
      };
    },
    /** Nothing planned: nothing written, no progress. */
    apply: (
      _planned: PlannedSync,
      _onProgress: (done: number, total: number) => void,
      _signal?: AbortSignal,
    ): Promise<ApplyResult> => Promise.resolve({ omitted: 0, storedBytesDelta: 0 }),
    /** No object is stored: none to delete. */
    deleteAll: (_catalog: string, _signal?: AbortSignal): Promise<number> => Promise.resolve(0),
  };
}
