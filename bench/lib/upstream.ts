// Upstream catalogd (operator-framework/operator-controller v1.5.1, built by hack/olmv1/build.sh;
// v1.11 with the GraphQL endpoint, built by hack/upstream-catalogd/build.sh) as a process beside
// the bench's cluster, for the peer scenario (bench/scenarios/peer.ts), the graphql bench and
// hack/graphql-compare.ts: its registries.conf, a self-signed certificate, the ServiceAccount
// token it insists on reading from the pod path, and its ClusterCatalog CRD; for the last two,
// v1.11 started with its CRD in place of ours and FBC directories pushed and Serving.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pushCatalog } from '../../src/source/index.js';
import { applyCatalog, condition, getCatalog } from '../../test/support/catalogs.js';
import { kubectlOk } from '../../test/support/kubectl.js';
import { pollUntil } from '../../test/support/poll.js';
import { freePort } from '../../test/support/ports.js';
import { Api } from './api.js';
import { useLocalCluster } from './cluster.js';
import type { Controller } from './controller-process.js';
import { supervise } from './controller-process.js';
import { ROOT } from './config.js';

/** Upstream's ClusterCatalog CRD, as v1.5.1 ships it (committed copy). */
export const UPSTREAM_CRD = path.join(
  ROOT,
  'test',
  'fixtures',
  'upstream',
  'clustercatalogs-operator-controller-v1.5.1.yaml',
);
/** Upstream v1.11's ClusterCatalog CRD (committed copy), for upstreamGraphqlBinary()'s catalogd. */
export const UPSTREAM_GRAPHQL_CRD = path.join(
  ROOT,
  'test',
  'fixtures',
  'upstream',
  'clustercatalogs-operator-controller-v1.11.0.yaml',
);
/** Where upstream keeps its leader-election Lease and whose ServiceAccount it claims to be. */
export const UPSTREAM_NS = 'olmv1-system';
const UPSTREAM_SA = 'catalogd-controller-manager';
/** The pod path upstream reads its ServiceAccount token from (internal/shared/util/sa). */
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The directory of upstream's binaries (hack/olmv1/build.sh builds them on first use). */
export function upstreamBinDir(): string {
  return execFileSync(path.join(ROOT, 'hack', 'olmv1', 'build.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/**
 * Upstream catalogd v1.11's binary (hack/upstream-catalogd/build.sh builds it on first use): the
 * release with the GraphQL endpoint (GraphQLCatalogQueries) answering from its on-disk index.
 */
export function upstreamGraphqlBinary(): string {
  return execFileSync(path.join(ROOT, 'hack', 'upstream-catalogd', 'build.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/**
 * Marks the local registry insecure (plain HTTP) in the registries.conf upstream's build points
 * containers/image at (`<bin dir>/../registries.conf`, hack/olmv1/build.sh; for v1.11's binary,
 * pass the binary's path as `binDir`: the file beside it, given as UpstreamOptions.registriesConf). Appended, never
 * rewritten: other clusters on this machine may have their own registry there.
 */
export async function allowInsecureRegistry(binDir: string, registry: string): Promise<void> {
  const file = path.join(path.dirname(binDir), 'registries.conf');
  const have = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (have.includes(`location = "${registry}"`)) return;
  await appendFile(file, `\n[[registry]]\nlocation = "${registry}"\ninsecure = true\n`);
}

/** A self-signed certificate for 127.0.0.1 (upstream serves catalogs only over TLS). */
export function selfSignedCert(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'tls.crt');
  const key = path.join(dir, 'tls.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/**
 * Upstream's namespace and ServiceAccount, and a token of it in `dir` (token, namespace): what
 * the kubelet would mount. Upstream only parses the token's subject; its API credentials come
 * from the kubeconfig (controller-runtime's config.GetConfig honours --kubeconfig / KUBECONFIG).
 */
export async function serviceAccountFiles(api: Api, dir: string): Promise<string> {
  const ns = await api.request(
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: UPSTREAM_NS } }),
  );
  if (ns.status !== 201 && ns.status !== 409) throw new Error(`namespace: ${ns.status} ${ns.body}`);
  const sa = await api.request(
    'POST',
    `/api/v1/namespaces/${UPSTREAM_NS}/serviceaccounts`,
    JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: UPSTREAM_SA } }),
  );
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`SA: ${sa.status} ${sa.body}`);
  const tr = await api.json<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${UPSTREAM_NS}/serviceaccounts/${UPSTREAM_SA}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 4 * 3600 },
    },
  );
  const out = path.join(dir, 'serviceaccount');
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'token'), tr.status.token, { mode: 0o600 });
  await writeFile(path.join(out, 'namespace'), UPSTREAM_NS);
  return out;
}

