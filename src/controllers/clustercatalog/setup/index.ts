// The ClusterCatalog controller's setup, beside its reconciler (as upstream catalogd's and Flux's
// SetupWithManager are): the informers and their predicates, the drift watch and its hold, the
// steady-state memo and its marks, image pruning, the requeue-all hook, interrupts, leadership,
// and the content replicator every replica runs. The program (src/cmd/controller.ts) parses flags,
// builds the process's shared parts (the apiserver client, the image source, the sync, the
// content server) and calls setupClusterCatalogController.
import type { Registry } from 'prom-client';
import { Counter, Gauge } from 'prom-client';
import type { ClusterCatalog } from '../../../api/v1/index.js';
import { CLUSTER_CATALOG_PLURAL, GROUP, VERSION } from '../../../api/v1/index.js';
import type { EventRecorder, KubeClient } from '../../../kube/index.js';
import { Resource } from '../../../kube/index.js';
import type { Puller } from '../../../source/index.js';
import type { WriteRateLimit } from '../../../sync/index.js';
import type { Informer, RuntimeMetrics, SyncSource } from '../../runtime/index.js';
import {
  Controller,
  Informer as InformerClass,
  ItemExponentialFailureRateLimiter,
  realClock,
  watch,
  WatchHold,
} from '../../runtime/index.js';
import { ClusterCatalogController } from '../controller.js';
import type { ContentPublisher, Syncer } from '../ports.js';
import { DRIFT_WATCH_MAX_PAUSE_MS } from '../ports.js';
import type { ReplicaContent } from '../replicate.js';
import { replicateContent } from '../replicate.js';
import { SyncMemo } from '../sync-memo.js';
import { SyncSlots } from '../sync-slots.js';
import type { CRDCheckWiring } from './crd-check.js';
import { clusterCatalogCRDCheck } from './crd-check.js';
import type { PrunableImageCache } from './image-cache.js';
import { digestToEvict, imagePruner } from './image-cache.js';
import { catalogMetadataRefs, clusterCatalogAPI } from './kube-adapters.js';
import { leadWhileElected } from './leadership.js';
import type { ClusterCatalogSetupOptions, SetupLog } from './options.js';
import type { CatalogMetadataRef } from './predicates.js';
import {
  attemptMootBecause,
  catalogMetadataAdded,
  catalogMetadataChanged,
  catalogMetadataDeleted,
  catalogNeedsReconcile,
  owningCatalog,
} from './predicates.js';

export type { ClusterCatalogSetupOptions, LeaderElectionSettings, SetupLog } from './options.js';

/** The process's shared parts the controller runs on. */
export interface ClusterCatalogParts {
  client: KubeClient;
  events: EventRecorder;
  /** --max-write-rate: the ClusterCatalog writes take their slots of it too. */
  writeRate?: WriteRateLimit;
  puller: Puller & PrunableImageCache;
  syncer: Syncer;
  content: ContentPublisher & ReplicaContent;
  log: SetupLog;
  registry: Registry;
  runtimeMetrics: RuntimeMetrics;
}

/** The set-up controller: what the program runs, probes and stops. */
export interface ClusterCatalogSetup {
  /** The informers readiness waits for (the catalogs and the drift watch). */
  informers: SyncSource[];
  /**
   * The ClusterCatalog informer (every replica runs it): the served view and GraphQL across
   * catalogs read it.
   */
  catalogs: Informer<ClusterCatalog>;
  /** Queues every catalog (a new signature policy, the CRD check's verdict). */
  requeueAll(): void;
  /**
   * Runs the informers, the content replicator (every replica) and the controller (while this
   * replica leads, with leader election), until `signal`. `onElector` gets the health check of
   * the elector in charge (the program's healthz), with leader election.
   */
  run(signal: AbortSignal, onElector?: (check: () => Error | undefined) => void): Promise<void>;
  /** Ends the subscriptions (after run settled). */
  stop(): void;
}

