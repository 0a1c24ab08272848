// `catalogd controller`'s flags: parsed and checked into ControllerOptions before anything
// starts, each mistake a one-line CommandError.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ContentProfile } from '../api/v1/index.js';
import { CONTENT_PROFILE_FULL, contentProfileChoices, isContentProfile } from '../api/v1/index.js';
import {
  DEFAULT_DRIFT_WATCH_PAUSE_WRITES,
  DRIFT_WATCH_MAX_PAUSE_MS,
} from '../controllers/clustercatalog/ports.js';
import { DEFAULT_MAX_OBJECT_BYTES } from '../fbc/index.js';
import { DEFAULT_REVISION_WAIT_MS, DEFAULT_SERVER_LIMITS } from '../server/index.js';
import type { ServerLimits } from '../server/index.js';
import { DEFAULT_MAX_CACHE_BYTES, defaultMinimumRate } from '../source/index.js';
import { parseDuration } from '../util/deadline.js';
import { DEFAULT_LATENCY_TOLERANCE } from '../sync/index.js';
import { CommandError } from '../util/command-error.js';
import type { ObjectViewOptions } from './controller-object-view.js';
import { objectViewFromFlags } from './controller-object-view.js';
import type { HostPort } from './host-port.js';
import { hostPort } from './host-port.js';

function seconds(ms: number): string {
  return `${ms / 1000}s`;
}

