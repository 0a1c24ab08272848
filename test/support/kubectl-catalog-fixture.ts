// A catalog for the plugin's golden tests: FBC blobs served as CatalogMetadata objects by a fake
// KubeClient (one Serving ClusterCatalog; lists answered with every object, as the client
// re-checks each against the query's exact spec fields).
import type { CatalogMetadata, ClusterCatalog, ObjectView } from '../../src/api/v1/index.js';
import {
  API_VERSION,
  LABEL_METADATA_NAME,
  SERVED_API_VERSION,
  revisionBaseUrl,
} from '../../src/api/v1/index.js';
import type { AnyBlob } from '../../src/client/index.js';
import { CatalogClient } from '../../src/client/index.js';
import type { KubeClient, RequestOptions } from '../../src/kube/index.js';
import { KubeApiError } from '../../src/kube/index.js';
import { run } from '../../src/plugin/main.js';
import { catalogBaseUrl } from '../../src/server/index.js';
import type { ContentServer, Shape } from './lean-objects.js';
import { CONTENT_SERVER, contentServer, metadataObject } from './lean-objects.js';

export const FIXTURE_CATALOG = 'demo';
const HASH = `sha256:${'a'.repeat(64)}`;

const bundle = (pkg: string, version: string, extra: unknown[] = []): AnyBlob => ({
  schema: 'olm.bundle',
  package: pkg,
  name: `${pkg}.v${version}`,
  image: `quay.io/demo/${pkg}-bundle:v${version}`,
  properties: [{ type: 'olm.package', value: { packageName: pkg, version } }, ...extra],
});

const csv = (over: Record<string, unknown>) => ({ type: 'olm.csv.metadata', value: over });

const modes = (...supported: string[]) =>
  ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({
    type,
    supported: supported.includes(type),
  }));

/** Three packages: one with upgrades across release and pre-release versions and deprecations. */
export const FIXTURE_BLOBS: AnyBlob[] = [
  {
    schema: 'olm.package',
    name: 'demo-operator',
    defaultChannel: 'stable',
    description: 'Demo operator: upgrades, pre-releases and deprecations.',
  },
  {
    schema: 'olm.channel',
    package: 'demo-operator',
    name: 'stable',
    entries: [
      { name: 'demo-operator.v1.0.0' },
      { name: 'demo-operator.v1.1.0', replaces: 'demo-operator.v1.0.0' },
      { name: 'demo-operator.v1.2.0-rc.1', replaces: 'demo-operator.v1.1.0' },
      {
        name: 'demo-operator.v1.2.0',
        replaces: 'demo-operator.v1.2.0-rc.1',
        skipRange: '>=1.0.0 <1.2.0',
      },
      {
        name: 'demo-operator.v1.3.0',
        replaces: 'demo-operator.v1.2.0',
        skips: ['demo-operator.v1.1.0'],
      },
    ],
  },
  {
    schema: 'olm.channel',
    package: 'demo-operator',
    name: 'legacy',
    entries: [
      { name: 'demo-operator.v1.0.0' },
      { name: 'demo-operator.v1.1.0', replaces: 'demo-operator.v1.0.0' },
    ],
  },
  bundle('demo-operator', '1.0.0', [
    csv({ installModes: modes('OwnNamespace', 'SingleNamespace'), provider: { name: 'Demo' } }),
  ]),
  bundle('demo-operator', '1.1.0', [
    csv({ installModes: modes('OwnNamespace', 'AllNamespaces'), provider: { name: 'Demo' } }),
  ]),
  bundle('demo-operator', '1.2.0-rc.1', [
    csv({ installModes: modes('AllNamespaces'), provider: { name: 'Demo' } }),
  ]),
  bundle('demo-operator', '1.2.0', [
    csv({ installModes: modes('AllNamespaces'), provider: { name: 'Demo' } }),
  ]),
  bundle('demo-operator', '1.3.0', [
    csv({
      displayName: 'Demo Operator',
      description:
        'Runs demos.\n\n## Details\n\nEach Demo resource starts a demo; see the documentation.',
      maturity: 'stable',
      links: [{ name: 'Documentation', url: 'https://demo.example.com/docs' }],
      maintainers: [{ name: 'Demo Team', email: 'demo@example.com' }],
      installModes: modes('OwnNamespace', 'SingleNamespace', 'AllNamespaces'),
      provider: { name: 'Demo Inc.' },
      keywords: ['demo', 'example'],
      minKubeVersion: '1.28.0',
      annotations: {
        categories: 'Developer Tools',
        capabilities: 'Basic Install',
        'features.operators.openshift.io/disconnected': 'true',
        'features.operators.openshift.io/fips-compliant': 'false',
        'operators.openshift.io/infrastructure-features': '["Proxy-aware"]',
      },
      labels: { 'operatorframework.io/arch.amd64': 'supported' },
    }),
    { type: 'olm.maxOpenShiftVersion', value: '4.18' },
    { type: 'olm.gvk', value: { group: 'demo.example.com', version: 'v1', kind: 'Demo' } },
  ]),
  {
    schema: 'olm.deprecations',
    package: 'demo-operator',
    entries: [
      { reference: { schema: 'olm.channel', name: 'legacy' }, message: 'legacy is frozen.' },
      {
        reference: { schema: 'olm.bundle', name: 'demo-operator.v1.2.0-rc.1' },
        message: 'a release candidate: use 1.2.0.',
      },
    ],
  },
  { schema: 'olm.package', name: 'plain-operator', defaultChannel: 'alpha' },
  {
    schema: 'olm.channel',
    package: 'plain-operator',
    name: 'alpha',
    entries: [{ name: 'plain-operator.v0.1.0' }],
  },
  bundle('plain-operator', '0.1.0'),
  {
    schema: 'olm.deprecations',
    package: 'plain-operator',
    entries: [{ reference: { schema: 'olm.package' }, message: 'plain-operator is unmaintained.' }],
  },
];