export interface UpstreamOptions {
  binDir: string;
  kubeconfig: string;
  logDir: string;
  /** From serviceAccountFiles. */
  serviceAccountDir: string;
  tls: { cert: string; key: string };
  /** The catalogd binary (default `<binDir>/catalogd`). */
  binary?: string;
  /** --feature-gates (default `APIV1MetasHandler=true`). */
  featureGates?: string;
  /**
   * CONTAINERS_REGISTRIES_CONF for the process: v1.11's image library reads it (v1.5.1's path
   * is linked in instead, hack/olmv1/build.sh).
   */
  registriesConf?: string;
}

/**
 * Starts upstream catalogd as its Deployment runs it (leader election, the metas handler, TLS),
 * in a private mount namespace where its ServiceAccount token sits at the pod path (a tmpfs over
 * /run, so nothing of the host changes), with an empty cache. Waits until /readyz answers.
 */
export async function startUpstream(
  o: UpstreamOptions,
): Promise<Controller & { contentAddr: string }> {
  const [probePort, serverPort, webhookPort, metricsPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'catalogd-bench-upstream-'));
  const logFile = path.join(o.logDir, `upstream-catalogd-${Date.now()}.log`);
  const out = createWriteStream(logFile);
  const contentAddr = `127.0.0.1:${serverPort}`;
  const args = [
    `--kubeconfig=${o.kubeconfig}`,
    '--leader-elect',
    `--system-namespace=${UPSTREAM_NS}`,
    `--health-probe-bind-address=127.0.0.1:${probePort}`,
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--catalogs-server-addr=${contentAddr}`,
    `--external-address=${contentAddr}`,
    `--webhook-server-port=${webhookPort}`,
    `--cache-dir=${cacheDir}`,
    `--tls-cert=${o.tls.cert}`,
    `--tls-key=${o.tls.key}`,
    `--feature-gates=${o.featureGates ?? 'APIV1MetasHandler=true'}`,
  ];
  // /var/run is /run here; /run/secrets does not exist on the host, so a tmpfs over /run in the
  // private namespace holds the pod path. unshare and sh exec: the pid is catalogd's.
  const script = [
    'set -e',
    'mount -t tmpfs -o size=1m tmpfs /run',
    `mkdir -p ${SA_DIR}`,
    `cp "$SA_SRC"/token "$SA_SRC"/namespace ${SA_DIR}/`,
    'exec "$@"',
  ].join('\n');
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      script,
      'catalogd',
      o.binary ?? path.join(o.binDir, 'catalogd'),
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SA_SRC: o.serviceAccountDir,
        KUBECONFIG: o.kubeconfig,
        ...(o.registriesConf && { CONTAINERS_REGISTRIES_CONF: o.registriesConf }),
      },
    },
  );
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const c = await supervise(child, {
    what: 'upstream catalogd',
    logFile,
    cacheDir,
    readyUrl: `http://127.0.0.1:${probePort}/readyz`,
    // Its metrics need a TokenReview-authorized client; the scenario reads none.
    metric: () => Promise.resolve(NaN),
    scrape: () => Promise.resolve(''),
  });
  return Object.assign(c, { contentAddr });
}

