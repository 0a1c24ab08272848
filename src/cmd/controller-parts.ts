// The controller program's shared parts, built from its options: the image source (registries,
// pull secrets, signature policy), the sync over the apiserver, and the content server. The
// ClusterCatalog controller's own wiring is its setup's (src/controllers/clustercatalog/setup).
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Syncer } from '../controllers/clustercatalog/ports.js';
import { realClock } from '../controllers/runtime/index.js';
import {
  CatalogSchemas,
  DEFAULT_RUNNING_QUERIES,
  DEFAULT_WAITING_QUERIES,
  PackageCache,
  QueryGate,
  createAcrossEndpoint,
  createGraphqlEndpoint,
} from '../graphql/index.js';
import type { KubeClient } from '../kube/index.js';
import { DEFAULT_MAX_WAITING, contentPublisher } from '../server/index.js';
import type { ServingPair } from '../server/index.js';
import {
  defaultMinimumRate,
  ImagePuller,
  pullerOptionsFromFlags,
  registerSourceMetrics,
} from '../source/index.js';
import { PolicyError, signatureChecks } from '../source/signature/index.js';
import type { WriteRateLimit } from '../sync/index.js';
import { catalogSyncer, servedViewSyncer } from '../sync/index.js';
import { parseDuration } from '../util/deadline.js';
import { CommandError } from '../util/command-error.js';
import { listening } from './listen-failure.js';
import type { ControllerFlags, ControllerOptions } from './controller-options.js';
import { contentServerUrl } from './controller-options.js';
import { reclaimMemoryWhenQuiet } from './controller-memory.js';
import { checkServerUrlScheme, servingTlsFromFlags, watchServingTls } from './controller-tls.js';
import { apiserverCatalogMetadataWriter, pullSecretSource } from './kube-ports.js';
import { InformerCatalogDirectory } from './catalog-directory.js';

/** The program's own metrics (the apiserver client's and the sync's), beside the others'. */
export function programMetrics(registry: Registry) {
  return {
    registry,
    apiRequests: new Counter({
      name: 'catalogd_apiserver_requests_total',
      help: 'Requests to the apiserver by verb, resource and HTTP status (0: network error).',
      labelNames: ['verb', 'resource', 'code'] as const,
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
    revisionWaits: new Counter({
      name: 'catalogd_content_revision_waits_total',
      help: 'Content requests for a revision this replica did not hold yet, by how their wait ended (held: answered 200 once built; timeout, full: answered 503; aborted: the client left).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    revisionWaitSeconds: new Histogram({
      name: 'catalogd_content_revision_wait_seconds',
      help: 'How long content requests waited for a revision this replica did not hold yet (--revision-wait).',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
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

type Metrics = ReturnType<typeof programMetrics>;

/** --signature-policy: the checks, or undefined without the flag; a bad policy is a CommandError. */
async function signaturePolicyFromFlags(
  flags: Pick<ControllerFlags, 'signature-policy' | 'signature-policy-interval'>,
  registry: Registry,
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

/** The image source: pulls through the registries' config, pull secrets and signature policy. */
export async function buildPuller(
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

/**
 * The sync (src/sync/syncer.ts) over the apiserver, its writes counted in `metrics`; the served
 * view's (src/sync/served-view-syncer.ts) stores no objects: it scans and writes nothing.
 */
export async function buildSyncer(
  opts: ControllerOptions,
  client: KubeClient,
  metrics: Metrics,
  writeRate: WriteRateLimit | undefined,
): Promise<Syncer> {
  // The writes a sync has planned, spooled between its two passes (src/sync/spool.ts). A spool
  // left by a killed process is of no use: start empty. Per host name, so that replicas sharing
  // a cache volume never remove each other's.
  const spoolDir = path.join(opts.cacheDir, 'sync', os.hostname());
  await rm(spoolDir, { recursive: true, force: true });
  if (opts.objectView.view === 'served') return servedViewSyncer();
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

/** The content server, over HTTPS (its certificate reloaded as it changes) when given one. */
export async function buildContentServer(opts: ControllerOptions, log: Logger, metrics: Metrics) {
  const { flags } = opts;
  const memory = reclaimMemoryWhenQuiet(opts.memoryReclaimIntervalMs, log);
  const tls = await servingTlsFromFlags(flags, realClock);
  checkServerUrlScheme(flags['server-url'], tls !== undefined);
  const serverUrl = contentServerUrl(opts, tls !== undefined);
  // GraphQL per catalog and across catalogs share the catalogs' schemas and the turns to
  // execute (one query at a time in the process: what GraphQL holds at once is one query's);
  // the ClusterCatalogs the latter reads come from the controller's informer once it is set up
  // (readFrom).
  const catalogDirectory = new InformerCatalogDirectory();
  const schemas = new CatalogSchemas();
  const gate = new QueryGate(DEFAULT_RUNNING_QUERIES, DEFAULT_WAITING_QUERIES);
  const packages = new PackageCache();
  const content = await listening('server-addr', flags['server-addr'], () =>
    contentPublisher({
      dir: path.join(opts.cacheDir, 'content'),
      serverUrl,
      listen: opts.serverAddr,
      ...(tls && { tls: tls.certificate.current() }),
      limits: opts.serverLimits,
      beforeBuild: () => memory.beforeBurst(),
      ...(opts.graphql && {
        graphql: createGraphqlEndpoint({ schemas, gate, packages }),
        serverGraphql: createAcrossEndpoint({
          directory: catalogDirectory,
          schemas,
          gate,
          packages,
        }),
      }),
      revisionWait: {
        maxWaitMs: opts.revisionWaitMs,
        maxWaiting: DEFAULT_MAX_WAITING,
        clock: realClock,
        onWait: (outcome, ms) => {
          metrics.revisionWaits.inc({ outcome });
          metrics.revisionWaitSeconds.observe(ms / 1000);
        },
      },
    }),
  );
  // Who else serves the certificate (the served API's front) and gets it when it is reloaded.
  const certificateUsers = new Set<(pair: ServingPair) => void>();
  const stopTlsWatch =
    tls &&
    watchServingTls(
      tls,
      (pair) => {
        content.setCertificate(pair);
        for (const use of certificateUsers) use(pair);
      },
      { clock: realClock, registry: metrics.registry, log },
    );
  return { content, serverUrl, stopTlsWatch, memory, tls, certificateUsers, catalogDirectory };
}
