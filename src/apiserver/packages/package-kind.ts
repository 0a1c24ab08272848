// The CatalogPackage kind (served-kind.ts; docs/served.md, "Packages"): get and list read the
// view's packages one at a time (package-reader.ts); a watch reads, per revision, each package's
// object name and a hash of every blob of the package (its olm.package blob, channels, bundles,
// deprecations, any other blob naming it), at the sequence number of its olm.package blob. A
// package object is MODIFIED when any of its blobs changed, ADDED and DELETED with its
// olm.package blob; the event sequence and resourceVersions are the watch's (watch-plan.ts).
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { isPackageBlob, SCHEMA_PACKAGE } from '../../answers/fbc-types.js';
import type { RevisionLease } from '../../server/index.js';
import { ObjectIndexCache } from '../blob-entries.js';
import type { IndexedObject, ObjectIndex } from '../blob-entries.js';
import type { BuiltObject, ServedKind } from '../served-kind.js';
import {
  catalogPackage,
  CATALOG_PACKAGE_KIND,
  CATALOG_PACKAGE_LIST_KIND,
  CATALOG_PACKAGE_PLURAL,
  packageObjectName,
} from './package-object.js';
import type { CatalogPackage } from './package-object.js';
import {
  matchingPackages,
  packageMatches,
  parsePackageSelectors,
  parsed,
  readPackageParts,
} from './package-reader.js';
import { packageCells, PACKAGE_TABLE_COLUMNS } from './package-table.js';

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

/** A package's object at a resourceVersion, as the representations write it. */
function built(p: CatalogPackage): BuiltObject {
  return { object: p, json: () => JSON.stringify(p), cells: (now) => packageCells(p, now) };
}

/** `indexedRevisions`: the revisions whose package index is kept. */
export function catalogPackageKind(indexedRevisions = 8): ServedKind {
  const index = new ObjectIndexCache(indexedRevisions, buildPackageIndex);
  return {
    kind: CATALOG_PACKAGE_KIND,
    plural: CATALOG_PACKAGE_PLURAL,
    listKind: CATALOG_PACKAGE_LIST_KIND,
    columns: PACKAGE_TABLE_COLUMNS,
    parseSelectors: parsePackageSelectors,
    async *matching(view, selectors, from) {
      for await (const { held, seq, blobs } of matchingPackages(view, selectors, from))
        yield {
          position: { catalog: held.catalog.name, seq },
          build: (rv) => built(catalogPackage(held.catalog, blobs, rv)),
        };
    },
    index: (catalog, lease) => index.get(catalog, lease),
    async *read(catalog, lease, seqs, selectors) {
      const ranges = seqs.map((s) => [s, s + 1] as [number, number]);
      for await (const { seq, line } of lease.blobsIn(ranges)) {
        const pkg = parsed(line);
        if (!isPackageBlob(pkg)) continue;
        if (!packageMatches(selectors, catalog.name, pkg.name)) {
          // Not sent: its parts are not read.
          yield { seq, build: undefined };
          continue;
        }
        const parts = await readPackageParts(lease, pkg.name);
        yield { seq, build: (rv) => built(catalogPackage(catalog, { pkg, ...parts }, rv)) };
      }
    },
  };
}
