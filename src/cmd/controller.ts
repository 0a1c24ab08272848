// `catalogd controller`: the entry point, and the one place where the parts are wired together:
// options parsed and checked (controller-options.ts), the parts built, then run until a signal.
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { ClusterCatalog } from '../api/v1/index.js';
import { CLUSTER_CATALOG_PLURAL, GROUP, VERSION } from '../api/v1/index.js';
import type { ClusterCatalogAPI } from '../controllers/clustercatalog/controller.js';
import { ClusterCatalogController } from '../controllers/clustercatalog/controller.js';
import { digestToEvict, servedDigests } from '../controllers/clustercatalog/image-cache.js';
import type { CatalogMetadataRef } from '../controllers/clustercatalog/predicates.js';
import {
  attemptMootBecause,
  catalogMetadataAdded,
  catalogMetadataChanged,
  catalogMetadataDeleted,
  catalogNeedsReconcile,
  owningCatalog,
} from '../controllers/clustercatalog/predicates.js';
import { replicateContent } from '../controllers/clustercatalog/replicate.js';
import type { DriftWatchHold } from '../controllers/clustercatalog/ports.js';
import { DRIFT_WATCH_MAX_PAUSE_MS } from '../controllers/clustercatalog/ports.js';
import { SyncMemo } from '../controllers/clustercatalog/sync-memo.js';
import { SyncSlots } from '../controllers/clustercatalog/sync-slots.js';
import {
  Controller,
  GracefulShutdown,
  HealthChecks,
  Informer,
  ItemExponentialFailureRateLimiter,
  LeaderElector,
  RuntimeMetrics,
  createMetricsRegistry,
  defaultIdentity,
  realClock,
  startProbeServer,
  syncedCheck,
  watch,
  WatchHold,
} from '../controllers/runtime/index.js';
import { KubeClient, Resource, eventRecorder, leaseClient } from '../kube/index.js';
import type { ContentPublisher } from '../server/index.js';
import { contentPublisher } from '../server/index.js';
import {
  defaultMinimumRate,
  ImagePuller,
  pullerOptionsFromFlags,
  registerSourceMetrics,
} from '../source/index.js';
import { PolicyError, signatureChecks } from '../source/signature/index.js';
import type { CatalogSyncer } from '../sync/index.js';
import { WriteRateLimit, catalogSyncer } from '../sync/index.js';
import { requestRetry } from '../util/backoff.js';
import { parseDuration } from '../util/deadline.js';
import { CommandError, listening } from './command-error.js';
import { clusterCatalogCRDCheck } from './crd-check.js';
import type { ControllerFlags, ControllerOptions } from './controller-options.js';
import { contentServerUrl, parseControllerOptions, usage } from './controller-options.js';
import { checkServerUrlScheme, servingTlsFromFlags, watchServingTls } from './controller-tls.js';
import {
  apiserverCatalogMetadataWriter,
  catalogMetadataRefs,
  clusterCatalogAPI,
  pullSecretSource,
} from './kube-ports.js';
import { textLogDestination } from './log-text.js';
import { reclaimMemoryWhenQuiet } from './controller-memory.js';

export async function main(args: string[]): Promise<number> {
  const opts = parseControllerOptions(args);
  if (!opts) {
    process.stdout.write(usage);
    return 0;
  }
  return runController(await buildController(opts));
}

/** --signature-policy: the checks, or undefined without the flag; a bad policy is a CommandError. */
async function signaturePolicyFromFlags(
  flags: Pick<ControllerFlags, 'signature-policy' | 'signature-policy-interval'>,
  registry: ReturnType<typeof createMetricsRegistry>,
) {
  const file = flags['signature-policy'];
  if (!file) return undefined;
  const intervalMs = parseDuration(flags['signature-policy-interval']);
  if (intervalMs === undefined || intervalMs < 1000)
    throw new CommandError('--signature-policy-interval must be a duration of at least 1s');
  try {
    return { ...(await signatureChecks(file, registry)), intervalMs };
  } catch (err) {
    if (err instanceof PolicyError) throw new CommandError(`--signature-policy: ${err.message}`);
    throw err;
  }
}

