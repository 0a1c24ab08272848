// Serving ClusterCatalogs over in-memory FBC blobs, as the console's client (CatalogClient)
// answers them, for unit tests of the console (src/plugin/ui): every consistent list's query is
// recorded, each catalog's blobs may hold any JSON value (hostile catalogs), and the catalog
// watch waits until aborted.
import type { CatalogMetadata, ClusterCatalog } from '../../src/api/v1/index.js';
import { GROUP } from '../../src/api/v1/index.js';
import type { CatalogClient, MetadataQuery } from '../../src/client/index.js';

export type Blobs = Array<Record<string, unknown>>;

export interface FakeCatalogs {
  client: CatalogClient;
  /** Every consistent list's query, in order. */
  queries: MetadataQuery[];
}

const hashOf = (name: string) => `sha256:${Buffer.from(name).toString('hex').padEnd(64, '0')}`;

function matches(b: Record<string, unknown>, q: MetadataQuery): boolean {
  const schemas = q.schema === undefined ? [] : [q.schema].flat();
  const names = q.name === undefined ? [] : [q.name].flat();
  return (
    (schemas.length === 0 || schemas.includes(b.schema as string)) &&
    (names.length === 0 || names.includes(b.name as string)) &&
    (q.packageOrName === undefined || (b.package ?? b.name) === q.packageOrName)
  );
}

/**
 * A client over `catalogs` (name → blobs), every one Serving; a list that reads a catalog of
 * `failing` fails with its message (a catalog the client cannot read).
 */
export function fakeCatalogs(
  catalogs: Record<string, Blobs>,
  failing: Record<string, string> = {},
): FakeCatalogs {
  const queries: MetadataQuery[] = [];
  const catalog = (name: string): ClusterCatalog =>
    ({
      metadata: { name },
      spec: { source: { type: 'Image', image: { ref: `example.com/${name}:v1` } } },
      status: {
        contentHash: hashOf(name),
        conditions: [{ type: 'Serving', status: 'True', reason: 'Available' }],
      },
    }) as unknown as ClusterCatalog;
  const object = (cat: string, b: Record<string, unknown>) =>
    ({
      metadata: { name: `${cat}-${String(b.name)}` },
      spec: {
        catalog: { name: cat },
        schema: b.schema,
        package: typeof b.package === 'string' ? b.package : b.name,
        name: b.name,
        content: b,
      },
    }) as unknown as CatalogMetadata;
  const client = {
    // A cluster in the CRD mode alone (the console asks at start, to warn when both are served).
    objectView: () =>
      Promise.resolve({
        view: 'crd' as const,
        group: GROUP,
        reason: 'the cluster serves the CatalogMetadata CRD only',
        both: false,
      }),
    listCatalogs: () => Promise.resolve(Object.keys(catalogs).map(catalog)),
    watchCatalogs: (_onChange: () => void, signal: AbortSignal) =>
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
    consistentList: (q: MetadataQuery, opts: { keep?: (o: CatalogMetadata) => boolean } = {}) => {
      queries.push(q);
      const names = q.catalog !== undefined ? [q.catalog] : Object.keys(catalogs);
      const failed = names.find((c) => failing[c] !== undefined);
      if (failed !== undefined) return Promise.reject(new Error(failing[failed]));
      const items = names
        .flatMap((c) => (catalogs[c] ?? []).filter((b) => matches(b, q)).map((b) => object(c, b)))
        .filter((o) => opts.keep?.(o) ?? true);
      const revisions = Object.fromEntries(names.map((c) => [c, hashOf(c)]));
      return Promise.resolve({
        ...(q.catalog !== undefined && { contentHash: hashOf(q.catalog) }),
        revisions,
        items,
        retries: 0,
        skipped: [],
      });
    },
    // No bundle provides anything here; a catalog of `failing` is left out, as the client does.
    providersOf: (_gvk: unknown, opts: { catalog?: string } = {}) => {
      const names = opts.catalog !== undefined ? [opts.catalog] : Object.keys(catalogs);
      const failed = names
        .filter((c) => failing[c] !== undefined)
        .map((c) => ({ catalog: c, reason: failing[c]! }));
      return Promise.resolve({ providers: [], skipped: [], failed });
    },
    blobOf: (o: CatalogMetadata) => Promise.resolve(o.spec.content),
    blobsOf: (objs: CatalogMetadata[]) => Promise.resolve(objs.map((o) => o.spec.content)),
    resolverContents: (objs: CatalogMetadata[]) =>
      Promise.resolve(objs.map((o) => ({ state: 'full', blob: o.spec.content }))),
    close: () => undefined,
  };
  return { client: client as unknown as CatalogClient, queries };
}

/** One package of a catalog: its package, channel and head bundle (with CSV metadata). */
export function packageBlobs(
  name: string,
  over: { pkg?: Record<string, unknown>; csv?: Record<string, unknown> } = {},
): Blobs {
  return [
    {
      schema: 'olm.package',
      name,
      defaultChannel: 'stable',
      description: `${name}: a package.`,
      ...over.pkg,
    },
    { schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] },
    {
      schema: 'olm.bundle',
      package: name,
      name: `${name}.v1.0.0`,
      image: `example.com/${name}-bundle:v1.0.0`,
      properties: [
        { type: 'olm.package', value: { packageName: name, version: '1.0.0' } },
        {
          type: 'olm.csv.metadata',
          value: { displayName: `The ${name}`, provider: { name: 'Example' }, ...over.csv },
        },
      ],
    },
  ];
}