/** A Serving ClusterCatalog as the controller writes its status (urls.base: the content server's). */
export function servingCatalog(name: string): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref: `quay.io/demo/${name}:1` } } },
    status: {
      contentHash: HASH,
      // As the controller writes it: the revision's URL under the catalog's.
      urls: { base: revisionBaseUrl(catalogBaseUrl(CONTENT_SERVER, name), HASH) },
      conditions: [
        {
          type: 'Serving',
          status: 'True',
          reason: 'Available',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  };
}

/** The equality and `in` terms of a label selector, as the apiserver applies them. */
function matchesLabels(labels: Record<string, string>, selector: string): boolean {
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((t) => {
    const set = /^\s*([^ ]+) in \(([^)]*)\)$/.exec(t);
    if (set) return set[2]!.split(',').includes(labels[set[1]!] ?? '\0');
    const [k, v] = t.split('=');
    return labels[k!.trim()] === v;
  });
}

/**
 * A CatalogClient over the fixture; `requests` logs each request (verb, resource, selectors).
 * `shape` lean: the objects hold the lean profile's partial content, and `content` serves the
 * whole blobs as the content server does (its `requests` are the blobs fetched; `serve` may
 * change what it answers).
 */
export function fixtureClient(
  blobs: readonly AnyBlob[] = FIXTURE_BLOBS,
  shape: Shape = 'full',
  serve?: (url: string, line: string) => string,
): {
  client: CatalogClient;
  requests: string[];
  content: ContentServer;
} {
  return catalogsClient([{ name: FIXTURE_CATALOG, blobs, shape }], serve);
}

/** A catalog of catalogsClient: its blobs, their objects' shape, or the objects as they are. */
export interface FixtureCatalog {
  name: string;
  blobs: readonly AnyBlob[];
  shape?: Shape;
  /** The objects (default: the blobs' in `shape`). */
  objects?: CatalogMetadata[];
}

