// `catalogd controller --tls-cert-file/--tls-key-file`: the content server's certificate, checked
// at start (a pair that cannot serve stops the controller with one line), reloaded when its files
// change, with each reload logged and counted (catalogd_tls_certificate_reloads_total) and the
// certificate's expiry as a gauge.
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Clock } from '../util/clock.js';
import { parseDuration } from '../util/deadline.js';
import type { ServingPair } from '../server/index.js';
import { ServingCertificate, TlsPairError, loadServingPair } from '../server/index.js';
import { CommandError } from '../util/command-error.js';

export interface TlsFlags {
  'tls-cert-file'?: string | undefined;
  'tls-key-file'?: string | undefined;
  'tls-reload-interval': string;
}

export interface ServingTls {
  certificate: ServingCertificate;
  intervalMs: number;
}

/** The checked certificate, or undefined without the flags; a mistake is a CommandError. */
export async function servingTlsFromFlags(
  flags: TlsFlags,
  clock: Pick<Clock, 'date'>,
): Promise<ServingTls | undefined> {
  const certFile = flags['tls-cert-file'];
  const keyFile = flags['tls-key-file'];
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (!certFile || !keyFile)
    throw new CommandError('--tls-cert-file and --tls-key-file go together: give both or neither');
  const intervalMs = parseDuration(flags['tls-reload-interval']);
  if (intervalMs === undefined || intervalMs < 1000)
    throw new CommandError('--tls-reload-interval must be a duration of at least 1s');
  const files = { certFile, keyFile };
  try {
    const pair = await loadServingPair(files, clock.date());
    return { certificate: new ServingCertificate(files, pair, clock), intervalMs };
  } catch (err) {
    if (err instanceof TlsPairError) throw new CommandError(err.message);
    throw err;
  }
}

/**
 * With TLS on, an http:// --server-url is a mistake: status.urls.base would send clients to a
 * plain-HTTP port that answers TLS. (Without TLS an https:// URL may be right: an Ingress or
 * Gateway that terminates TLS in front of the Service.)
 */
export function checkServerUrlScheme(serverUrl: string | undefined, tls: boolean): void {
  if (!tls || serverUrl === undefined || !URL.canParse(serverUrl)) return;
  if (new URL(serverUrl).protocol === 'http:')
    throw new CommandError(
      `--server-url ${serverUrl}: the content server serves HTTPS (--tls-cert-file): want an https:// URL`,
    );
}

/** Starts the reload loop; returns its stop function. */
export function watchServingTls(
  tls: ServingTls,
  apply: (pair: ServingPair) => void,
  deps: { clock: Pick<Clock, 'setTimer'>; registry: Registry; log: Logger },
): () => void {
  const reloads = new Counter({
    name: 'catalogd_tls_certificate_reloads_total',
    help: 'Content server certificate reloads: applied (new connections get the new pair) and failed (the previous pair stays).',
    labelNames: ['result'] as const,
    registers: [deps.registry],
  });
  const notAfter = new Gauge({
    name: 'catalogd_tls_certificate_not_after_seconds',
    help: 'Expiry (Unix seconds) of the certificate the content server serves.',
    registers: [deps.registry],
  });
  reloads.inc({ result: 'applied' }, 0);
  reloads.inc({ result: 'failed' }, 0);
  notAfter.set(tls.certificate.current().notAfter.getTime() / 1000);
  const { certFile, keyFile } = tls.certificate.files;
  return tls.certificate.watch(deps.clock, tls.intervalMs, {
    apply: (pair) => {
      apply(pair);
      reloads.inc({ result: 'applied' });
      notAfter.set(pair.notAfter.getTime() / 1000);
      deps.log.info(
        { certFile, keyFile, serial: pair.serial, notAfter: pair.notAfter.toISOString() },
        'content server certificate reloaded',
      );
    },
    onError: (err) => {
      reloads.inc({ result: 'failed' });
      deps.log.error(
        { certFile, keyFile, reason: err.message, serial: tls.certificate.current().serial },
        'content server certificate not reloaded; the previous one stays',
      );
    },
  });
}