const controllerFlags = {
  kubeconfig: { type: 'string' },
  'leader-elect': { type: 'boolean', default: true },
  'leader-election-namespace': { type: 'string' },
  'leader-election-id': { type: 'string', default: 'catalogd-ts-leader' },
  // Upstream catalogd's periods (cmd/catalogd in operator-controller v1.5.1): one Lease write
  // every 26 s, not client-go's 2 s (30 a minute, most of an idle controller's CPU).
  'leader-elect-lease-duration': { type: 'string', default: '137s' },
  'leader-elect-renew-deadline': { type: 'string', default: '107s' },
  'leader-elect-retry-period': { type: 'string', default: '26s' },
  'metrics-addr': { type: 'string', default: ':8080' },
  // No default: on with a serving certificate (--tls-cert-file), else off (controller-metrics.ts).
  'metrics-secure': { type: 'boolean' },
  'health-addr': { type: 'string', default: ':8081' },
  'server-addr': { type: 'string', default: ':8090' },
  'server-url': { type: 'string' },
  'revision-wait': { type: 'string', default: seconds(DEFAULT_REVISION_WAIT_MS) },
  // The content server as a server facing a cluster's pods (docs/bounds.md): upstream catalogd's
  // 5 s read timeout, and a cap on connections (idle ones cost memory).
  'server-max-connections': {
    type: 'string',
    default: String(DEFAULT_SERVER_LIMITS.maxConnections),
  },
  'server-headers-timeout': {
    type: 'string',
    default: seconds(DEFAULT_SERVER_LIMITS.headersTimeoutMs),
  },
  'server-request-timeout': {
    type: 'string',
    default: seconds(DEFAULT_SERVER_LIMITS.requestTimeoutMs),
  },
  'server-keep-alive-timeout': {
    type: 'string',
    default: seconds(DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs),
  },
  graphql: { type: 'boolean', default: true },
  'tls-cert-file': { type: 'string' },
  'tls-key-file': { type: 'string' },
  'tls-reload-interval': { type: 'string', default: '10s' },
  'cache-dir': { type: 'string', default: '/var/cache/catalogd' },
  workers: { type: 'string', default: '2' },
  'pull-workers': { type: 'string', default: '16' },
  'pull-timeout': { type: 'string', default: '10m' },
  'pull-min-rate': { type: 'string', default: String(defaultMinimumRate.bytesPerSecond) },
  // 32 rather than 16: the write phase of a 50 MB cold sync took 51 s instead of 59 to 69 s, with
  // less controller CPU (bench/README.md); the apiserver's priority and fairness bounds the rest.
  'write-concurrency': { type: 'string', default: '32' },
  'min-write-concurrency': { type: 'string', default: '4' },
  // Off by default until measured on an idle machine: on the shared development host it held
  // the window at its floor and cost 43 % of a cold sync's rate (docs/deploy.md, "Write pacing").
  'write-pacing': { type: 'boolean', default: false },
  'write-latency-tolerance': { type: 'string', default: String(DEFAULT_LATENCY_TOLERANCE) },
  // No ceiling by default: alone on an apiserver, a cold sync writes as fast as it allows; under
  // the ceiling that spares others' consistent LISTs (5), 2,147 objects took 460 s (docs/deploy.md,
  // "Write pacing").
  'max-write-rate': { type: 'string', default: '0' },
  // Reading a sync's own events costs a quarter of its writes' CPU on the cores a small cluster
  // shares with the apiserver: a cold sync of 10,875 objects wrote 1.01 x the raw loop's rate with
  // the drift watch closed, 0.945 x with it open (bench/README.md, stop 44).
  'drift-watch-pause-writes': { type: 'string', default: String(DEFAULT_DRIFT_WATCH_PAUSE_WRITES) },
  'max-object-bytes': { type: 'string', default: String(DEFAULT_MAX_OBJECT_BYTES) },
  'max-image-cache-bytes': { type: 'string', default: String(DEFAULT_MAX_CACHE_BYTES) },
  'content-profile': { type: 'string', default: CONTENT_PROFILE_FULL },
  'object-view': { type: 'string', default: 'crd' },
  'api-listen': { type: 'string' },
  'global-pull-secret': { type: 'string' },
  'ca-bundle': { type: 'string' },
  'registries-conf': { type: 'string' },
  'signature-policy': { type: 'string' },
  'signature-policy-interval': { type: 'string', default: '10s' },
  'memory-reclaim-interval': { type: 'string', default: '2s' },
  platform: { type: 'string', default: 'linux/amd64' },
  'log-level': { type: 'string', default: 'info' },
  'log-format': { type: 'string', default: 'json' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const usage = `usage: catalogd controller [flags]

Reconciles ClusterCatalogs into CatalogMetadata objects and serves catalog content over HTTP.

  --kubeconfig PATH                  kubeconfig (default: $KUBECONFIG, ~/.kube/config, else in-cluster)
  --leader-elect                     elect a leader with a Lease; only the leader writes (default true;
                                     --no-leader-elect to disable)
  --leader-election-namespace NS     namespace of the Lease (default: $POD_NAMESPACE, the kubeconfig's
                                     namespace, else "default")
  --leader-election-id NAME          name of the Lease (default catalogd-ts-leader)
  --leader-elect-lease-duration D    how long a standby waits for a silent leader before it takes
                                     over (default 137s, whole seconds)
  --leader-elect-renew-deadline D    how long the leader retries a failed renewal before it stops
                                     leading (default 107s)
  --leader-elect-retry-period D      between two renewals, and two attempts to lead (default 26s):
                                     upstream catalogd's three periods; a leader that stops
                                     releases the Lease, and a standby leads at its next attempt
  --metrics-addr HOST:PORT           /metrics (default :8080)
  --metrics-secure                   serve /metrics over HTTPS with the --tls-cert-file
                                     certificate, only to a bearer token the apiserver accepts
                                     (TokenReview) of a user allowed to get /metrics
                                     (SubjectAccessReview); --no-metrics-secure: plain HTTP, no
                                     authentication (default: on with --tls-cert-file, else off)
  --health-addr HOST:PORT            /healthz and /readyz (default :8081)
  --server-addr HOST:PORT            the HTTP content server (default :8090)
  --revision-wait DURATION           how long a request for a revision this replica is still
                                     building waits for it before a retryable 503, e.g. 5s
                                     (default 5s; 0: answer at once)
  --graphql                          answer <base>/api/v1/graphql: upstream catalogd's GraphQL
                                     queries (default true; --no-graphql or --graphql=false: 404)
  --server-url URL                   base URL clients reach the content server at, used in
                                     status.urls.base (default http://<server-addr>, https:// with
                                     --tls-cert-file, with 127.0.0.1 for an empty host)
  --server-max-connections N         most open connections of the content server: at the cap a
                                     new one closes the oldest idle one, or is closed at once when
                                     all have a request in flight (default ${DEFAULT_SERVER_LIMITS.maxConnections})
  --server-headers-timeout DURATION  time a client has to send a request's headers, from its first
                                     byte or the connection's start (and to finish a TLS
                                     handshake); then the connection is closed (default 5s)
  --server-request-timeout DURATION  time a client has to send a whole request (default 5s; at
                                     least --server-headers-timeout)
  --server-keep-alive-timeout DURATION
                                     an idle keep-alive connection is closed after this
                                     (default 5s)
  --tls-cert-file FILE               serve content over HTTPS with this PEM certificate (chain);
                                     with --tls-key-file; reloaded when the file changes
                                     (default: plain HTTP)
  --tls-key-file FILE                the PEM private key of --tls-cert-file
  --tls-reload-interval DURATION     how often the certificate files are re-read (default 10s)
  --cache-dir DIR                    unpacked images and served content (default /var/cache/catalogd)
  --workers N                        catalogs that parse and write at once (default 2)
  --pull-workers N                   catalog attempts in flight at once, pulling or waiting for
                                     one of --workers (default 16): a slow registry holds one of
                                     these, never a write slot
  --pull-timeout DURATION            time bound of an attempt's resolve, download, unpack and
                                     parse, e.g. 90s, 10m (default 10m)
  --pull-min-rate BYTES              a blob transfer slower than this many bytes per second over
                                     30 s fails (default 1024; 0: no minimum)
  --write-concurrency N              most CatalogMetadata writes in flight per catalog (default 32)
  --min-write-concurrency N          fewest, with --write-pacing (default 4)
  --write-pacing                     adapt the writes in flight between the two to the apiserver's
                                     answers (default false: always --write-concurrency)
  --write-latency-tolerance X        write latency above X times its idle baseline shrinks the
                                     window: lower is gentler to other clients, slower on an idle
                                     apiserver (default ${DEFAULT_LATENCY_TOLERANCE})
  --max-write-rate N                 most CatalogMetadata creates, updates and deletes a second,
                                     for the process, evenly spaced; 5 or fewer spares other
                                     clients' consistent LISTs (default 0: no ceiling)
  --drift-watch-pause-writes N       a sync that writes at least N objects closes the drift watch
                                     while it sends them (at most ${DRIFT_WATCH_MAX_PAUSE_MS / 1000} s), then resumes it
                                     where it stopped: drift is seen after the writes instead of
                                     during them (default ${DEFAULT_DRIFT_WATCH_PAUSE_WRITES}; 0: never)
  --max-object-bytes N               larger objects carry spec.contentOmitted (default 1048576)
  --max-image-cache-bytes N          files the unpacked images may hold together; an image that
                                     would pass it is refused, the images catalogs serve are kept
                                     (default 1073741824)
  --content-profile full|lean|none   what CatalogMetadata objects hold: full, the whole blob
                                     (default); lean, without display-only parts (the package
                                     icon, olm.csv.metadata and olm.bundle.object properties),
                                     which stay on the HTTP server; none, no objects at all
                                     (HTTP only). A ClusterCatalog's annotation
                                     olm.operatorframework.io/content-profile overrides it
  --object-view crd|served           crd: CatalogMetadata objects are written to the apiserver
                                     (default); served: none are written, every replica answers
                                     the Kubernetes API for them itself through the aggregation
                                     layer (group content.olm.operatorframework.io), from the
                                     revisions it serves (docs/served-security.md)
  --api-listen HOST:PORT             the served API's HTTPS address, with the --tls-cert-file
                                     certificate (required with --object-view=served, e.g. :9443)
  --global-pull-secret NS/NAME       a kubernetes.io/dockerconfigjson Secret used for every pull
  --ca-bundle FILE                   PEM CA certificates trusted for registries
  --registries-conf FILE             mirrors and insecure registries ([[registry]] tables)
  --signature-policy FILE            containers-policy.json(5) policy: catalog images are verified
                                     against cosign signatures before anything is pulled
                                     (docs/source.md, "Signatures"); none: no verification
  --signature-policy-interval DURATION
                                     how often the policy file is re-read (default 10s)
  --memory-reclaim-interval DURATION
                                     while the process works (it collects garbage), how often
                                     it is judged busy or quiet: the first quiet interval gives
                                     freed heap pages back to the system (default 2s; 0: never)
  --platform OS/ARCH                 platform picked from image indexes (default linux/amd64)
  --log-level LEVEL                  pino level (default info)
  --log-format json|text             json: one pino JSON object per line (default); text: one
                                     human-readable line per record, for a terminal

Environment: POD_NAMESPACE and POD_SERVICE_ACCOUNT name the controller's namespace and
ServiceAccount, whose imagePullSecrets are used for pulls.
`;

function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new CommandError(`--${name} must be a positive integer`);
  }
  return n;
}

