// The sync as the reconcile uses it (its Syncer port): plan against the apiserver, apply with a
// paced number of writes in flight (pacing.ts), delete a catalog's objects; every write counted
// per catalog.
import { AdmissionRefusals } from './admission-refusals.js';
import type { PlannedSync, SyncTarget } from './engine.js';
import { applyPlan, deleteAll, planCatalogSync } from './engine.js';
import type { DecreaseReason } from './pacing.js';
import { WritePacing } from './pacing.js';
import type { WriteRateLimit } from './write-rate.js';
import { rateLimitedWriter } from './write-rate.js';
import type { CatalogMetadataWriter } from './writer-port.js';

/** A counter by catalog and verb (a prom-client Counter satisfies it). */
export interface WriteCounter {
  inc(labels: { catalog: string; verb: string }): void;
}

/**
 * `writer` with its writes counted per catalog: on a cluster with several catalogs, which one
 * causes writes is the question (and a catalog's orphans, removed here, count as that
 * catalog's). A dry-run write counts when sent, whatever admission answers.
 */
export function countedWriter(
  writer: CatalogMetadataWriter,
  catalog: string,
  counters: { writes: WriteCounter; dryRunWrites: WriteCounter },
): CatalogMetadataWriter {
  const counted = async (verb: string, write: Promise<void>) => {
    await write;
    counters.writes.inc({ catalog, verb });
  };
  return {
    listExisting: (c, signal) => writer.listExisting(c, signal),
    create: (obj, signal) => counted('create', writer.create(obj, signal)),
    update: (obj, signal) => counted('update', writer.update(obj, signal)),
    delete: (name, uid, signal) => counted('delete', writer.delete(name, uid, signal)),
    dryRun: async (verb, obj, signal) => {
      counters.dryRunWrites.inc({ catalog, verb });
      await writer.dryRun?.(verb, obj, signal);
    },
  };
}

export interface CatalogSyncerOptions {
  writer: CatalogMetadataWriter;
  /** Where a plan spools the bodies of its writes (src/sync/spool.ts). */
  spoolDir: string;
  /** The most writes in flight per catalog (--write-concurrency). */
  writeConcurrency: number;
  /**
   * Write pacing (pacing.ts): the window of writes in flight adapts to the apiserver's answers,
   * between `minWriteConcurrency` (--min-write-concurrency) and writeConcurrency. Absent, or a
   * writer that cannot observe its answers: always writeConcurrency.
   */
  pacing?: {
    minWriteConcurrency: number;
    /** pacing.ts's latencyTolerance (--write-latency-tolerance). */
    latencyTolerance?: number;
    clock: { now(): number };
    onDecrease?: (reason: DecreaseReason) => void;
  };
  /**
   * The most writes a second, for the whole process (--max-write-rate, write-rate.ts): the
   * creates, updates and deletes take their slots of it, as the entry point's other writes
   * (status, events) do; absent: no ceiling but the window's.
   */
  writeRate?: WriteRateLimit;
  counters: { writes: WriteCounter; dryRunWrites: WriteCounter };
}

/** The reconcile's Syncer port (src/controllers/clustercatalog/ports.ts), satisfied structurally. */
export type CatalogSyncer = ReturnType<typeof catalogSyncer>;

export function catalogSyncer(opts: CatalogSyncerOptions) {
  const { spoolDir, writeConcurrency } = opts;
  const writer = opts.writeRate ? rateLimitedWriter(opts.writer, opts.writeRate) : opts.writer;
  const counted = (catalog: string) => countedWriter(writer, catalog, opts.counters);
  // One window for the process: what it learned of the apiserver carries over to the next sync.
  const paced = opts.pacing !== undefined && writer.observeResponses !== undefined;
  const pacing = new WritePacing({
    min: opts.pacing?.minWriteConcurrency ?? writeConcurrency,
    max: writeConcurrency,
    // Not paced: the window is fixed and never reads the time.
    clock: opts.pacing?.clock ?? { now: () => 0 },
    fixed: !paced,
    ...(opts.pacing?.onDecrease && { onDecrease: opts.pacing.onDecrease }),
    ...(opts.pacing?.latencyTolerance !== undefined && {
      latencyTolerance: opts.pacing.latencyTolerance,
    }),
  });
  if (paced) writer.observeResponses?.((r) => pacing.observe(r));
  const concurrency = () => pacing.window;
  // Revisions admission refused, per catalog: their next attempt checks with dry-run first.
  const refusals = new AdmissionRefusals();
  return {
    /** The write window (its `window` and `decreases` are metrics). */
    pacing,
    plan: (target: SyncTarget, signal?: AbortSignal) =>
      planCatalogSync(target, writer, spoolDir, signal),
    apply: (
      planned: PlannedSync,
      onProgress: (done: number, total: number) => void,
      signal?: AbortSignal,
    ) =>
      applyPlan(planned, counted(planned.target.catalog.name), {
        concurrency,
        refusals,
        onProgress,
        ...(signal && { signal }),
      }),
    deleteAll: (catalog: string, signal?: AbortSignal) =>
      deleteAll(catalog, counted(catalog), { concurrency, ...(signal && { signal }) }),
  };
}