type Metrics = ReturnType<typeof controllerMetrics>;

/** The controller's own metrics, beside the runtime's and the source's. */
function controllerMetrics() {
  const registry = createMetricsRegistry();
  return {
    registry,
    runtime: new RuntimeMetrics(registry),
    apiRequests: new Counter({
      name: 'catalogd_apiserver_requests_total',
      help: 'Requests to the apiserver by verb, resource and HTTP status (0: network error).',
      labelNames: ['verb', 'resource', 'code'] as const,
      registers: [registry],
    }),
    objectsPerCatalog: new Gauge({
      name: 'catalogd_catalog_objects',
      help: 'CatalogMetadata objects per catalog, as of its last successful sync.',
      labelNames: ['catalog'] as const,
      registers: [registry],
    }),
    writes: new Counter({
      name: 'catalogd_catalogmetadata_writes_total',
      help: 'Successful CatalogMetadata writes by catalog and verb (create, update, delete).',
      labelNames: ['catalog', 'verb'] as const,
      registers: [registry],
    }),
    writeWindowDecreases: new Counter({
      name: 'catalogd_catalogmetadata_write_window_decreases_total',
      help: 'Times write pacing shrank the window of CatalogMetadata writes in flight, by reason (latency: the apiserver queues them; throttled: 429 or 503/504).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    driftWatchPauses: new Counter({
      name: 'catalogd_drift_watch_pauses_total',
      help: 'Times the CatalogMetadata drift watch was closed while a sync wrote (--drift-watch-pause-writes).',
      registers: [registry],
    }),
    dryRunWrites: new Counter({
      name: 'catalogd_catalogmetadata_dry_run_writes_total',
      help: 'CatalogMetadata writes sent with server-side dry-run (checks of a revision admission refused), by catalog and verb.',
      labelNames: ['catalog', 'verb'] as const,
      registers: [registry],
    }),
  };
}

function controllerLog(opts: ControllerOptions): Logger {
  const logOptions = { level: opts.flags['log-level'], base: { component: 'catalogd' } };
  return opts.logFormat === 'text'
    ? pino(logOptions, textLogDestination(process.stdout))
    : pino(logOptions);
}

/** The image source: pulls through the registries' config, pull secrets and signature policy. */
async function buildPuller(
  opts: ControllerOptions,
  client: KubeClient,
  namespace: string,
  metrics: Metrics,
) {
  const { flags } = opts;
  const sourceOpts = await pullerOptionsFromFlags({
    cacheDir: path.join(opts.cacheDir, 'images'),
    ...(flags['registries-conf'] && { registriesConf: flags['registries-conf'] }),
    ...(flags['ca-bundle'] && { caFile: flags['ca-bundle'] }),
    platform: flags.platform,
  });
  const signatures = await signaturePolicyFromFlags(flags, metrics.registry);
  const puller = new ImagePuller({
    ...sourceOpts,
    ...(signatures && { signatures: signatures.verifier }),
    minimumRate: { ...defaultMinimumRate, bytesPerSecond: opts.pullMinRate },
    maxCacheBytes: opts.maxCacheBytes,
    // No redirect or token realm may send a pull to the apiserver (docs/source.md).
    forbiddenHosts: [process.env.KUBERNETES_SERVICE_HOST ?? '', client.server.hostname],
    pullSecrets: pullSecretSource(client, {
      ...(flags['global-pull-secret'] && { globalSecret: flags['global-pull-secret'] }),
      namespace: process.env.POD_NAMESPACE ?? namespace,
      ...(process.env.POD_SERVICE_ACCOUNT && { serviceAccount: process.env.POD_SERVICE_ACCOUNT }),
    }),
  });
  registerSourceMetrics(metrics.registry, puller.counters);
  return { puller, signatures };
}

