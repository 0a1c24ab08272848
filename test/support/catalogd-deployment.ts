// catalogd-ts deployed on the local node as users run it: `make image` (hack/image.sh) and
// `make deploy` (hack/deploy.sh: config/default, 2 replicas, overlay in .local/deploy), HTTPS with
// config/tls and a Secret from hack/serving-cert.sh. Shared by the e2e files that need the node
// (in-cluster.test.ts, olmv1.test.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { localDir, repoRoot } from './cluster.js';
import { kubectl, kubectlOk } from './kubectl.js';

const run = promisify(execFile);
export const CATALOGD_NS = 'catalogd-system';
/** hack/deploy.sh's overlay of config/default. */
export const deployOverlay = path.join(localDir, 'deploy');

export interface Pod {
  metadata: { name: string; uid?: string; deletionTimestamp?: string };
  spec: { containers: Array<{ image: string }> };
  status: {
    podIP?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: Array<{
      restartCount: number;
      containerID?: string;
      lastState?: { terminated?: { reason?: string } };
    }>;
  };
}

/** The catalogd-ts controller pods in catalogd-system. */
export async function controllerPods(): Promise<Pod[]> {
  const out = await kubectlOk([
    '-n',
    CATALOGD_NS,
    'get',
    'pods',
    '-l',
    'app.kubernetes.io/name=catalogd-ts,app.kubernetes.io/component=controller',
    '-o',
    'json',
  ]);
  return (JSON.parse(out) as { items: Pod[] }).items;
}

/** The Pod Security profile a namespace enforces (its label). */
export async function enforcedProfile(namespace: string): Promise<string> {
  return kubectlOk([
    'get',
    'namespace',
    namespace,
    '-o',
    'jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}',
  ]);
}

export const isReady = (p: Pod) =>
  !p.metadata.deletionTimestamp &&
  (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * `make image` under `tag` (a tag new to each run: a reused node may hold an earlier run's image
 * under a fixed one), then `make deploy`; with `https`, deploys with config/tls from the start
 * (one rollout) and returns the CA clients trust. With `served`, the served mode (`make deploy
 * VIEW=served`: config/tls and config/served, the APIService's caBundle set; HTTPS implied) and
 * the CA of .local/serving-cert. Returns the image as pods pull it.
 */
export async function deployCatalogdTs(
  tag: string,
  opts: { https?: boolean; served?: boolean } = {},
): Promise<{ image: string; ca?: string }> {
  // A namespace left terminating by an earlier suite must be gone first.
  await kubectl(['wait', '--for=delete', `namespace/${CATALOGD_NS}`, '--timeout=120s']);
  await run(path.join(repoRoot, 'hack', 'image.sh'), [tag], { maxBuffer: 1 << 26 });
  let ca: string | undefined;
  if (opts.https && !opts.served) {
    await kubectlOk(['apply', '--server-side', '-k', path.join(repoRoot, 'config', 'namespace')]);
    ca = await servingCertificate();
  }
  await deploy(tag, opts.https ?? false, opts.served ?? false);
  if (opts.served) ca = await readFile(path.join(localDir, 'serving-cert', 'ca.crt'), 'utf8');
  return { image: `${process.env.NODE_REGISTRY}/catalogd-ts:${tag}`, ca };
}

/** Turns a running deployment to HTTPS (a rollout); returns the CA clients trust. */
export async function switchToHttps(tag: string): Promise<string> {
  const ca = await servingCertificate();
  await deploy(tag, true);
  return ca;
}

async function deploy(tag: string, https: boolean, served = false): Promise<void> {
  await run(path.join(repoRoot, 'hack', 'deploy.sh'), [tag], {
    maxBuffer: 1 << 26,
    env: {
      ...process.env,
      ...(https && { DEPLOY_TLS: '1' }),
      CATALOGD_VIEW: served ? 'served' : 'crd',
    },
  });
}

/**
 * The Secret config/tls mounts, as docs/deploy.md says to make it without cert-manager
 * (hack/serving-cert.sh, a new CA each time); returns the CA certificate.
 */
export async function servingCertificate(
  args: string[] = ['--namespace', CATALOGD_NS],
): Promise<string> {
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'catalogd-serving-cert-'));
  try {
    const { stdout } = await run(
      path.join(repoRoot, 'hack', 'serving-cert.sh'),
      ['--out', certDir, ...args],
      { cwd: repoRoot },
    );
    return stdout;
  } finally {
    await rm(certDir, { recursive: true, force: true });
  }
}

/** Deletes what `make deploy` applied, except the CRDs (later suites run their own controllers). */
export async function undeployCatalogdTs(): Promise<void> {
  const rendered = (
    loadAll(await kubectlOk(['kustomize', deployOverlay])) as Array<{ kind: string }>
  )
    .filter((o) => o && o.kind !== 'CustomResourceDefinition')
    .map((o) => JSON.stringify(o))
    .join('\n');
  await kubectl(
    ['delete', '--ignore-not-found', '--wait=true', '--timeout=120s', '-f', '-'],
    rendered,
  );
}
