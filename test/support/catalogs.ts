// Helpers for e2e tests that drive ClusterCatalogs through kubectl and the local registry.
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClusterCatalog, ContentProfile } from '../../src/api/v1/index.js';
import {
  ANNOTATION_CONTENT_PROFILE,
  CLUSTER_CATALOG_PLURAL,
  GROUP,
  VERSION,
} from '../../src/api/v1/index.js';
import type { KubeClient } from '../../src/kube/index.js';
import { Resource } from '../../src/kube/index.js';
import { pushCatalog } from '../../src/source/index.js';
import { repoRoot } from './cluster.js';
import { kubectlOk } from './kubectl.js';
import { pollUntil } from './poll.js';

/** Installs the project's CRDs (idempotent) and waits until the apiserver serves them. */
export async function installCrds(): Promise<void> {
  const crds = path.join(repoRoot, 'crds');
  await kubectlOk(['apply', '--server-side', '-f', crds]);
  await kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', '-f', crds]);
}

export const sampleDir = path.join(repoRoot, 'examples', 'catalog');

export interface ObjectList {
  items: Array<{
    metadata: {
      name: string;
      uid: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
      ownerReferences?: Array<Record<string, unknown>>;
    };
    spec: Record<string, unknown>;
  }>;
}

export async function push(dir: string, tag: string): Promise<string> {
  const ref = `${process.env.REGISTRY}/e2e/${tag}`;
  return (await pushCatalog(dir, ref)).ref;
}

export async function applyCatalog(
  name: string,
  ref: string,
  extra: Record<string, unknown> = {},
  pollIntervalMinutes?: number,
) {
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name },
      spec: {
        source: {
          type: 'Image',
          image: { ref, ...(pollIntervalMinutes && { pollIntervalMinutes }) },
        },
        ...extra,
      },
    }),
  );
}

/** Applies a ClusterCatalog with the content-profile annotation `profile` (none: no annotation). */
export async function applyWithProfile(name: string, ref: string, profile?: ContentProfile) {
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: {
        name,
        ...(profile && { annotations: { [ANNOTATION_CONTENT_PROFILE]: profile } }),
      },
      spec: { source: { type: 'Image', image: { ref } } },
    }),
  );
}

/** Sets a ClusterCatalog's content-profile annotation (a reconcile follows). */
export async function annotateProfile(name: string, profile: ContentProfile) {
  await kubectlOk([
    'annotate',
    'clustercatalog',
    name,
    `${ANNOTATION_CONTENT_PROFILE}=${profile}`,
    '--overwrite',
  ]);
}

export async function getCatalog(name: string): Promise<ClusterCatalog> {
  return JSON.parse(
    await kubectlOk(['get', 'clustercatalog', name, '-o', 'json']),
  ) as ClusterCatalog;
}

/** ClusterCatalogs as `client` reads and writes them, for tests of the API through the client. */
export function clusterCatalogResource(client: KubeClient): Resource<ClusterCatalog> {
  return new Resource<ClusterCatalog>(client, {
    group: GROUP,
    version: VERSION,
    plural: CLUSTER_CATALOG_PLURAL,
  });
}

export function condition(c: ClusterCatalog, type: string) {
  return c.status?.conditions?.find((x) => x.type === type);
}

/**
 * Waits until the catalog's Progressing condition, for its current generation, has `reason` and
 * a message matching `message` (a refusal: Retrying under a tag, Blocked under a digest).
 * `check` runs on every poll (e.g. that the controller is still alive).
 */
export async function waitProgressing(
  name: string,
  reason: string,
  message: RegExp,
  opts: { what: string; timeoutMs?: number; check?: () => void },
): Promise<ClusterCatalog> {
  return pollUntil(
    async () => {
      opts.check?.();
      const cat = await getCatalog(name);
      const p = condition(cat, 'Progressing');
      return p?.reason === reason &&
        p.observedGeneration === cat.metadata.generation &&
        message.test(p.message)
        ? cat
        : undefined;
    },
    { timeoutMs: opts.timeoutMs ?? 120_000, what: `Progressing=${reason} for ${opts.what}` },
  );
}

/**
 * Whether the catalog's objects are the served revision of its current spec: Progressing
 * Succeeded (upstream's meaning: the revision is served) and our ObjectsSynced True, both of the
 * current generation, and no sync journal.
 */