/** The sync (src/sync/syncer.ts) over the apiserver, its writes counted in `metrics`. */
async function buildSyncer(
  opts: ControllerOptions,
  client: KubeClient,
  metrics: Metrics,
  writeRate: WriteRateLimit | undefined,
): Promise<CatalogSyncer> {
  // The writes a sync has planned, spooled between its two passes (src/sync/spool.ts). A spool
  // left by a killed process is of no use: start empty. Per host name, so that replicas sharing
  // a cache volume never remove each other's.
  const spoolDir = path.join(opts.cacheDir, 'sync', os.hostname());
  await rm(spoolDir, { recursive: true, force: true });
  await mkdir(spoolDir, { recursive: true });
  const syncer = catalogSyncer({
    writer: apiserverCatalogMetadataWriter(client),
    spoolDir,
    writeConcurrency: opts.writeConcurrency,
    ...(opts.writePacing && {
      pacing: {
        ...opts.writePacing,
        clock: realClock,
        onDecrease: (reason) => metrics.writeWindowDecreases.inc({ reason }),
      },
    }),
    ...(writeRate && { writeRate }),
    counters: { writes: metrics.writes, dryRunWrites: metrics.dryRunWrites },
  });
  new Gauge({
    name: 'catalogd_catalogmetadata_write_window',
    help: 'CatalogMetadata writes a catalog may have in flight now (write pacing: between --min-write-concurrency and --write-concurrency).',
    registers: [metrics.registry],
    collect() {
      this.set(syncer.pacing.window);
    },
  });
  return syncer;
}

/**
 * The image cache keeps only what catalogs serve (and what attempts hold): pruned once the
 * informer has synced, then after each attempt. One prune at a time; a request during one runs
 * once after it.
 */
function imagePruner(puller: ImagePuller, informer: Informer<ClusterCatalog>, log: Logger) {
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
        const removed = await puller
          .prune(servedDigests(informer.values(), latestResolved))
          .catch((err: unknown) => {
            log.warn({ err }, 'image cache prune failed');
            return [];
          });
        if (removed.length > 0)
          log.info({ removed }, 'image cache: removed images no catalog serves');
      } while (pruneAgain);
      pruning = undefined;
    })();
  };
  void informer.waitForSync().then((synced) => {
    if (synced) prune();
  });
  return { latestResolved, prune };
}

