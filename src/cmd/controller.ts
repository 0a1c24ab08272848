// `catalogd controller`: options parsed and checked (controller-options.ts), the process's shared
// parts built (controller-parts.ts), the ClusterCatalog controller set up beside its reconciler
// (src/controllers/clustercatalog/setup), then run until a signal.
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { ClusterCatalogSetup } from '../controllers/clustercatalog/setup/index.js';
import { setupClusterCatalogController } from '../controllers/clustercatalog/setup/index.js';
import {
  GracefulShutdown,
  HealthChecks,
  RuntimeMetrics,
  createMetricsRegistry,
  defaultIdentity,
  realClock,
  startProbeServer,
  syncedCheck,
} from '../controllers/runtime/index.js';
import { KubeClient, eventRecorder } from '../kube/index.js';
import { WriteRateLimit } from '../sync/index.js';
import { requestRetry } from '../util/backoff.js';
import { listening } from './listen-failure.js';
import type { ControllerOptions } from './controller-options.js';
import { parseControllerOptions, usage } from './controller-options.js';
import {
  buildContentServer,
  buildPuller,
  buildSyncer,
  programMetrics,
} from './controller-parts.js';
import { textLogDestination } from './log-text.js';
import { startMetricsServer } from './controller-metrics.js';
import { startServedView } from './controller-served.js';

export async function main(args: string[]): Promise<number> {
  const opts = parseControllerOptions(args);
  if (!opts) {
    process.stdout.write(usage);
    return 0;
  }
  return runController(await buildController(opts));
}

function controllerLog(opts: ControllerOptions): Logger {
  const logOptions = { level: opts.flags['log-level'], base: { component: 'catalogd' } };
  return opts.logFormat === 'text'
    ? pino(logOptions, textLogDestination(process.stdout))
    : pino(logOptions);
}

type Built = Awaited<ReturnType<typeof buildController>>;

/** Every part, wired; nothing runs yet but the content server's listener. */
async function buildController(opts: ControllerOptions) {
  const { flags } = opts;
  const log = controllerLog(opts);
  const metrics = programMetrics(createMetricsRegistry());
  const runtimeMetrics = new RuntimeMetrics(metrics.registry);
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
  const { content, serverUrl, stopTlsWatch, memory, tls, certificateUsers, catalogDirectory } =
    await buildContentServer(opts, log, metrics);
  const catalogs = setupClusterCatalogController(
    {
      workers: opts.workers,
      pullWorkers: opts.pullWorkers,
      maxObjectBytes: opts.maxObjectBytes,
      contentProfile: opts.contentProfile,
      pullTimeoutMs: opts.pullTimeoutMs,
      driftWatchPauseWrites: opts.driftWatchPauseWrites,
      objectView: opts.objectView.view,
      ...(flags['leader-elect'] && {
        leaderElection: {
          leaseName: flags['leader-election-id'],
          namespace,
          identity,
          ...opts.leaderElection,
        },
      }),
    },
    {
      client,
      events: eventRecorder(client, { component: 'catalogd-ts', instance: identity }),
      ...(writeRate && { writeRate }),
      puller,
      syncer,
      content,
      log,
      registry: metrics.registry,
      runtimeMetrics,
    },
  );
  catalogDirectory.readFrom(() => catalogs.catalogs.values());
  return {
    opts,
    log,
    registry: metrics.registry,
    client,
    namespace,
    identity,
    signatures,
    content,
    serverUrl,
    stopTlsWatch,
    memory,
    catalogs,
    // Every replica serves the API (--object-view=served), leader or not.
    served: await startServedView({ opts, client, content, catalogs, tls, certificateUsers, log }),
  };
}

/** Runs the built parts until a signal: probes, then the controller and what it reads. */
async function runController(app: Built): Promise<number> {
  const { opts, log, client, content, catalogs } = app;
  const healthz = new HealthChecks('healthz');
  const readyz = new HealthChecks('readyz');
  readyz.add('informers-synced', syncedCheck(catalogs.informers));
  const shutdown = new GracefulShutdown();
  shutdown.installSignalHandlers();
  const { signal } = shutdown;
  const probes = await listening('health-addr', opts.flags['health-addr'], () =>
    startProbeServer({ healthz, readyz, ...opts.healthAddr }),
  );
  const metricsServer = await listening('metrics-addr', opts.flags['metrics-addr'], () =>
    startMetricsServer(opts, app),
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
      objectView: opts.objectView.view,
      ...(app.served && { api: app.served.url }),
    },
    'catalogd controller starting',
  );
  shutdown.onShutdown('interrupts', () => catalogs.stop());
  const stopPolicyWatch = watchSignaturePolicy(app, catalogs);
  shutdown.onShutdown('signature policy', () => stopPolicyWatch?.());
  const work = catalogs.run(signal, (check) =>
    healthz.add('leader-election', () => {
      const err = check();
      if (err) throw err;
    }),
  );
  shutdown.onShutdown('controller', () => work);
  // Registered last, so it runs first: the served API's watches end (cleanly) at once, and
  // their clients resume on a replica that keeps following the catalogs, instead of reading
  // from this one while its informers and content server stop.
  shutdown.onShutdown('served API', () => app.served?.close());
  // Not when the work ends (the signal aborted it): once the hooks after it have run too (the
  // served API's watches ended cleanly, the content server closed); the caller exits the process.
  return shutdown.exitCodeAfter(work);
}

/**
 * A new signature policy: every catalog is looked at again, a refused one may now be accepted
 * (and one accepted before is verified again: the verifier forgot what the old policy passed).
 */
function watchSignaturePolicy(app: Built, catalogs: ClusterCatalogSetup): (() => void) | undefined {
  const { signatures, log } = app;
  return signatures?.file.watch(realClock, signatures.intervalMs, {
    onChange: () => {
      log.info({ file: signatures.file.path }, 'signature policy reloaded');
      catalogs.requeueAll();
    },
    onError: (err) =>
      log.error({ reason: err.message }, 'signature policy not reloaded; the previous one stays'),
  });
}
