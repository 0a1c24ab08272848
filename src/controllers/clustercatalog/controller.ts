// The outer ClusterCatalog reconcile: the one writer. It reads the catalog from the informer's
// store, keeps the metadata.name label and the finalizer, runs the inner reconcile on a copy,
// then writes status (only when it changed) and events. Deletion: the objects go through
// owner-reference garbage collection; the finalizer removes the on-disk content first.
import type { ClusterCatalog } from '../../api/v1/index.js';
import {
  API_VERSION,
  CLUSTER_CATALOG_KIND,
  FINALIZER_DELETE_SERVER_CACHE,
  LABEL_METADATA_NAME,
} from '../../api/v1/index.js';
import type { ReconcileResult } from '../runtime/index.js';
import type { CatalogEvent, ReconcileDeps, ReconcileOutcome, ReconcilePorts } from './reconcile.js';
import { reconcileCatalog } from './reconcile.js';
import { notServingStatus } from './pipeline/conditions.js';
import { StatusWriter } from './status-writer.js';

export { droppedFields } from './status-writer.js';

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
  /** The inner reconcile's ports (but the status sink, the writer's), settings and clock. */
  reconcile: Omit<ReconcileDeps, 'ports'> & { ports: Omit<ReconcilePorts, 'status'> };
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
        // As upstream: status says nothing is served any more, then the finalizer goes.
        const status = new StatusWriter(api, catalog);
        await status.write(
          notServingStatus(
            catalog.status,
            catalog.metadata.generation ?? 0,
            this.opts.reconcile.clock.date(),
          ),
        );
        const rest = catalog.metadata.finalizers.filter((f) => f !== FINALIZER_DELETE_SERVER_CACHE);
        await api.patchMetadata(
          name,
          { finalizers: rest.length ? rest : null },
          status.currentResourceVersion,
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

    // Intermediate writes (the journal, progress) and the outcome's patch what is in the
    // apiserver now, each conditional on the resourceVersion before it (status-writer.ts).
    const status = new StatusWriter(api, catalog);
    const { ports, settings, clock } = this.opts.reconcile;
    const outcome = await reconcileCatalog(
      catalog,
      { ports: { ...ports, status }, settings, clock },
      signal,
      interrupted,
    );
    // The status computed after a refused write may describe that refusal: never show it.
    status.throwIfFailed();
    await status.write(outcome.status);
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
    if (status.pruned && !ports.crdProblem?.()) {
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

export function eventTarget(catalog: ClusterCatalog) {
  return {
    apiVersion: API_VERSION,
    kind: CLUSTER_CATALOG_KIND,
    name: catalog.metadata.name,
    uid: catalog.metadata.uid ?? '',
  };
}