/**
 * `--flag=true` and `--flag=false` of a boolean flag, as Go's flag packages take them (upstream
 * catalogd's flags), are `--flag` and `--no-flag`.
 */
function booleanValues(args: string[]): string[] {
  return args.map((a) => {
    const m = /^--([a-z-]+)=(true|false)$/.exec(a);
    const flag = m && (controllerFlags as Record<string, { type: string } | undefined>)[m[1]!];
    if (flag?.type !== 'boolean') return a;
    return m![2] === 'true' ? `--${m![1]}` : `--no-${m![1]}`;
  });
}

/** The flags, with a mistake in them (an unknown flag, a missing value) as a CommandError. */
function parseFlags(args: string[]) {
  try {
    return parseArgs({ args: booleanValues(args), options: controllerFlags, allowNegative: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      throw new CommandError(`controller: ${(err as Error).message}`);
    }
    throw err;
  }
}

export type ControllerFlags = ReturnType<typeof parseFlags>['values'];

/** Leader election's periods (src/controllers/runtime/leader.ts), from the --leader-elect-* flags. */
export interface LeaderElectionPeriods {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface ControllerOptions {
  /** The flags as given (those read as they are: kubeconfig, leader election, pulls). */
  flags: ControllerFlags;
  leaderElection: LeaderElectionPeriods;
  logFormat: 'json' | 'text';
  workers: number;
  pullWorkers: number;
  pullTimeoutMs: number;
  pullMinRate: number;
  writeConcurrency: number;
  /** Write pacing's floor and latency tolerance; undefined: --no-write-pacing. */
  writePacing: { minWriteConcurrency: number; latencyTolerance: number } | undefined;
  /** --max-write-rate, writes a second; 0: no ceiling. */
  maxWriteRate: number;
  /** --drift-watch-pause-writes: the least writes of a sync that pause the drift watch; 0: never. */
  driftWatchPauseWrites: number;
  maxObjectBytes: number;
  maxCacheBytes: number;
  contentProfile: ContentProfile;
  /** --memory-reclaim-interval; 0: off (src/util/memory-reclaim.ts). */
  memoryReclaimIntervalMs: number;
  cacheDir: string;
  serverAddr: HostPort;
  /** --revision-wait: 0 answers a revision not held yet at once. */
  revisionWaitMs: number;
  /** The content server's connection cap and timeouts (--server-*). */
  serverLimits: ServerLimits;
  /** --graphql: <base>/api/v1/graphql is answered (docs/graphql.md). */
  graphql: boolean;
  metricsAddr: HostPort;
  /** /metrics over HTTPS behind delegated authentication and authorization (--metrics-secure). */
  metricsSecure: boolean;
  healthAddr: HostPort;
  /** --object-view and --api-listen (controller-object-view.ts). */
  objectView: ObjectViewOptions;
}

/** The checked options; undefined for --help. */
export function parseControllerOptions(args: string[]): ControllerOptions | undefined {
  const { values: flags } = parseFlags(args);
  if (flags.help) return undefined;
  const logFormat = flags['log-format'];
  if (logFormat !== 'json' && logFormat !== 'text') {
    throw new CommandError(`--log-format must be json or text, not ${JSON.stringify(logFormat)}`);
  }
  const workers = positiveInt('workers', flags.workers);
  const pullWorkers = positiveInt('pull-workers', flags['pull-workers']);
  const pullTimeoutMs = parseDuration(flags['pull-timeout']);
  if (pullTimeoutMs === undefined || pullTimeoutMs < 1000)
    throw new CommandError('--pull-timeout must be a duration of at least 1s, e.g. 90s or 10m');
  const pullMinRate = Number(flags['pull-min-rate']);
  if (!Number.isInteger(pullMinRate) || pullMinRate < 0)
    throw new CommandError('--pull-min-rate must be a whole number of bytes per second');
  const writeConcurrency = positiveInt('write-concurrency', flags['write-concurrency']);
  const minWriteConcurrency = positiveInt('min-write-concurrency', flags['min-write-concurrency']);
  const latencyTolerance = Number(flags['write-latency-tolerance']);
  if (!Number.isFinite(latencyTolerance) || latencyTolerance <= 1)
    throw new CommandError('--write-latency-tolerance must be a number above 1, e.g. 2.5');
  const maxWriteRate = Number(flags['max-write-rate']);
  if (!Number.isFinite(maxWriteRate) || maxWriteRate < 0 || flags['max-write-rate'].trim() === '')
    throw new CommandError(
      '--max-write-rate must be a number of writes a second, e.g. 5 (0: no ceiling)',
    );
  const driftWatchPauseWrites = Number(flags['drift-watch-pause-writes']);
  if (!Number.isInteger(driftWatchPauseWrites) || driftWatchPauseWrites < 0)
    throw new CommandError(
      '--drift-watch-pause-writes must be a whole number of writes, e.g. 1000 (0: never)',
    );
  const maxObjectBytes = positiveInt('max-object-bytes', flags['max-object-bytes']);
  const maxCacheBytes = positiveInt('max-image-cache-bytes', flags['max-image-cache-bytes']);
  const contentProfile = flags['content-profile'];
  if (!isContentProfile(contentProfile))
    throw new CommandError(
      `--content-profile must be ${contentProfileChoices()}, not ${JSON.stringify(contentProfile)}`,
    );
  const reclaimFlag = flags['memory-reclaim-interval'];
  const memoryReclaimIntervalMs = reclaimFlag === '0' ? 0 : parseDuration(reclaimFlag);
  if (
    memoryReclaimIntervalMs === undefined ||
    (memoryReclaimIntervalMs !== 0 && memoryReclaimIntervalMs < 1000)
  )
    throw new CommandError('--memory-reclaim-interval must be 0 or a duration of at least 1s');
  const serverAddr = hostPort('server-addr', flags['server-addr']);
  const revisionWaitFlag = flags['revision-wait'];
  const revisionWaitMs = revisionWaitFlag === '0' ? 0 : parseDuration(revisionWaitFlag);
  if (revisionWaitMs === undefined || revisionWaitMs > 60_000)
    throw new CommandError('--revision-wait must be 0 or a duration of at most 1m, e.g. 5s');
  const serverLimits = contentServerLimits(flags);
  return {
    flags,
    leaderElection: leaderElectionPeriods(flags),
    logFormat,
    workers,
    pullWorkers,
    pullTimeoutMs,
    pullMinRate,
    writeConcurrency,
    writePacing: flags['write-pacing']
      ? {
          // Above --write-concurrency: the ceiling wins (--write-concurrency=1: one at a time).
          minWriteConcurrency: Math.min(minWriteConcurrency, writeConcurrency),
          latencyTolerance,
        }
      : undefined,
    maxWriteRate,
    driftWatchPauseWrites,
    maxObjectBytes,
    maxCacheBytes,
    contentProfile,
    memoryReclaimIntervalMs,
    cacheDir: path.resolve(flags['cache-dir']),
    serverAddr,
    revisionWaitMs,
    serverLimits,
    graphql: flags.graphql,
    metricsAddr: hostPort('metrics-addr', flags['metrics-addr']),
    metricsSecure: metricsSecure(flags),
    healthAddr: hostPort('health-addr', flags['health-addr']),
    objectView: objectViewFromFlags(flags),
  };
}

function leaderElectionPeriods(flags: ControllerFlags): LeaderElectionPeriods {
  const period = (name: keyof ControllerFlags & `leader-elect-${string}`): number => {
    const ms = parseDuration(String(flags[name]));
    if (ms === undefined || ms < 1000)
      throw new CommandError(`--${name} must be a duration of at least 1s, e.g. 26s or 2m`);
    return ms;
  };
  const leaseDurationMs = period('leader-elect-lease-duration');
  const renewDeadlineMs = period('leader-elect-renew-deadline');
  const retryPeriodMs = period('leader-elect-retry-period');
  if (leaseDurationMs % 1000 !== 0)
    throw new CommandError('--leader-elect-lease-duration must be whole seconds');
  if (leaseDurationMs <= renewDeadlineMs)
    throw new CommandError(
      '--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline',
    );
  // client-go's rule: the renew deadline holds more than one jittered retry period.
  if (renewDeadlineMs <= 1.2 * retryPeriodMs)
    throw new CommandError(
      '--leader-elect-renew-deadline must be longer than 1.2 × --leader-elect-retry-period',
    );
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

/**
 * --metrics-secure: what it says, else on exactly when there is a serving certificate. Secure
 * metrics serve that certificate: without one they cannot be.
 */
function metricsSecure(flags: ControllerFlags): boolean {
  const certificate = flags['tls-cert-file'] !== undefined || flags['tls-key-file'] !== undefined;
  const secure = flags['metrics-secure'] ?? certificate;
  if (secure && !certificate)
    throw new CommandError(
      '--metrics-secure serves the serving certificate: give --tls-cert-file and --tls-key-file, or --no-metrics-secure for plain HTTP',
    );
  return secure;
}

/** The content server's limits, from the --server-* flags. */
function contentServerLimits(flags: ControllerFlags): ServerLimits {
  const timeout = (name: `server-${string}-timeout` & keyof ControllerFlags): number => {
    const ms = parseDuration(String(flags[name]));
    if (ms === undefined || ms < 1000)
      throw new CommandError(`--${name} must be a duration of at least 1s, e.g. 5s or 1m`);
    return ms;
  };
  const limits: ServerLimits = {
    maxConnections: positiveInt('server-max-connections', flags['server-max-connections']),
    headersTimeoutMs: timeout('server-headers-timeout'),
    requestTimeoutMs: timeout('server-request-timeout'),
    keepAliveTimeoutMs: timeout('server-keep-alive-timeout'),
  };
  // Node refuses a header timeout longer than the request's: the request includes its headers.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new CommandError(
      '--server-headers-timeout must not be longer than --server-request-timeout',
    );
  return limits;
}

/** --server-url, else the content server's own address (https with a certificate). */
export function contentServerUrl(opts: ControllerOptions, tls: boolean): string {
  const { host, port } = opts.serverAddr;
  return (
    opts.flags['server-url'] ??
    `${tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`
  );
}
