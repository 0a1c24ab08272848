// The outer ClusterCatalog reconcile: the one writer. It reads the catalog from the informer's
// store, keeps the metadata.name label and the finalizer, runs the inner reconcile on a copy,
// then writes status (only when it changed) and events. Deletion: the objects go through
// owner-reference garbage collection; the finalizer removes the on-disk content first.
import type { ClusterCatalog, ClusterCatalogStatus } from '../../api/v1/index.js';
import {
  API_VERSION,
  CLUSTER_CATALOG_KIND,
  FINALIZER_DELETE_SERVER_CACHE,
  LABEL_METADATA_NAME,
} from '../../api/v1/index.js';
import type { ReconcileResult } from '../runtime/index.js';
import type { CatalogEvent, ReconcileDeps, ReconcileOutcome } from './reconcile.js';
import { reconcileCatalog } from './reconcile.js';
import { statusPatch } from './status-patch.js';

/** ClusterCatalog writes the controller makes; src/kube implements them. */
export interface ClusterCatalogAPI {
  /** Merge-patches metadata, conditional on resourceVersion; returns the new object. */
  patchMetadata(
    name: string,
    metadata: { labels?: Record<string, string>; finalizers?: string[] | null },
    resourceVersion: string,
  ): Promise<ClusterCatalog>;
  /**
   * Merge-patches the status subresource, conditional on resourceVersion (the apiserver answers
   * 409 Conflict if the object changed since); returns the new object.
   */
  patchStatus(
    name: string,
    status: Record<string, unknown>,
    resourceVersion: string,
  ): Promise<ClusterCatalog>;
  recordEvent(catalog: ClusterCatalog, event: CatalogEvent): Promise<void>;
}

export interface CatalogLookup {
  get(name: string): ClusterCatalog | undefined;
}

export interface ClusterCatalogControllerOptions {
  catalogs: CatalogLookup;
  api: ClusterCatalogAPI;
  deps: Omit<ReconcileDeps, 'status'>;
  /** Removes the catalog's on-disk content (image cache entries are shared and kept). */
  cleanup: (name: string) => Promise<void>;
  /** Deletes objects labelled as a catalog that does not exist (orphans). */
  removeOrphans: (name: string) => Promise<void>;
  onOutcome?: (name: string, outcome: ReconcileOutcome) => void;
}

export class ClusterCatalogController {
  constructor(private readonly opts: ClusterCatalogControllerOptions) {}

  async reconcile(
    name: string,
    signal: AbortSignal,
    interrupted?: AbortSignal,
  ): Promise<ReconcileResult | void> {
    const cached = this.opts.catalogs.get(name);
    if (!cached) {
      // Owned objects go through the garbage collector; objects with our labels and no owner
      // (or an owner that is gone) are removed here.
      await this.opts.removeOrphans(name);
      return;
    }
    let catalog = structuredClone(cached);
    const { api } = this.opts;

    if (catalog.metadata.deletionTimestamp) {
      if (catalog.metadata.finalizers?.includes(FINALIZER_DELETE_SERVER_CACHE)) {
        await this.opts.cleanup(name);
        const rest = catalog.metadata.finalizers.filter((f) => f !== FINALIZER_DELETE_SERVER_CACHE);
        await api.patchMetadata(
          name,
          { finalizers: rest.length ? rest : null },
          catalog.metadata.resourceVersion ?? '',
        );
      }
      return;
    }

    const wantLabel = catalog.metadata.labels?.[LABEL_METADATA_NAME] !== name;
    const wantFinalizer = !catalog.metadata.finalizers?.includes(FINALIZER_DELETE_SERVER_CACHE);
    if (wantLabel || wantFinalizer) {
      catalog = await api.patchMetadata(
        name,
        {
          ...(wantLabel && { labels: { [LABEL_METADATA_NAME]: name } }),
          ...(wantFinalizer && {
            finalizers: [...(catalog.metadata.finalizers ?? []), FINALIZER_DELETE_SERVER_CACHE],
          }),
        },
        catalog.metadata.resourceVersion ?? '',
      );
    }

    // What is in the apiserver now, so that intermediate writes patch against it. Every write
    // is conditional on the resourceVersion the status was computed from (then the one the
    // previous write returned): a patch computed from a lagging informer cache would leave a
    // field set that must be cleared, so the apiserver refuses it (409) instead.
    let written: ClusterCatalogStatus | undefined = catalog.status;
    let resourceVersion = catalog.metadata.resourceVersion ?? '';
    // After a failed write the object's resourceVersion is unknown: write nothing more, and
    // retry the whole reconcile (with backoff) from the informer cache once it caught up.
    let failedWrite: { err: unknown } | undefined;
    // Fields the apiserver dropped from a write: its ClusterCatalog CRD does not have them.
    let pruned = false;
    const writeStatus = async (status: ClusterCatalogStatus) => {
      if (failedWrite) throw failedWrite.err;
      const patch = statusPatch(written, status);
      if (!patch) return;
      try {
        const updated = await api.patchStatus(name, patch, resourceVersion);
        resourceVersion = updated.metadata.resourceVersion ?? resourceVersion;
        pruned ||= droppedFields(patch, updated.status).length > 0;
      } catch (err) {
        failedWrite = { err };
        throw err;
      }
      written = structuredClone(status);
    };

    const outcome = await reconcileCatalog(
      catalog,
      { ...this.opts.deps, status: { write: writeStatus } },
      signal,
      interrupted,
    );
    // The status computed after a refused write may describe that refusal: never show it.
    if (failedWrite) throw failedWrite.err;
    await writeStatus(outcome.status);
    for (const event of outcome.events) {
      // Events are best effort: a failure to record one must not fail the sync.
      await api.recordEvent(catalog, event).catch(() => {});
    }
    this.opts.onOutcome?.(name, outcome);
    // The work queue retries unless a TerminalError is in the cause chain (isTerminal).
    if (outcome.error && outcome.requeueAfterMs === undefined)
      throw new Error(outcome.error.message, { cause: outcome.error.cause });
    // Dropped although the CRD check saw our CRD: the apiserver is still switching schemas
    // after our CRD was re-applied (or the check has not seen the change yet). Write again soon;
    // while the check knows of the problem, its end queues every catalog instead.
    if (pruned && !this.opts.deps.crdProblem?.()) {
      const requeueAfter = Math.min(outcome.requeueAfterMs ?? Infinity, PRUNED_RETRY_MS);
      return { requeueAfter };
    }
    return outcome.requeueAfterMs !== undefined
      ? { requeueAfter: outcome.requeueAfterMs }
      : undefined;
  }
}

/** How soon a status whose fields the apiserver dropped is written again (see reconcile). */
export const PRUNED_RETRY_MS = 2000;

/** The fields a status patch set that the object the apiserver returned does not have. */
export function droppedFields(
  patch: Record<string, unknown>,
  stored: ClusterCatalogStatus | undefined,
): string[] {
  const kept = (stored ?? {}) as Record<string, unknown>;
  return Object.keys(patch)
    .filter((k) => patch[k] !== null && kept[k] === undefined)
    .sort();
}

export function eventTarget(catalog: ClusterCatalog) {
  return {
    apiVersion: API_VERSION,
    kind: CLUSTER_CATALOG_KIND,
    name: catalog.metadata.name,
    uid: catalog.metadata.uid ?? '',
  };
}