export function setupClusterCatalogController(
  opts: ClusterCatalogSetupOptions,
  parts: ClusterCatalogParts,
): ClusterCatalogSetup {
  const { client, log, puller, syncer, content } = parts;
  const metrics = clusterCatalogMetrics(parts.registry);
  const catalogs = new Resource<ClusterCatalog>(client, {
    group: GROUP,
    version: VERSION,
    plural: CLUSTER_CATALOG_PLURAL,
  });
  const informer = new InformerClass<ClusterCatalog>({
    name: 'clustercatalogs',
    listWatch: catalogs.listWatch(),
    onError: (err) => log.warn({ err }, 'clustercatalog watch failed; restarting'),
  });
  // Closed while a large sync writes: its events would all be the sync's own (watch-hold.ts).
  const driftWatchHold = new WatchHold({
    clock: realClock,
    maxPauseMs: DRIFT_WATCH_MAX_PAUSE_MS,
    onPause: (paused) => {
      if (paused) metrics.driftWatchPauses.inc();
      log.debug(paused ? 'drift watch paused while a sync writes' : 'drift watch resumed');
    },
  });
  // The served view stores no CatalogMetadata (its CRD is not installed): nothing to watch.
  const metadataRefs =
    opts.objectView === 'served'
      ? undefined
      : new InformerClass<CatalogMetadataRef>({
          name: 'catalogmetadata',
          listWatch: catalogMetadataRefs(client),
          onError: (err) => log.warn({ err }, 'catalogmetadata watch failed; restarting'),
          pause: driftWatchHold,
        });
  // Called only once the controller below exists (the CRD check's verdict, a new policy).
  const requeueAll = () => {
    for (const c of informer.values()) reconciler.queue?.add(c.metadata.name);
  };
  // Another ClusterCatalog CRD (OLM v1's) applied over ours prunes our status fields: said in
  // logs, an event, a metric and every catalog's Progressing message; its end re-queues them.
  const crdCheck = clusterCatalogCRDCheck({
    client,
    registry: parts.registry,
    log,
    events: parts.events,
    onChange: requeueAll,
  });
  // Steady state: each catalog's last successful sync, void once drift is seen (or may have been
  // missed: a relist), so that a poll that finds the same digest costs no LIST and no parse.
  // Marked dirty by the same events, through the same predicates, that queue a drift reconcile.
  const syncMemo = new SyncMemo(() => metadataRefs?.listCount ?? 0);
  const images = imagePruner(
    puller,
    informer,
    (err) => log.warn({ err }, 'image cache prune failed'),
    (removed) => log.info({ removed }, 'image cache: removed images no catalog serves'),
  );
  void informer.waitForSync().then((synced) => {
    if (synced) images.prune();
  });
  const catalogController = new ClusterCatalogController({
    catalogs: informer,
    api: clusterCatalogAPI(catalogs, parts.events, parts.writeRate),
    reconcile: {
      ports: {
        puller,
        syncer,
        content,
        syncSlots: new SyncSlots(opts.workers),
        syncMemo,
        crdProblem: () => crdCheck.check.problem(),
        driftWatchHold,
      },
      settings: {
        maxObjectBytes: opts.maxObjectBytes,
        contentProfile: opts.contentProfile,
        pullTimeoutMs: opts.pullTimeoutMs,
        driftWatchPauseWrites: opts.driftWatchPauseWrites,
      },
      clock: realClock,
    },
    cleanup: async (name) => {
      await content.remove(name);
      images.latestResolved.delete(name);
      // The unpacked image goes too, unless another catalog still uses the same digest.
      const digest = digestToEvict(name, informer.values());
      if (digest) await puller.evict(digest);
    },
    removeOrphans: async (name) => void (await syncer.deleteAll(name)),
    onOutcome: (name, outcome) => {
      if (!outcome.error)
        metrics.objectsPerCatalog.set({ catalog: name }, outcome.status.objectCount ?? 0);
      // After every attempt, synced or failed: a refused image goes unless a catalog serves it.
      images.latestResolved.set(name, outcome.status.resolvedSource?.image.ref);
      images.prune();
    },
  });
  const reconciler = new Controller({
    name: 'clustercatalog',
    reconcile: (key, signal, interrupted) => catalogController.reconcile(key, signal, interrupted),
    watches: [
      watch(informer, (c) => c.metadata.name, catalogNeedsReconcile),
      // Drift: a hand edit or deletion of one of a catalog's objects reconciles that catalog.
      ...(metadataRefs
        ? [
            watch(
              metadataRefs,
              owningCatalog,
              catalogMetadataChanged,
              catalogMetadataAdded,
              catalogMetadataDeleted((...a) => syncMemo.deletedBySync(...a)),
            ),
          ]
        : []),
    ],
    // A reconcile waiting on a registry holds one of these, not one of the --workers slots of
    // the parse and writes (docs/controller.md, "Fairness").
    concurrency: Math.max(opts.workers, opts.pullWorkers),
    // A failed sync writes (forward, then the rollback): retrying it every few milliseconds, as
    // controller-runtime's 5 ms base would, churns every watcher of the catalog. 1 s doubling
    // to 10 min per catalog.
    rateLimiter: new ItemExponentialFailureRateLimiter(1000, 10 * 60 * 1000),
    metrics: parts.runtimeMetrics,
    onReconciled: (key, outcome, durationMs, error) => {
      if (error) log.warn({ catalog: key, durationMs, err: error }, 'reconcile failed');
      else log.info({ catalog: key, durationMs, outcome }, 'reconciled');
    },
  });
  const replicator = contentReplicator(informer, parts);
  const unsubscribe = subscribeToChanges(informer, metadataRefs, reconciler, syncMemo);

  return {
    informers: metadataRefs ? [informer, metadataRefs] : [informer],
    catalogs: informer,
    requeueAll,
    run: async (signal, onElector) => {
      const informersRun = runInformers(signal, informer, metadataRefs, crdCheck);
      const replicatorRun = replicator.run(signal);
      const work = opts.leaderElection
        ? leadWhileElected(
            {
              election: opts.leaderElection,
              client,
              log,
              runtimeMetrics: parts.runtimeMetrics,
              // Another replica may have written while this one did not lead.
              onStartedLeading: (leading) => {
                syncMemo.clearAll();
                return reconciler.run(leading);
              },
              ...(onElector && { onElector }),
            },
            signal,
          )
        : reconciler.run(signal);
      await Promise.all([work, replicatorRun, informersRun]);
    },
    stop: () => {
      unsubscribe();
      crdCheck.stop();
    },
  };
}

