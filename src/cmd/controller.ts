// `catalogd controller`: the entry point, and the one place where the parts are wired together.
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { ClusterCatalog } from '../api/v1/index.js';
import {
  CLUSTER_CATALOG_PLURAL,
  CONTENT_PROFILE_FULL,
  CONTENT_PROFILES,
  GROUP,
  VERSION,
  isContentProfile,
} from '../api/v1/index.js';
import { ClusterCatalogController } from '../controllers/clustercatalog/controller.js';
import type { Syncer } from '../controllers/clustercatalog/reconcile.js';
import { digestToEvict } from '../controllers/clustercatalog/image-cache.js';
import type { CatalogMetadataRef } from '../controllers/clustercatalog/predicates.js';
import {
  attemptMootBecause,
  catalogMetadataAdded,
  catalogMetadataChanged,
  catalogNeedsReconcile,
  owningCatalog,
} from '../controllers/clustercatalog/predicates.js';
import { replicateContent } from '../controllers/clustercatalog/replicate.js';
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
} from '../controllers/runtime/index.js';
import { DEFAULT_MAX_OBJECT_BYTES } from '../fbc/index.js';
import { KubeClient, Resource, eventRecorder, leaseClient } from '../kube/index.js';
import {
  defaultMinimumRate,
  ImagePuller,
  parseDuration,
  pullerOptionsFromFlags,
  registerSourceMetrics,
} from '../source/index.js';
import { SyncSlots } from '../controllers/clustercatalog/sync-slots.js';
import { SyncMemo } from '../controllers/clustercatalog/sync-memo.js';
import type { CatalogMetadataWriter } from '../sync/index.js';
import { AdmissionRefusals, applyPlan, deleteAll, planCatalogSync } from '../sync/index.js';
import { requestRetry } from '../util/backoff.js';
import { PolicyError, signatureChecks } from '../source/signature/index.js';
import { CommandError, listening } from './command-error.js';
import { contentPublisher } from './content.js';
import {
  catalogMetadataRefs,
  apiserverCatalogMetadataWriter,
  clusterCatalogAPI,
  pullSecretSource,
} from './kube-ports.js';
import { textLogDestination } from './log-text.js';

const controllerFlags = {
  kubeconfig: { type: 'string' },
  'leader-elect': { type: 'boolean', default: true },
  'leader-election-namespace': { type: 'string' },
  'leader-election-id': { type: 'string', default: 'catalogd-ts-leader' },
  'metrics-addr': { type: 'string', default: ':8080' },
  'health-addr': { type: 'string', default: ':8081' },
  'server-addr': { type: 'string', default: ':8090' },
  'server-url': { type: 'string' },
  'cache-dir': { type: 'string', default: '/var/cache/catalogd' },
  workers: { type: 'string', default: '2' },
  'pull-workers': { type: 'string', default: '16' },
  'pull-timeout': { type: 'string', default: '10m' },
  'pull-min-rate': { type: 'string', default: String(defaultMinimumRate.bytesPerSecond) },
  // 32 rather than 16: the write phase of a 50 MB cold sync took 51 s instead of 59 to 69 s, with
  // less controller CPU (bench/README.md); the apiserver's priority and fairness bounds the rest.
  'write-concurrency': { type: 'string', default: '32' },
  'max-object-bytes': { type: 'string', default: String(DEFAULT_MAX_OBJECT_BYTES) },
  'content-profile': { type: 'string', default: CONTENT_PROFILE_FULL },
  'global-pull-secret': { type: 'string' },
  'ca-bundle': { type: 'string' },
  'registries-conf': { type: 'string' },
  'signature-policy': { type: 'string' },
  'signature-policy-interval': { type: 'string', default: '10s' },
  platform: { type: 'string', default: 'linux/amd64' },
  'log-level': { type: 'string', default: 'info' },
  'log-format': { type: 'string', default: 'json' },
  help: { type: 'boolean', short: 'h' },
} as const;

