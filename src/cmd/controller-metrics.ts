// `catalogd controller --metrics-addr`: the /metrics server. With --metrics-secure (the default
// when there is a serving certificate) it serves HTTPS with the content server's certificate (the
// same --tls-cert-file/--tls-key-file, read again every --tls-reload-interval) behind delegated
// authentication and authorization, as upstream catalogd's does (controller-runtime's
// filters.WithAuthenticationAndAuthorization): a bearer token the apiserver accepts (TokenReview)
// of a user allowed `get` on the non-resource URL /metrics (SubjectAccessReview). The policy is
// src/controllers/runtime/delegated-access.ts, the reviews src/kube/access-review.ts. Without
// it, plain HTTP to anyone: for local development (`make run`) and deployments without a
// certificate.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type {
  AccessDecision,
  CheckedRequest,
  Clock,
  ProbeServer,
} from '../controllers/runtime/index.js';
import {
  DelegatedAccess,
  accessGuard,
  realClock,
  startProbeServer,
} from '../controllers/runtime/index.js';
import type { KubeClient } from '../kube/index.js';
import { accessReviews } from '../kube/index.js';
import { secureContextOptions } from '../server/index.js';
import type { ControllerOptions } from './controller-options.js';
import { servingTlsFromFlags } from './controller-tls.js';

export interface MetricsServerDeps {
  registry: Registry;
  /** Makes the reviews, with the controller's own credentials. */
  client: KubeClient;
  log: Logger;
  /** The cache's and the certificate reloads' clock (tests); default the real one. */
  clock?: Clock;
}

/** Starts the metrics server as the options say; close() also stops its certificate reloads. */
export async function startMetricsServer(
  opts: Pick<ControllerOptions, 'flags' | 'metricsAddr' | 'metricsSecure'>,
  deps: MetricsServerDeps,
): Promise<ProbeServer> {
  const { registry, log } = deps;
  const clock = deps.clock ?? realClock;
  if (!opts.metricsSecure) {
    const server = await startProbeServer({ metrics: registry, ...opts.metricsAddr });
    log.info(
      { metrics: server.url },
      'metrics served over plain HTTP without authentication (no --tls-cert-file, or --no-metrics-secure)',
    );
    return server;
  }
  // The options allow --metrics-secure only with a certificate; its files were checked at start
  // by the content server's (controller-parts.ts) and are read again here.
  const tls = await servingTlsFromFlags(opts.flags, clock);
  if (!tls) throw new Error('--metrics-secure without a serving certificate');
  const access = new DelegatedAccess(accessReviews(deps.client), { clock });
  const server = await startProbeServer({
    metrics: registry,
    ...opts.metricsAddr,
    tls: secureContextOptions(tls.certificate.current()),
    guard: accessGuard(access, (decision, req) => logRefusal(log, decision, req)),
  });
  const { certFile, keyFile } = tls.certificate.files;
  const stopReloads = tls.certificate.watch(clock, tls.intervalMs, {
    apply: (pair) => {
      server.setSecureContext(secureContextOptions(pair));
      log.info(
        { certFile, keyFile, serial: pair.serial, notAfter: pair.notAfter.toISOString() },
        'metrics server certificate reloaded',
      );
    },
    onError: (err) =>
      log.error(
        { certFile, keyFile, reason: err.message, serial: tls.certificate.current().serial },
        'metrics server certificate not reloaded; the previous one stays',
      ),
  });
  log.info(
    { metrics: server.url },
    'metrics served over HTTPS to bearer tokens allowed to get /metrics (TokenReview, SubjectAccessReview)',
  );
  return {
    url: server.url,
    port: server.port,
    setSecureContext: (options) => server.setSecureContext(options),
    close: async () => {
      stopReloads();
      await server.close();
    },
  };
}

/** A refusal in the log: a review that could not be made as a warning, the others at debug. */
function logRefusal(log: Logger, decision: AccessDecision, req: CheckedRequest): void {
  if (decision.allowed) return;
  const fields = {
    status: decision.status,
    method: req.method,
    path: req.path,
    ...(decision.user && { user: decision.user }),
    ...(decision.reason && { reason: decision.reason }),
  };
  if (decision.status >= 500) log.warn(fields, 'metrics request refused: no review');
  else log.debug(fields, 'metrics request refused');
}
