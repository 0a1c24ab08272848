// OLM v1's operator-controller on the local node, installed as docs/olmv1.md says: upstream's
// release manifest (manifests/standard.yaml of the pinned version, read from the Go module cache
// where hack/olmv1/build.sh downloaded it) without its catalogd parts and without the
// cert-manager objects (no cert-manager here: the Secret olmv1-cert they would make comes from
// hack/serving-cert.sh), applied through a kustomize overlay in .local/olmv1 that sets the image
// (hack/olmv1/image.sh), mounts a registries.conf marking the local registry insecure, and, when
// asked, adds catalogd-ts's CA to the directory operator-controller trusts for catalog content.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { dump, loadAll } from 'js-yaml';
import { servingCertificate } from './catalogd-deployment.js';
import { repoRoot } from './cluster.js';
import { kubectl, kubectlOk } from './kubectl.js';

const run = promisify(execFile);
export const OLM_NS = 'olmv1-system';
export const OPERATOR_CONTROLLER = 'operator-controller-controller-manager';
const MODULE = 'github.com/operator-framework/operator-controller';
const overlay = path.join(repoRoot, '.local', 'olmv1');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/**
 * The selection docs/olmv1.md prescribes: every object of the release but the ClusterCatalog CRD
 * and those named catalogd*; here also without cert-manager's objects.
 */
export function withoutCatalogd(objects: Manifest[]): Manifest[] {
  return objects.filter(
    (o) =>
      !o.metadata.name.startsWith('catalogd') &&
      o.metadata.name !== 'clustercatalogs.olm.operatorframework.io' &&
      !o.apiVersion.startsWith('cert-manager.io/'),
  );
}

/** manifests/standard.yaml of the version hack/olmv1/go.mod pins (downloaded if missing). */
export async function upstreamManifests(): Promise<Manifest[]> {
  const { stdout } = await run('go', ['mod', 'download', '-json', MODULE], {
    cwd: path.join(repoRoot, 'hack', 'olmv1'),
  });
  const dir = (JSON.parse(stdout) as { Dir: string }).Dir;
  const text = await readFile(path.join(dir, 'manifests', 'standard.yaml'), 'utf8');
  return (loadAll(text) as Array<Manifest | null>).filter((o): o is Manifest => !!o);
}

export interface OperatorControllerOptions {
  /** operator-controller's image as pods pull it (a digest reference). */
  image: string;
  /** Adds this CA (catalogd-ts's) to --catalogd-cas-dir, as docs/olmv1.md "HTTPS" says. */
  catalogdCa?: string;
}

/**
 * Writes the overlay and applies it, then waits for the rollout. The first call also makes the
 * Secret olmv1-cert (a CA of its own, as upstream's cert-manager issuer would: it is not the CA
 * that signed catalogd-ts's certificate).
 */
export async function installOperatorController(opts: OperatorControllerOptions): Promise<void> {
  await mkdir(overlay, { recursive: true });
  await writeFile(
    path.join(overlay, 'olmv1-without-catalogd.yaml'),
    withoutCatalogd(await upstreamManifests())
      .map((o) => dump(o, { noRefs: true }))
      .join('---\n'),
  );
  await writeFile(
    path.join(overlay, 'registries.conf'),
    `[[registry]]\nlocation = "${process.env.NODE_REGISTRY}"\ninsecure = true\n`,
  );
  if (opts.catalogdCa) await writeFile(path.join(overlay, 'catalogd-ts-ca.crt'), opts.catalogdCa);
  const [name, digest] = opts.image.split('@');
  await writeFile(
    path.join(overlay, 'kustomization.yaml'),
    dump({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['olmv1-without-catalogd.yaml'],
      images: [{ name: 'quay.io/operator-framework/operator-controller', newName: name, digest }],
      configMapGenerator: [
        { name: 'operator-controller-registries', namespace: OLM_NS, files: ['registries.conf'] },
        ...(opts.catalogdCa
          ? [{ name: 'catalogd-ts-ca', namespace: OLM_NS, files: ['ca.crt=catalogd-ts-ca.crt'] }]
          : []),
      ],
      patches: [{ patch: dump(deploymentPatch(!!opts.catalogdCa)) }],
    }),
  );
  await kubectlOk(['apply', '--server-side', '-f', '-'], namespaceOnly());
  const exists = await kubectl(['-n', OLM_NS, 'get', 'secret', 'olmv1-cert']);
  if (exists.code !== 0)
    await servingCertificate([
      '--namespace',
      OLM_NS,
      '--service',
      'operator-controller-service',
      '--secret',
      'olmv1-cert',
    ]);
  await kubectlOk(['apply', '--server-side', '--force-conflicts', '-k', overlay]);
  await kubectlOk([
    '-n',
    OLM_NS,
    'rollout',
    'status',
    `deployment/${OPERATOR_CONTROLLER}`,
    '--timeout=300s',
  ]);
}

/** The namespace alone first: serving-cert.sh writes the Secret into it. */
function namespaceOnly(): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: OLM_NS },
  });
}

/**
 * Upstream's Deployment, changed only by volumes: containers/image's default registries.conf
 * path (/etc/containers/registries.conf) from a ConfigMap; with the CA, the Secret volume
 * mounted at /var/certs (--catalogd-cas-dir) becomes a projected volume with the same three
 * files plus catalogd-ts's CA.
 */
function deploymentPatch(withCa: boolean): object {
  const certificates = {
    name: 'olmv1-certificate',
    secret: null,
    projected: {
      sources: [
        {
          secret: {
            name: 'olmv1-cert',
            items: [
              { key: 'ca.crt', path: 'olm-ca.crt' },
              { key: 'tls.crt', path: 'tls.cert' },
              { key: 'tls.key', path: 'tls.key' },
            ],
          },
        },
        {
          configMap: {
            name: 'catalogd-ts-ca',
            items: [{ key: 'ca.crt', path: 'catalogd-ts-ca.crt' }],
          },
        },
      ],
    },
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: OPERATOR_CONTROLLER, namespace: OLM_NS },
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'manager',
              volumeMounts: [{ name: 'registries', mountPath: '/etc/containers', readOnly: true }],
            },
          ],
          volumes: [
            { name: 'registries', configMap: { name: 'operator-controller-registries' } },
            ...(withCa ? [certificates] : []),
          ],
        },
      },
    },
  };
}

/** Deletes what installOperatorController applied (ClusterExtensions must be gone first). */
export async function uninstallOperatorController(): Promise<void> {
  await kubectl(['delete', '--ignore-not-found', '--wait=true', '--timeout=120s', '-k', overlay]);
}
