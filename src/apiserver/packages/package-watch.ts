// What a watch of CatalogPackages reads (watched-kind.ts): per revision, each package's object
// name and a hash of every blob of the package (its olm.package blob, channels, bundles,
// deprecations, any other blob naming it), at the sequence number of its olm.package blob. A
// package object is MODIFIED when any of its blobs changed, ADDED and DELETED with its
// olm.package blob; the event sequence and resourceVersions are the watch's (watch-plan.ts).
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { isPackageBlob, SCHEMA_PACKAGE } from '../../answers/fbc-types.js';
import type { RevisionLease } from '../../server/index.js';
import { ObjectIndexCache } from '../blob-entries.js';
import type { IndexedObject, ObjectIndex } from '../blob-entries.js';
import type { Clock } from '../../util/clock.js';
import type { WatchedKind } from '../watched-kind.js';
import { catalogPackage, CATALOG_PACKAGE_KIND, packageObjectName } from './package-object.js';
import {
  packageMatches,
  parsePackageSelectors,
  parsed,
  readPackageParts,
} from './package-reader.js';
import { packagePartialMetadata, packageRowJson, packageTableJson } from './package-table.js';

async function buildPackageIndex(catalog: string, lease: RevisionLease): Promise<ObjectIndex> {
  const hashes = new Map<string, Hash>();
  const seqs = new Map<string, number>();
  const ranges: Array<[number, number]> = lease.blobs > 0 ? [[0, lease.blobs]] : [];
  for await (const { seq, line } of lease.blobsIn(ranges)) {
    const blob = JSON.parse(line) as { schema?: unknown; package?: unknown; name?: unknown };
    const pkg =
      blob.schema === SCHEMA_PACKAGE
        ? typeof blob.name === 'string'
          ? blob.name
          : undefined
        : typeof blob.package === 'string' && blob.package !== ''
          ? blob.package
          : undefined;
    if (pkg === undefined) continue;
    if (blob.schema === SCHEMA_PACKAGE && !seqs.has(pkg)) seqs.set(pkg, seq);
    let h = hashes.get(pkg);
    if (!h) hashes.set(pkg, (h = createHash('sha256')));
    h.update(line).update('\n');
  }
  const objects: IndexedObject[] = [...seqs]
    .map(([pkg, seq]) => ({
      seq,
      name: packageObjectName(catalog, pkg),
      hash: `sha256:${hashes.get(pkg)!.digest('hex')}`,
    }))
    .sort((a, b) => a.seq - b.seq);
  return { objects, byName: new Map(objects.map((o) => [o.name, o])) };
}

/** The package index of the `size` revisions used last. */
export const packageIndexCache = (size = 8): ObjectIndexCache =>
  new ObjectIndexCache(size, buildPackageIndex);

export function catalogPackageKind(index: ObjectIndexCache, clock: Clock): WatchedKind {
  return {
    kind: CATALOG_PACKAGE_KIND,
    parseSelectors: parsePackageSelectors,
    index: (catalog, lease) => index.get(catalog, lease),
    async *read(catalog, lease, seqs, w) {
      const ranges = seqs.map((s) => [s, s + 1] as [number, number]);
      for await (const { seq, line } of lease.blobsIn(ranges)) {
        const pkg = parsed(line);
        if (!isPackageBlob(pkg)) continue;
        const parts = await readPackageParts(lease, pkg.name);
        yield {
          seq,
          matches: packageMatches(w.selectors, catalog.name, pkg.name),
          render: (rv) => {
            const object = catalogPackage(catalog, { pkg, ...parts }, rv);
            if (w.representation === 'object') return JSON.stringify(object);
            if (w.representation === 'metadata')
              return JSON.stringify(packagePartialMetadata(object));
            return packageTableJson(rv, [packageRowJson(object, w.includeObject, clock.now())]);
          },
        };
      }
    },
  };
}
