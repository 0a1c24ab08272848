// "Exactly one revision": a catalog's objects, reduced to object name → content hash, compared
// as a whole with what each known revision of the catalog (an FBC directory) would produce.
// Lists metadata-only and paginated, so a 10k-object catalog costs a few MB, not its content.
import { createHash } from 'node:crypto';
import { CATALOG_METADATA_PLURAL, GROUP, VERSION } from '../../src/api/v1/index.js';
import { CatalogHasher, readCatalog, toCatalogMetadata } from '../../src/fbc/index.js';
import type { ObjectMetadata } from '../../src/kube/index.js';
import { ANNOTATION_CONTENT_HASH } from '../../src/api/v1/index.js';
import { KubeClient, Resource } from '../../src/kube/index.js';

export type Revision = Map<string, string>;

/** The objects a catalog directory produces for catalog `catalog`: name → blob hash. */
export async function revisionOf(dir: string, catalog: string): Promise<Revision> {
  const rev: Revision = new Map();
  for await (const blob of readCatalog(dir, { catalog })) {
    rev.set(toCatalogMetadata(blob).metadata.name, blob.hash);
  }
  return rev;
}

/** The contentHash of catalog `catalog` served from a catalog directory (status.contentHash). */
export async function catalogContentHash(dir: string, catalog: string): Promise<string> {
  const hasher = new CatalogHasher();
  for await (const blob of readCatalog(dir, { catalog })) hasher.add(blob.hash);
  return hasher.digest();
}

/** The catalog's objects in the apiserver now (label-selected): name → content-hash annotation. */
export async function revisionInCluster(catalog: string): Promise<Revision> {
  const client = new KubeClient({ kubeconfig: process.env.KUBECONFIG ?? '', maxSockets: 2 });
  try {
    const meta = new Resource<ObjectMetadata>(
      client,
      { group: GROUP, version: VERSION, plural: CATALOG_METADATA_PLURAL },
      { metadataOnly: true },
    );
    const rev: Revision = new Map();
    for await (const o of meta.listAll(`catalog=${catalog}`, 500)) {
      rev.set(o.metadata.name, o.metadata.annotations?.[ANNOTATION_CONTENT_HASH] ?? '');
    }
    return rev;
  } finally {
    client.close();
  }
}

/** One digest for a whole revision (order-independent). */
export function revisionDigest(rev: Revision): string {
  const h = createHash('sha256');
  for (const name of [...rev.keys()].sort()) h.update(`${name}=${rev.get(name)}\n`);
  return `sha256:${h.digest('hex')}`;
}

/**
 * Which of the known revisions the cluster's objects are, by digest; undefined for a mix (or
 * anything else), with a summary of the difference to the closest one for the error.
 */
export function matchRevision(
  got: Revision,
  known: Record<string, Revision>,
): { match?: string; detail: string } {
  const digest = revisionDigest(got);
  let detail = '';
  for (const [label, rev] of Object.entries(known)) {
    if (revisionDigest(rev) === digest) return { match: label, detail: label };
    let differ = 0;
    for (const [k, v] of rev) if (got.get(k) !== v) differ++;
    for (const k of got.keys()) if (!rev.has(k)) differ++;
    detail += `${label}: ${differ} of ${rev.size} objects differ; `;
  }
  return { detail: `${got.size} objects, a mix: ${detail}` };
}