/** fixtureClient over several Serving catalogs; `content` serves every catalog's blobs. */
export function catalogsClient(
  catalogs: readonly FixtureCatalog[],
  serve?: (url: string, line: string) => string,
  /** Answers the GraphQL endpoints' URLs (`.../api/v1/graphql`); none: 404 as any other. */
  graphql?: typeof fetch,
  /** The groups whose discovery documents list catalogmetadata (default: the CRD mode's). */
  views: readonly ObjectView[] = ['crd'],
): {
  client: CatalogClient;
  requests: string[];
  content: ContentServer;
} {
  const objects = catalogs.flatMap(
    (c) => c.objects ?? c.blobs.map((b) => metadataObject(c.name, b, c.shape ?? 'full')),
  );
  const servers = new Map(catalogs.map((c) => [c.name, contentServer(c.name, c.blobs, serve)]));
  const content: ContentServer = {
    requests: [],
    maxInFlight: 0,
    fetch: async (input, init) => {
      const url = input instanceof Request ? input.url : input.toString();
      content.requests.push(url);
      if (graphql && new URL(url).pathname.endsWith('/api/v1/graphql')) return graphql(input, init);
      const name = /\/catalogs\/([^/]+)\//.exec(new URL(url).pathname)?.[1] ?? '';
      const server = servers.get(name);
      if (!server) return new Response('not found', { status: 404 });
      try {
        return await server.fetch(input, init);
      } finally {
        content.maxInFlight = Math.max(content.maxInFlight, server.maxInFlight);
      }
    },
  };
  const clusterCatalogs = catalogs.map((c) => servingCatalog(c.name));
  const requests: string[] = [];
  const kube = {
    request(path: string, opts: RequestOptions): Promise<unknown> {
      // The client's discovery of the object view (src/client/object-view.ts): the CRD mode's
      // documents, not counted among the command's requests.
      if (opts.resource === 'discovery')
        return (path === `/apis/${API_VERSION}` && views.includes('crd')) ||
          (path === `/apis/${SERVED_API_VERSION}` && views.includes('served'))
          ? Promise.resolve({ resources: [{ name: 'catalogmetadata' }] })
          : Promise.reject(new KubeApiError(404, 'NotFound', 'not found', 'get', 'discovery'));
      const q = opts.query ?? {};
      requests.push(
        [opts.verb, opts.resource, q.labelSelector, q.fieldSelector]
          .filter((x) => x !== undefined)
          .join(' '),
      );
      if (opts.resource === 'clustercatalogs') {
        if (opts.verb === 'list') {
          const items = clusterCatalogs.filter((c) =>
            matchesLabels(
              { [LABEL_METADATA_NAME]: c.metadata.name },
              String(q.labelSelector ?? ''),
            ),
          );
          return Promise.resolve({ items, metadata: {} });
        }
        const found = clusterCatalogs.find((c) => path.endsWith(`/${c.metadata.name}`));
        if (found) return Promise.resolve(found);
        return Promise.reject(new KubeApiError(404, 'NotFound', 'not found', 'get', 'x'));
      }
      const selected = objects.filter((o) =>
        matchesLabels(o.metadata.labels ?? {}, String(q.labelSelector ?? '')),
      );
      return Promise.resolve({ items: selected, metadata: { resourceVersion: '1' } });
    },
    close() {},
  };
  return {
    client: new CatalogClient({ kube: kube as unknown as KubeClient, fetch: content.fetch }),
    requests,
    content,
  };
}

/**
 * The commands of the plugin that read one package, on package `pkg` and its channel `channel`:
 * show (and --long), channels, bundles (and of the channel), graph in each of its formats.
 */
export function packageCommands(pkg: string, channel: string): string[][] {
  return [
    ['show', pkg],
    ['show', pkg, '--long'],
    ['channels', pkg],
    ['bundles', pkg],
    ['bundles', pkg, '--channel', channel],
    ['graph', pkg],
    ['graph', pkg, '-o', 'mermaid'],
    ['graph', pkg, '-o', 'dot'],
  ];
}

/** What a run of the plugin printed, and its exit code. */
export interface PluginRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kubectl catalog args` on `client` at the fixture's time (2026-01-02). */
export async function runPlugin(args: string[], client: CatalogClient): Promise<PluginRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    client: () => client,
    now: () => new Date('2026-01-02T00:00:00Z'),
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