/** The ClusterCatalog controller (leader only) and the content replicator (every replica). */
function buildControllers(
  opts: ControllerOptions,
  log: Logger,
  metrics: Metrics,
  parts: {
    informer: Informer<ClusterCatalog>;
    metadataRefs: Informer<CatalogMetadataRef>;
    api: ClusterCatalogAPI;
    puller: ImagePuller;
    syncer: CatalogSyncer;
    content: ContentPublisher;
    syncMemo: SyncMemo;
    crdProblem: () => string | undefined;
    driftWatchHold: DriftWatchHold;
  },
) {
  const { informer, metadataRefs, api, puller, syncer, content, syncMemo, crdProblem } = parts;
  const { driftWatchHold } = parts;
  const images = imagePruner(puller, informer, log);
  const catalogController = new ClusterCatalogController({
    catalogs: informer,
    api,
    deps: {
      puller,
      syncer,
      content,
      clock: realClock,
      maxObjectBytes: opts.maxObjectBytes,
      contentProfile: opts.contentProfile,
      pullTimeoutMs: opts.pullTimeoutMs,
      syncSlots: new SyncSlots(opts.workers),
      syncMemo,
      crdProblem,
      ...(opts.driftWatchPauseWrites > 0 && {
        driftWatch: { hold: driftWatchHold, fromWrites: opts.driftWatchPauseWrites },
      }),
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
  const controller = new Controller({
    name: 'clustercatalog',
    reconcile: (key, signal, interrupted) => catalogController.reconcile(key, signal, interrupted),
    watches: [
      watch(informer, (c) => c.metadata.name, catalogNeedsReconcile),
      // Drift: a hand edit or deletion of one of a catalog's objects reconciles that catalog.
      watch(
        metadataRefs,
        owningCatalog,
        catalogMetadataChanged,
        catalogMetadataAdded,
        catalogMetadataDeleted((...a) => syncMemo.deletedBySync(...a)),
      ),
    ],
    // A reconcile waiting on a registry holds one of these, not one of the --workers slots of
    // the parse and writes (docs/controller.md, "Fairness").
    concurrency: Math.max(opts.workers, opts.pullWorkers),
    // A failed sync writes (forward, then the rollback): retrying it every few milliseconds, as
    // controller-runtime's 5 ms base would, churns every watcher of the catalog. 1 s doubling
    // to 10 min per catalog.
    rateLimiter: new ItemExponentialFailureRateLimiter(1000, 10 * 60 * 1000),
    metrics: metrics.runtime,
    onReconciled: (key, outcome, durationMs, error) => {
      if (error) log.warn({ catalog: key, durationMs, err: error }, 'reconcile failed');
      else log.info({ catalog: key, durationMs, outcome }, 'reconciled');
    },
  });
  return { controller, replicator: contentReplicator(log, metrics, { informer, puller, content }) };
}

/** Every replica serves content: this controller is not gated by leader election. */
function contentReplicator(
  log: Logger,
  metrics: Metrics,
  parts: { informer: Informer<ClusterCatalog>; puller: ImagePuller; content: ContentPublisher },
): Controller {
  const { informer, puller, content } = parts;
  return new Controller({
    name: 'content',
    reconcile: (key) => replicateContent(key, informer.get(key), { puller, content }),
    watches: [watch(informer, (c) => c.metadata.name)],
    concurrency: 1,
    metrics: metrics.runtime,
    onReconciled: (key, _outcome, durationMs, error) => {
      if (error) log.warn({ catalog: key, durationMs, err: error }, 'content replication failed');
    },
  });
}

/** The ClusterCatalogs (full objects) and the CatalogMetadata references (metadata only). */
function buildInformers(client: KubeClient, log: Logger, metrics: Metrics) {
  const catalogs = new Resource<ClusterCatalog>(client, {
    group: GROUP,
    version: VERSION,
    plural: CLUSTER_CATALOG_PLURAL,
  });
  const informer = new Informer<ClusterCatalog>({
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
  const metadataRefs = new Informer<CatalogMetadataRef>({
    name: 'catalogmetadata',
    listWatch: catalogMetadataRefs(client),
    onError: (err) => log.warn({ err }, 'catalogmetadata watch failed; restarting'),
    pause: driftWatchHold,
  });
  return { catalogs, informer, metadataRefs, driftWatchHold };
}

type Built = Awaited<ReturnType<typeof buildController>>;

/** The content server, over HTTPS (its certificate reloaded as it changes) when given one. */
async function buildContentServer(opts: ControllerOptions, log: Logger, metrics: Metrics) {
  const { flags } = opts;
  const memory = reclaimMemoryWhenQuiet(opts.memoryReclaimIntervalMs, log);
  const tls = await servingTlsFromFlags(flags, realClock);
  checkServerUrlScheme(flags['server-url'], tls !== undefined);
  const serverUrl = contentServerUrl(opts, tls !== undefined);
  const content = await listening('server-addr', flags['server-addr'], () =>
    contentPublisher({
      dir: path.join(opts.cacheDir, 'content'),
      serverUrl,
      listen: opts.serverAddr,
      ...(tls && { tls: tls.certificate.current() }),
      limits: opts.serverLimits,
      beforeBuild: () => memory.beforeBurst(),
    }),
  );
  const stopTlsWatch =
    tls &&
    watchServingTls(tls, (pair) => content.setCertificate(pair), {
      clock: realClock,
      registry: metrics.registry,
      log,
    });
  return { content, serverUrl, stopTlsWatch, memory };
}

/** Every part, wired; nothing runs yet but the content server's listener. */
async function buildController(opts: ControllerOptions) {
  const { flags } = opts;
  const log = controllerLog(opts);
  const metrics = controllerMetrics();
  const client = new KubeClient({
    ...(flags.kubeconfig && { kubeconfig: flags.kubeconfig }),
    maxSockets: opts.writeConcurrency + 8,
    retry: requestRetry(realClock),
    onRequest: (verb, resource, code) =>
      metrics.apiRequests.inc({ verb, resource, code: String(code) }),
  });
  const namespace =
    flags['leader-election-namespace'] ??
    process.env.POD_NAMESPACE ??
    client.contextNamespace ??
    'default';
  const identity = defaultIdentity();
  const { puller, signatures } = await buildPuller(opts, client, namespace, metrics);
  // --max-write-rate: one ceiling for the writes of the process (objects, status, events; not
  // the leader lease's renewals, which must not wait).
  const writeRate =
    opts.maxWriteRate > 0 ? new WriteRateLimit(opts.maxWriteRate, realClock) : undefined;
  const syncer = await buildSyncer(opts, client, metrics, writeRate);
  const { content, serverUrl, stopTlsWatch, memory } = await buildContentServer(opts, log, metrics);
  const { catalogs, informer, metadataRefs, driftWatchHold } = buildInformers(client, log, metrics);
  const events = eventRecorder(client, { component: 'catalogd-ts', instance: identity });
  // Another ClusterCatalog CRD (OLM v1's) applied over ours prunes our status fields: said in
  // logs, an event, a metric and every catalog's Progressing message; its end re-queues them.
  const crdCheck = clusterCatalogCRDCheck({
    client,
    registry: metrics.registry,
    log,
    events,
    onChange: () => {
      for (const c of informer.values()) controller.queue?.add(c.metadata.name);
    },
  });
  // Steady state: each catalog's last successful sync, void once drift is seen (or may have been
  // missed: a relist), so that a poll that finds the same digest costs no LIST and no parse.
  // Marked dirty by the same events, through the same predicates, that queue a drift reconcile.
  const syncMemo = new SyncMemo(() => metadataRefs.listCount);
  const { controller, replicator } = buildControllers(opts, log, metrics, {
    informer,
    metadataRefs,
    api: clusterCatalogAPI(catalogs, events, writeRate),
    puller,
    syncer,
    content,
    syncMemo,
    crdProblem: () => crdCheck.check.problem(),
    driftWatchHold,
  });
  return {
    opts,
    log,
    metrics,
    client,
    namespace,
    identity,
    signatures,
    content,
    serverUrl,
    stopTlsWatch,
    memory,
    informer,
    metadataRefs,
    syncMemo,
    controller,
    replicator,
    crdCheck,
  };
}

/** Runs the built parts until a signal: probes, informers, the replicator, the controller. */
async function runController(app: Built): Promise<number> {
  const { opts, log, client, informer, metadataRefs, controller, content } = app;
  const healthz = new HealthChecks('healthz');
  const readyz = new HealthChecks('readyz');
  readyz.add('informers-synced', syncedCheck([informer, metadataRefs]));
  const shutdown = new GracefulShutdown();
  shutdown.installSignalHandlers();
  const { signal } = shutdown;
  const probes = await listening('health-addr', opts.flags['health-addr'], () =>
    startProbeServer({ healthz, readyz, ...opts.healthAddr }),
  );
  const metricsServer = await listening('metrics-addr', opts.flags['metrics-addr'], () =>
    startProbeServer({ metrics: app.metrics.registry, ...opts.metricsAddr }),
  );
  shutdown.onShutdown('probe servers', async () => {
    await probes.close();
    await metricsServer.close();
  });
  shutdown.onShutdown('content server', () => {
    app.stopTlsWatch?.();
    return content.close();
  });
  shutdown.onShutdown('apiserver connections', () => client.close());
  shutdown.onShutdown('memory reclaim', () => app.memory.stop());
  log.info(
    {
      identity: app.identity,
      namespace: app.namespace,
      server: app.serverUrl,
      health: probes.url,
      metrics: metricsServer.url,
    },
    'catalogd controller starting',
  );
  const unsubscribe = subscribeToChanges(app);
  shutdown.onShutdown('interrupts', () => {
    unsubscribe();
    app.crdCheck.stop();
  });
  const stopPolicyWatch = watchSignaturePolicy(app);
  shutdown.onShutdown('signature policy', () => stopPolicyWatch?.());
  const informerRun = Promise.all([
    informer.run(signal),
    metadataRefs.run(signal),
    app.crdCheck.informer.run(signal),
  ]);
  const replicatorRun = app.replicator.run(signal);
  const work = opts.flags['leader-elect']
    ? leadWhileElected(app, healthz, signal)
    : controller.run(signal);
  shutdown.onShutdown('controller', async () => {
    await Promise.all([work, replicatorRun, informerRun]);
  });
  await Promise.all([work, replicatorRun, informerRun]);
  return 0;
}

/**
 * The memo's drift marks (the same events and predicates that queue a drift reconcile), and a
 * catalog deleted or changed: its attempt in flight is moot, so it stops now rather than at the
 * end of its pull (the update also queues the catalog, which is reconciled next).
 */
function subscribeToChanges(app: Built): () => void {
  const { informer, metadataRefs, controller, syncMemo } = app;
  const unsubscribeMemo = metadataRefs.subscribe(
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
    unsubscribeMemo();
  };
}

/**
 * A new signature policy: every catalog is looked at again, a refused one may now be accepted
 * (and one accepted before is verified again: the verifier forgot what the old policy passed).
 */
function watchSignaturePolicy(app: Built): (() => void) | undefined {
  const { signatures, log, informer, controller } = app;
  return signatures?.file.watch(realClock, signatures.intervalMs, {
    onChange: () => {
      log.info({ file: signatures.file.path }, 'signature policy reloaded');
      for (const c of informer.values()) controller.queue?.add(c.metadata.name);
    },
    onError: (err) =>
      log.error({ reason: err.message }, 'signature policy not reloaded; the previous one stays'),
  });
}

/**
 * Runs the controller while this replica holds the lease. A replica that loses the lease (e.g.
 * it could not renew while the apiserver was down) campaigns again with a new elector, as a
 * standby: it must not sit out leaderless.
 */
async function leadWhileElected(
  app: Built,
  healthz: HealthChecks,
  signal: AbortSignal,
): Promise<void> {
  const { log, identity, controller, syncMemo, opts } = app;
  let elector: LeaderElector | undefined;
  healthz.add('leader-election', () => {
    const err = elector?.check(20_000);
    if (err) throw err;
  });
  while (!signal.aborted) {
    elector = new LeaderElector({
      leaseName: opts.flags['leader-election-id'],
      ...opts.leaderElection,
      identity,
      client: leaseClient(app.client, app.namespace),
      onStartedLeading: (leading) => {
        log.info({ identity }, 'became leader');
        // Another replica may have written while this one did not lead.
        syncMemo.clearAll();
        return controller.run(leading);
      },
      onStoppedLeading: () => log.info({ identity }, 'stopped leading'),
      onNewLeader: (leader) => log.info({ leader }, 'leader is'),
      onError: (err, during) => log.warn({ err, during }, 'leader election'),
    });
    app.metrics.runtime.watchLeadership('catalogd-ts', elector);
    await elector.run(signal);
    if (signal.aborted) break;
    log.warn({ identity }, 'lost leadership; campaigning again');
    await delay(2000, undefined, { signal }).catch(() => undefined);
  }
}
