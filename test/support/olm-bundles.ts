// registry+v1 bundle images (what operator-controller installs) and file-based catalogs over
// them, built by the OLM v1 e2e. A bundle image holds manifests/ (a ClusterServiceVersion whose
// Deployment runs the node's pause image, and a CRD) and metadata/annotations.yaml with the
// registry+v1 annotations, which its config repeats as labels, as `operator-sdk bundle` images do.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { dump } from 'js-yaml';
import { pushImage, pushTarget } from '../../src/source/pusher.js';
import { crdManifest } from './crd-manifest.js';
import { gzipLayer, type TarEntry } from './registry-layers.js';

/** The CRD every bundle of the package owns; its annotation names the bundle content installed. */
export const WIDGET_GROUP = 'olmv1-e2e.catalogd-ts.dev';
export const WIDGET_CRD = `widgets.${WIDGET_GROUP}`;
export const CONTENT_ANNOTATION = `${WIDGET_GROUP}/bundle-content`;

export interface BundleContent {
  pkg: string;
  /** The CSV's version; also the value of CONTENT_ANNOTATION on the CRD. */
  version: string;
  /** The image the CSV's Deployment runs (it must run on the node). */
  podImage: string;
}

function annotations(pkg: string): Record<string, string> {
  return {
    'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
    'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
    'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
    'operators.operatorframework.io.bundle.package.v1': pkg,
    'operators.operatorframework.io.bundle.channels.v1': 'stable',
  };
}

function csv({ pkg, version, podImage }: BundleContent): object {
  const labels = { app: `${pkg}-controller` };
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: `${pkg}.v${version}`, annotations: { capabilities: 'Basic Install' } },
    spec: {
      displayName: `${pkg} (catalogd-ts e2e)`,
      version,
      installModes: [
        { type: 'OwnNamespace', supported: false },
        { type: 'SingleNamespace', supported: false },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      customresourcedefinitions: {
        owned: [{ name: WIDGET_CRD, version: 'v1', kind: 'Widget', displayName: 'Widget' }],
      },
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [
            {
              serviceAccountName: `${pkg}-controller`,
              rules: [
                {
                  apiGroups: [WIDGET_GROUP],
                  resources: ['widgets'],
                  verbs: ['get', 'list', 'watch'],
                },
              ],
            },
          ],
          // The same Deployment in every version: an upgrade rolls no pod.
          deployments: [
            {
              name: `${pkg}-controller`,
              spec: {
                replicas: 1,
                selector: { matchLabels: labels },
                template: {
                  metadata: { labels },
                  spec: {
                    serviceAccountName: `${pkg}-controller`,
                    containers: [{ name: 'pause', image: podImage }],
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

function crd(version: string): object {
  return crdManifest({
    group: WIDGET_GROUP,
    kind: 'Widget',
    scope: 'Namespaced',
    annotations: { [CONTENT_ANNOTATION]: version },
  });
}

/** Builds the bundle image and pushes it to ref (a tag reference); returns its digest. */
export async function pushBundleImage(ref: string, content: BundleContent): Promise<string> {
  const entries: TarEntry[] = [
    { name: 'manifests/', type: 'directory', mode: 0o755 },
    { name: 'manifests/csv.yaml', body: dump(csv(content)) },
    { name: 'manifests/crd.yaml', body: dump(crd(content.version)) },
    { name: 'metadata/', type: 'directory', mode: 0o755 },
    { name: 'metadata/annotations.yaml', body: dump({ annotations: annotations(content.pkg) }) },
  ];
  const layer = await gzipLayer(entries);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: annotations(content.pkg) },
      rootfs: { type: 'layers', diff_ids: [layer.diffId] },
    }),
  );
  const tag = ref.slice(ref.lastIndexOf(':') + 1);
  const desc = await pushImage(pushTarget(ref), config, [layer], tag);
  return desc.digest;
}

export interface CatalogBundle {
  name: string;
  version: string;
  /** The bundle image as operator-controller pulls it. */
  image: string;
}

export interface CatalogChannel {
  name: string;
  entries: Array<{ name: string; replaces?: string }>;
}

export interface Deprecation {
  schema: 'olm.package' | 'olm.channel' | 'olm.bundle';
  name?: string;
  message: string;
}

/** Writes a one-package file-based catalog; returns its directory. */
export async function writePackageCatalog(
  pkg: string,
  defaultChannel: string,
  channels: CatalogChannel[],
  bundles: CatalogBundle[],
  deprecations: Deprecation[] = [],
): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'olmv1-catalog-'));
  await mkdir(path.join(dir, pkg));
  const blobs: object[] = [
    { schema: 'olm.package', name: pkg, defaultChannel },
    ...channels.map((c) => ({ schema: 'olm.channel', package: pkg, ...c })),
    ...bundles.map((b) => ({
      schema: 'olm.bundle',
      package: pkg,
      name: b.name,
      image: b.image,
      properties: [
        { type: 'olm.package', value: { packageName: pkg, version: b.version } },
        { type: 'olm.gvk', value: { group: WIDGET_GROUP, kind: 'Widget', version: 'v1' } },
      ],
    })),
  ];
  if (deprecations.length > 0)
    blobs.push({
      schema: 'olm.deprecations',
      package: pkg,
      entries: deprecations.map(({ schema, name, message }) => ({
        reference: { schema, ...(name && { name }) },
        message,
      })),
    });
  await writeFile(
    path.join(dir, pkg, 'catalog.json'),
    blobs.map((b) => JSON.stringify(b)).join('\n') + '\n',
  );
  return dir;
}