const usage = `usage: catalogd controller [flags]

Reconciles ClusterCatalogs into CatalogMetadata objects and serves catalog content over HTTP.

  --kubeconfig PATH                  kubeconfig (default: $KUBECONFIG, ~/.kube/config, else in-cluster)
  --leader-elect                     elect a leader with a Lease; only the leader writes (default true;
                                     --no-leader-elect to disable)
  --leader-election-namespace NS     namespace of the Lease (default: $POD_NAMESPACE, the kubeconfig's
                                     namespace, else "default")
  --leader-election-id NAME          name of the Lease (default catalogd-ts-leader)
  --metrics-addr HOST:PORT           /metrics (default :8080)
  --health-addr HOST:PORT            /healthz and /readyz (default :8081)
  --server-addr HOST:PORT            the HTTP content server (default :8090)
  --server-url URL                   base URL clients reach the content server at, used in
                                     status.urls.base (default http://<server-addr>, with 127.0.0.1
                                     for an empty host)
  --cache-dir DIR                    unpacked images and served content (default /var/cache/catalogd)
  --workers N                        catalogs that parse and write at once (default 2)
  --pull-workers N                   catalog attempts in flight at once, pulling or waiting for
                                     one of --workers (default 16): a slow registry holds one of
                                     these, never a write slot
  --pull-timeout DURATION            time bound of an attempt's resolve, download, unpack and
                                     parse, e.g. 90s, 10m (default 10m)
  --pull-min-rate BYTES              a blob transfer slower than this many bytes per second over
                                     30 s fails (default 1024; 0: no minimum)
  --write-concurrency N              CatalogMetadata writes in flight per catalog (default 32)
  --max-object-bytes N               larger objects carry spec.contentOmitted (default 1048576)
  --content-profile full|lean        what CatalogMetadata objects hold: full, the whole blob
                                     (default); lean, without display-only parts (the package
                                     icon, olm.csv.metadata and olm.bundle.object properties),
                                     which stay on the HTTP server. A ClusterCatalog's annotation
                                     olm.operatorframework.io/content-profile overrides it
  --global-pull-secret NS/NAME       a kubernetes.io/dockerconfigjson Secret used for every pull
  --ca-bundle FILE                   PEM CA certificates trusted for registries
  --registries-conf FILE             mirrors and insecure registries ([[registry]] tables)
  --signature-policy FILE            containers-policy.json(5) policy: catalog images are verified
                                     against cosign signatures before anything is pulled
                                     (docs/source.md, "Signatures"); none: no verification
  --signature-policy-interval DURATION
                                     how often the policy file is re-read (default 10s)
  --platform OS/ARCH                 platform picked from image indexes (default linux/amd64)
  --log-level LEVEL                  pino level (default info)
  --log-format json|text             json: one pino JSON object per line (default); text: one
                                     human-readable line per record, for a terminal

Environment: POD_NAMESPACE and POD_SERVICE_ACCOUNT name the controller's namespace and
ServiceAccount, whose imagePullSecrets are used for pulls.
`;

function hostPort(flag: string, addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i) || '0.0.0.0';
  const port = Number(addr.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CommandError(
      `--${flag}: invalid address ${JSON.stringify(addr)}: want HOST:PORT or :PORT`,
    );
  }
  return { host, port };
}

function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new CommandError(`--${name} must be a positive integer`);
  }
  return n;
}