// ---------- v1.11 with the GraphQL endpoint, serving FBC directories ----------

const CRD = 'clustercatalogs.olm.operatorframework.io';

/**
 * Replaces the ClusterCatalog CRD with `file`'s (or installs it on a cluster without one).
 * Deleting the old one deletes its catalogs; a finalizer left by a controller no longer running
 * would hold that forever, so they are cleared.
 */
async function replaceCrd(file: string): Promise<void> {
  if (await kubectlOk(['get', 'crd', CRD, '-o', 'name', '--ignore-not-found'])) {
    const left = await kubectlOk(['get', 'clustercatalogs', '-o', 'name']);
    for (const c of left.split('\n').filter(Boolean))
      await kubectlOk(['patch', c, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  }
  await kubectlOk(['delete', 'crd', CRD, '--ignore-not-found', '--wait=true']);
  await kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', file]);
  await kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', `crd/${CRD}`]);
}

/** Upstream v1.11 serving catalogs (startUpstreamGraphql). */
export interface UpstreamGraphql {
  pid: number;
  /** Its self-signed certificate, to trust for its https URLs. */
  ca: Buffer;
  /** The GraphQL URL of catalog `name`. */
  url(name: string): string;
  /** Stops it, deletes its CRD (and so the catalogs) and puts the project's back. */
  close(): Promise<void>;
}

/**
 * Upstream catalogd v1.11 with GraphQLCatalogQueries (and the metas handler) on, beside the
 * local cluster (`make cluster-up`), its CRD in place of ours, each directory pushed to the
 * cluster's registry and a ClusterCatalog for it Serving: the graphql bench's and
 * hack/graphql-compare.ts's upstream.
 */
export async function startUpstreamGraphql(
  catalogs: Array<{ name: string; dir: string }>,
  log: (s: string) => void,
): Promise<UpstreamGraphql> {
  const { kubeconfig, registry } = useLocalCluster();
  const binary = upstreamGraphqlBinary();
  const work = await mkdtemp(path.join(os.tmpdir(), 'graphql-compare-upstream-'));
  await allowInsecureRegistry(binary, registry);
  const tls = selfSignedCert(work);
  const ca = readFileSync(tls.cert);
  const saDir = await serviceAccountFiles(Api.fromKubeconfig(kubeconfig), work);
  await replaceCrd(UPSTREAM_GRAPHQL_CRD);
  const upstream = await startUpstream({
    binDir: path.dirname(binary),
    binary,
    kubeconfig,
    logDir: work,
    serviceAccountDir: saDir,
    tls,
    featureGates: 'APIV1MetasHandler=true,GraphQLCatalogQueries=true',
    registriesConf: path.join(path.dirname(binary), 'registries.conf'),
  });
  log(`upstream catalogd v1.11 on ${upstream.contentAddr} (log ${upstream.logFile})`);
  try {
    for (const { name, dir } of catalogs)
      await applyCatalog(
        name,
        (await pushCatalog(dir, `${registry}/graphql-compare/${name}:latest`)).ref,
      );
    for (const { name } of catalogs)
      await pollUntil(async () => condition(await getCatalog(name), 'Serving')?.status === 'True', {
        timeoutMs: 600_000,
        intervalMs: 1000,
        what: `upstream serving ${name}`,
      });
  } catch (err) {
    await upstream.stop();
    throw err;
  }
  return {
    pid: upstream.pid,
    ca,
    url: (name) => `https://${upstream.contentAddr}/catalogs/${name}/api/v1/graphql`,
    async close() {
      // Deleted while upstream runs: it removes its finalizers (and its files).
      for (const { name } of catalogs)
        await kubectlOk(['delete', 'clustercatalog', name, '--wait=true']);
      await upstream.stop();
      await replaceCrd(path.join(ROOT, 'crds', 'olm.operatorframework.io_clustercatalogs.yaml'));
      await rm(work, { recursive: true, force: true });
    },
  };
}