export function objectsSynced(c: ClusterCatalog): boolean {
  const current = (type: string) => {
    const x = condition(c, type);
    return x?.observedGeneration === c.metadata.generation ? x : undefined;
  };
  return (
    current('Progressing')?.reason === 'Succeeded' &&
    current('ObjectsSynced')?.status === 'True' &&
    !c.status?.syncingTo
  );
}

/** Waits until the catalog has synced content (optionally a different one than `notHash`). */
export async function waitSynced(
  name: string,
  notHash?: string,
  timeoutMs = 120_000,
): Promise<ClusterCatalog> {
  return pollUntil(
    async () => {
      const c = await getCatalog(name);
      const ok =
        objectsSynced(c) && c.status?.contentHash !== undefined && c.status.contentHash !== notHash;
      return ok ? c : undefined;
    },
    { timeoutMs, what: `ClusterCatalog ${name} to sync` },
  );
}

export async function listObjects(selector: string): Promise<ObjectList> {
  return JSON.parse(
    await kubectlOk(['get', 'catalogmetadata', '-l', selector, '-o', 'json']),
  ) as ObjectList;
}

export function normalize(list: ObjectList, ownerUid: string) {
  return list.items
    .map((o) => {
      const owners = (o.metadata.ownerReferences ?? []).map((r) => ({
        ...r,
        uid: r.uid === ownerUid ? '<catalog uid>' : r.uid,
      }));
      return {
        name: o.metadata.name,
        labels: o.metadata.labels,
        annotations: o.metadata.annotations,
        ownerReferences: owners,
        spec: o.spec,
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * What status.storedBytes should be for listed objects: the bytes of each object's JSON as the
 * controller writes it, without the fields the apiserver sets (uid, resourceVersion, …).
 */
export function writtenBytes(
  items: ReadonlyArray<{
    metadata: Pick<ObjectList['items'][number]['metadata'], 'name' | 'labels' | 'annotations'> & {
      ownerReferences?: readonly object[];
    };
  }>,
): number {
  let bytes = 0;
  for (const { metadata, ...rest } of items) {
    const { name, labels, annotations, ownerReferences } = metadata;
    const written = { ...rest, metadata: { name, labels, annotations, ownerReferences } };
    bytes += Buffer.byteLength(JSON.stringify(written));
  }
  return bytes;
}

/**
 * The sample catalog, changed: one bundle added (utility-operator.v0.2.0) and one channel
 * changed (utility-operator's alpha gains it). Returns the new directory.
 */
export async function writeSampleV2(): Promise<string> {
  const v2Dir = await mkdtemp(path.join(os.tmpdir(), 'catalog-v2-'));
  await cp(sampleDir, v2Dir, { recursive: true });
  const jsonFile = path.join(v2Dir, 'utility-operator', 'catalog.json');
  const lines = (await readFile(jsonFile, 'utf8')).trim().split('\n');
  lines[1] = JSON.stringify({
    schema: 'olm.channel',
    package: 'utility-operator',
    name: 'alpha',
    entries: [
      { name: 'utility-operator.v0.1.0' },
      { name: 'utility-operator.v0.2.0', replaces: 'utility-operator.v0.1.0' },
    ],
  });
  lines.push(
    JSON.stringify({
      schema: 'olm.bundle',
      package: 'utility-operator',
      name: 'utility-operator.v0.2.0',
      image: 'quay.io/example/utility-operator-bundle:v0.2.0',
      properties: [
        { type: 'olm.package', value: { packageName: 'utility-operator', version: '0.2.0' } },
      ],
    }),
  );
  await writeFile(jsonFile, lines.join('\n') + '\n');
  return v2Dir;
}

/**
 * A ClusterCatalog no controller pulls or writes objects for (Unavailable, an unresolvable digest):
 * an owner, or an object to write status to, for tests of the API itself.
 */
export function inertCatalog(name: string): ClusterCatalog {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: {
      source: {
        type: 'Image',
        image: { ref: 'registry.invalid/e2e/never@sha256:' + '0'.repeat(64) },
      },
      priority: 0,
      availabilityMode: 'Unavailable',
    },
  };
}