/** The flags, with a mistake in them (an unknown flag, a missing value) as a CommandError. */
function parseFlags(args: string[]) {
  try {
    return parseArgs({ args, options: controllerFlags, allowNegative: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      throw new CommandError(`controller: ${(err as Error).message}`);
    }
    throw err;
  }
}

/** --signature-policy: the checks, or undefined without the flag; a bad policy is a CommandError. */
async function signaturePolicyFromFlags(
  flags: { 'signature-policy'?: string | undefined; 'signature-policy-interval': string },
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

export async function main(args: string[]): Promise<number> {
  const { values: flags } = parseFlags(args);
  if (flags.help) {
    process.stdout.write(usage);
    return 0;
  }
  const logFormat = flags['log-format'];
  if (logFormat !== 'json' && logFormat !== 'text') {
    throw new CommandError(`--log-format must be json or text, not ${JSON.stringify(logFormat)}`);
  }
  const logOptions = { level: flags['log-level'], base: { component: 'catalogd' } };
  const log =
    logFormat === 'text' ? pino(logOptions, textLogDestination(process.stdout)) : pino(logOptions);
  const workers = positiveInt('workers', flags.workers);
  const pullWorkers = positiveInt('pull-workers', flags['pull-workers']);
  const pullTimeoutMs = parseDuration(flags['pull-timeout']);
  if (pullTimeoutMs === undefined || pullTimeoutMs < 1000)
    throw new CommandError('--pull-timeout must be a duration of at least 1s, e.g. 90s or 10m');
  const pullMinRate = Number(flags['pull-min-rate']);
  if (!Number.isInteger(pullMinRate) || pullMinRate < 0)
    throw new CommandError('--pull-min-rate must be a whole number of bytes per second');
  const writeConcurrency = positiveInt('write-concurrency', flags['write-concurrency']);
  const maxObjectBytes = positiveInt('max-object-bytes', flags['max-object-bytes']);
  const contentProfile = flags['content-profile'];
  if (!isContentProfile(contentProfile))
    throw new CommandError(
      `--content-profile must be ${CONTENT_PROFILES.join(' or ')}, not ${JSON.stringify(contentProfile)}`,
    );
  const cacheDir = path.resolve(flags['cache-dir']);
  const serverAddr = hostPort('server-addr', flags['server-addr']);

  const registry = createMetricsRegistry();
  const runtimeMetrics = new RuntimeMetrics(registry);
  const apiRequests = new Counter({
    name: 'catalogd_apiserver_requests_total',
    help: 'Requests to the apiserver by verb, resource and HTTP status (0: network error).',
    labelNames: ['verb', 'resource', 'code'] as const,
    registers: [registry],
  });
  const objectsPerCatalog = new Gauge({
    name: 'catalogd_catalog_objects',
    help: 'CatalogMetadata objects per catalog, as of its last successful sync.',
    labelNames: ['catalog'] as const,
    registers: [registry],
  });
  const writesTotal = new Counter({
    name: 'catalogd_catalogmetadata_writes_total',
    help: 'Successful CatalogMetadata writes by catalog and verb (create, update, delete).',
    labelNames: ['catalog', 'verb'] as const,
    registers: [registry],
  });
  const dryRunWritesTotal = new Counter({
    name: 'catalogd_catalogmetadata_dry_run_writes_total',
    help: 'CatalogMetadata writes sent with server-side dry-run (checks of a revision admission refused), by catalog and verb.',
    labelNames: ['catalog', 'verb'] as const,
    registers: [registry],
  });

  const client = new KubeClient({
    ...(flags.kubeconfig && { kubeconfig: flags.kubeconfig }),
    maxSockets: writeConcurrency + 8,
    retry: requestRetry(realClock),
    onRequest: (verb, resource, code) => apiRequests.inc({ verb, resource, code: String(code) }),
  });
  const namespace =
    flags['leader-election-namespace'] ??
    process.env.POD_NAMESPACE ??
    client.contextNamespace ??
    'default';
  const identity = defaultIdentity();

  const sourceOpts = await pullerOptionsFromFlags({
    cacheDir: path.join(cacheDir, 'images'),
    ...(flags['registries-conf'] && { registriesConf: flags['registries-conf'] }),
    ...(flags['ca-bundle'] && { caFile: flags['ca-bundle'] }),
    platform: flags.platform,
  });
  const signatures = await signaturePolicyFromFlags(flags, registry);
  const puller = new ImagePuller({
    ...sourceOpts,
    ...(signatures && { signatures: signatures.verifier }),
    minimumRate: { ...defaultMinimumRate, bytesPerSecond: pullMinRate },
    pullSecrets: pullSecretSource(client, {
      ...(flags['global-pull-secret'] && { globalSecret: flags['global-pull-secret'] }),
      namespace: process.env.POD_NAMESPACE ?? namespace,
      ...(process.env.POD_SERVICE_ACCOUNT && { serviceAccount: process.env.POD_SERVICE_ACCOUNT }),
    }),
  });
  registerSourceMetrics(registry, puller.counters);

  // The writes a sync has planned, spooled between its two passes (src/sync/spool.ts). A spool
  // left by a killed process is of no use: start empty. Per host name, so that replicas sharing
  // a cache volume never remove each other's.
  const spoolDir = path.join(cacheDir, 'sync', os.hostname());
  await rm(spoolDir, { recursive: true, force: true });
  await mkdir(spoolDir, { recursive: true });
  const writer = apiserverCatalogMetadataWriter(client);
  // Writes are counted per catalog: on a cluster with several catalogs, which one causes writes
  // is the question (and a catalog's orphans, removed here, count as that catalog's).
  const countedWriter = (catalog: string): CatalogMetadataWriter => {
    const counted = async (verb: string, write: Promise<void>) => {
      await write;
      writesTotal.inc({ catalog, verb });
    };
    return {
      listExisting: (c, signal) => writer.listExisting(c, signal),
      create: (obj, signal) => counted('create', writer.create(obj, signal)),
      update: (obj, signal) => counted('update', writer.update(obj, signal)),
      delete: (name, uid, signal) => counted('delete', writer.delete(name, uid, signal)),
      dryRun: async (verb, obj, signal) => {
        dryRunWritesTotal.inc({ catalog, verb }); // sent, whatever admission answers
        await writer.dryRun?.(verb, obj, signal);
      },
    };
  };
  // Revisions admission refused, per catalog: their next attempt checks with dry-run first.
  const refusals = new AdmissionRefusals();
  const syncer: Syncer = {
    plan: (target, signal) => planCatalogSync(target, writer, spoolDir, signal),
    apply: (planned, onProgress, signal) =>
      applyPlan(planned, countedWriter(planned.target.catalog.name), {
        concurrency: writeConcurrency,
        refusals,
        onProgress,
        ...(signal && { signal }),
      }),
    deleteAll: (catalog, signal) =>
      deleteAll(catalog, countedWriter(catalog), {
        concurrency: writeConcurrency,
        ...(signal && { signal }),
      }),
  };

  const serverUrl =
    flags['server-url'] ??
    `http://${serverAddr.host === '0.0.0.0' ? '127.0.0.1' : serverAddr.host}:${serverAddr.port}`;
  const content = await listening('server-addr', flags['server-addr'], () =>
    contentPublisher({ dir: path.join(cacheDir, 'content'), serverUrl, listen: serverAddr }),
  );

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
  const events = eventRecorder(client, { component: 'catalogd-ts', instance: identity });
  const metadataRefs = new Informer<CatalogMetadataRef>({
    name: 'catalogmetadata',
    listWatch: catalogMetadataRefs(client),
    onError: (err) => log.warn({ err }, 'catalogmetadata watch failed; restarting'),
  });

  // Steady state: each catalog's last successful sync, void once drift is seen (or may have been
  // missed: a relist), so that a poll that finds the same digest costs no LIST and no parse.
  // Marked dirty by the same events, through the same predicates, that queue a drift reconcile.
  const syncMemo = new SyncMemo(() => metadataRefs.listCount);
  const unsubscribeMemo = metadataRefs.subscribe(
    owningCatalog,
    (name) => syncMemo.markDirty(name),
    catalogMetadataChanged,
    catalogMetadataAdded,
  );

  const catalogController = new ClusterCatalogController({
    catalogs: informer,
    api: clusterCatalogAPI(catalogs, events),
    deps: {
      puller,
      syncer,
      content,
      clock: realClock,
      maxObjectBytes,
      contentProfile,
      pullTimeoutMs,
      syncSlots: new SyncSlots(workers),
      syncMemo,
    },
    cleanup: async (name) => {
      await content.remove(name);
      // The unpacked image goes too, unless another catalog still uses the same digest.
      const digest = digestToEvict(name, informer.values());
      if (digest) await puller.evict(digest);
    },
    removeOrphans: async (name) => void (await syncer.deleteAll(name)),
    onOutcome: (name, outcome) => {
      if (!outcome.error) objectsPerCatalog.set({ catalog: name }, outcome.status.objectCount ?? 0);
    },
  });
  const controller = new Controller({
    name: 'clustercatalog',
    reconcile: (key, signal, interrupted) => catalogController.reconcile(key, signal, interrupted),
    watches: [
      watch(informer, (c) => c.metadata.name, catalogNeedsReconcile),
      // Drift: a hand edit or deletion of one of a catalog's objects reconciles that catalog.
      watch(metadataRefs, owningCatalog, catalogMetadataChanged, catalogMetadataAdded),
    ],
    // A reconcile waiting on a registry holds one of these, not one of the --workers slots of
    // the parse and writes (docs/controller.md, "Fairness").
    concurrency: Math.max(workers, pullWorkers),
    // A failed sync writes (forward, then the rollback): retrying it every few milliseconds, as
    // controller-runtime's 5 ms base would, churns every watcher of the catalog. 1 s doubling
    // to 10 min per catalog.
    rateLimiter: new ItemExponentialFailureRateLimiter(1000, 10 * 60 * 1000),
    metrics: runtimeMetrics,
    onReconciled: (key, outcome, durationMs, error) => {
      if (error) log.warn({ catalog: key, durationMs, err: error }, 'reconcile failed');
      else log.info({ catalog: key, durationMs, outcome }, 'reconciled');
    },
  });

  // Every replica serves content: this one is not gated by leader election.
  const replicator = new Controller({
    name: 'content',
    reconcile: (key) => replicateContent(key, informer.get(key), { puller, content }),
    watches: [watch(informer, (c) => c.metadata.name)],
    concurrency: 1,
    metrics: runtimeMetrics,
    onReconciled: (key, _outcome, durationMs, error) => {
      if (error) log.warn({ catalog: key, durationMs, err: error }, 'content replication failed');
    },
  });

  const healthz = new HealthChecks('healthz');
  const readyz = new HealthChecks('readyz');
  readyz.add('informers-synced', syncedCheck([informer, metadataRefs]));
  const shutdown = new GracefulShutdown();
  shutdown.installSignalHandlers();
  const { signal } = shutdown;

  const metricsAddr = hostPort('metrics-addr', flags['metrics-addr']);
  const healthAddr = hostPort('health-addr', flags['health-addr']);
  const probes = await listening('health-addr', flags['health-addr'], () =>
    startProbeServer({ healthz, readyz, ...healthAddr }),
  );
  const metricsServer = await listening('metrics-addr', flags['metrics-addr'], () =>
    startProbeServer({ metrics: registry, ...metricsAddr }),
  );
  shutdown.onShutdown('probe servers', async () => {
    await probes.close();
    await metricsServer.close();
  });
  shutdown.onShutdown('content server', () => content.close());
  shutdown.onShutdown('apiserver connections', () => client.close());
  log.info(
    { identity, namespace, server: serverUrl, health: probes.url, metrics: metricsServer.url },
    'catalogd controller starting',
  );

  // A catalog deleted or changed: its attempt in flight is moot, so it stops now rather than
  // at the end of its pull (the update also queues the catalog, which is reconciled next).
  const unsubscribeInterrupts = informer.subscribe(
    (c) => c.metadata.name,
    (name) => void controller.interrupt(name, 'deleted or its spec changed'),
    (old, obj) => attemptMootBecause(old, obj) !== undefined,
    () => false,
  );
  shutdown.onShutdown('interrupts', () => {
    unsubscribeInterrupts();
    unsubscribeMemo();
  });
  // A new signature policy: every catalog is looked at again, a refused one may now be accepted
  // (and one accepted before is verified again: the verifier forgot what the old policy passed).
  const stopPolicyWatch = signatures?.file.watch(realClock, signatures.intervalMs, {
    onChange: () => {
      log.info({ file: signatures.file.path }, 'signature policy reloaded');
      for (const c of informer.values()) controller.queue?.add(c.metadata.name);
    },
    onError: (err) =>
      log.error({ reason: err.message }, 'signature policy not reloaded; the previous one stays'),
  });
  shutdown.onShutdown('signature policy', () => stopPolicyWatch?.());
  const informerRun = Promise.all([informer.run(signal), metadataRefs.run(signal)]);
  const replicatorRun = replicator.run(signal);
  let work: Promise<void>;
  if (flags['leader-elect']) {
    // A replica that loses the lease (e.g. it could not renew while the apiserver was down)
    // campaigns again with a new elector, as a standby: it must not sit out leaderless.
    let elector: LeaderElector | undefined;
    healthz.add('leader-election', () => {
      const err = elector?.check(20_000);
      if (err) throw err;
    });
    work = (async () => {
      while (!signal.aborted) {
        elector = new LeaderElector({
          leaseName: flags['leader-election-id'],
          identity,
          client: leaseClient(client, namespace),
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
        runtimeMetrics.watchLeadership('catalogd-ts', elector);
        await elector.run(signal);
        if (signal.aborted) break;
        log.warn({ identity }, 'lost leadership; campaigning again');
        await delay(2000, undefined, { signal }).catch(() => undefined);
      }
    })();
  } else {
    work = controller.run(signal);
  }
  shutdown.onShutdown('controller', async () => {
    await Promise.all([work, replicatorRun, informerRun]);
  });
  await Promise.all([work, replicatorRun, informerRun]);
  return 0;
}