function runInformers(
  signal: AbortSignal,
  catalogs: Informer<ClusterCatalog>,
  metadataRefs: Informer<CatalogMetadataRef> | undefined,
  crdCheck: CRDCheckWiring,
): Promise<unknown> {
  return Promise.all([
    catalogs.run(signal),
    metadataRefs?.run(signal),
    crdCheck.informer.run(signal),
  ]);
}

/** The controller's own metrics, beside the runtime's, the source's and the sync's. */
function clusterCatalogMetrics(registry: Registry) {
  return {
    objectsPerCatalog: new Gauge({
      name: 'catalogd_catalog_objects',
      help: 'CatalogMetadata objects per catalog, as of its last successful sync.',
      labelNames: ['catalog'] as const,
      registers: [registry],
    }),
    driftWatchPauses: new Counter({
      name: 'catalogd_drift_watch_pauses_total',
      help: 'Times the CatalogMetadata drift watch was closed while a sync wrote (--drift-watch-pause-writes).',
      registers: [registry],
    }),
  };
}

/** Every replica serves content: this controller is not gated by leader election. */
function contentReplicator(
  informer: Informer<ClusterCatalog>,
  parts: Pick<ClusterCatalogParts, 'puller' | 'content' | 'log' | 'runtimeMetrics'>,
): Controller {
  const { puller, content, log } = parts;
  return new Controller({
    name: 'content',
    reconcile: (key) => replicateContent(key, informer.get(key), { puller, content }),
    watches: [watch(informer, (c) => c.metadata.name)],
    concurrency: 1,
    metrics: parts.runtimeMetrics,
    onReconciled: (key, _outcome, durationMs, error) => {
      if (error) log.warn({ catalog: key, durationMs, err: error }, 'content replication failed');
    },
  });
}

/**
 * The memo's drift marks (the same events and predicates that queue a drift reconcile), and a
 * catalog deleted or changed: its attempt in flight is moot, so it stops now rather than at the
 * end of its pull (the update also queues the catalog, which is reconciled next).
 */
function subscribeToChanges(
  informer: Informer<ClusterCatalog>,
  metadataRefs: Informer<CatalogMetadataRef> | undefined,
  controller: Controller,
  syncMemo: SyncMemo,
): () => void {
  const unsubscribeMemo = metadataRefs?.subscribe(
    owningCatalog,
    (name) => syncMemo.markDirty(name),
    catalogMetadataChanged,
    catalogMetadataAdded,
    catalogMetadataDeleted((...a) => syncMemo.deletedBySync(...a)),
  );
  const unsubscribeInterrupts = informer.subscribe(
    (c) => c.metadata.name,
    (name) => void controller.interrupt(name, 'deleted or its spec changed'),
    (old, obj) => attemptMootBecause(old, obj) !== undefined,
    () => false,
  );
  return () => {
    unsubscribeInterrupts();
    unsubscribeMemo?.();
  };
}
