// Named *.test.ts so that the build leaves it out; it holds no tests. Test support for the
// served API: a content store holding revisions of small catalogs, a fake ViewSource over it
// (the catalogs as a test sets them), createServedApi behind a node:http server on 127.0.0.1
// with a minimal request-info parser standing in for the front, and a watch client.
import { createServer, request } from 'node:http';
import type { ClientRequest, IncomingMessage, Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pollUntil } from '../../test/support/poll.js';
import { CatalogHasher, readCatalog } from '../fbc/index.js';
import type { Blob } from '../fbc/index.js';
import { ContentStore } from '../server/index.js';
import { streamOf } from '../server/test-catalogs.test.js';
import { ManualClock } from '../util/clock.js';
import { createServedApi } from './served-api.js';
import type { ServedApiOptions } from './served-api.js';
import type { RequestInfo, ServedApi, ViewCatalog, ViewSource } from './ports.js';
import { revisionKey } from './view.js';

export const CATALOG_UID = '6f1c3c1e-8d0e-4a53-9c2f-0d7e5f2a9b11';
export const CREATED = '2026-01-01T00:00:00Z';

/** The blobs of a catalog: packages p1 and p2 (package, channel, bundles), and a custom blob. */
export function catalogBlobs(version: number, opts: { dropBundle?: boolean } = {}): object[] {
  const blobs: object[] = [];
  for (const p of ['p1', 'p2']) {
    blobs.push({
      schema: 'olm.package',
      name: p,
      defaultChannel: 'stable',
      icon: { base64data: 'aWNvbg==', mediatype: 'image/png' },
    });
    const bundles = [`${p}.v1.0.0`, `${p}.v1.1.0`].filter(
      (_, i) => !(opts.dropBundle && p === 'p2' && i === 1),
    );
    blobs.push({
      schema: 'olm.channel',
      package: p,
      name: 'stable',
      entries: bundles.map((name) => ({ name })),
      v: p === 'p1' ? version : 1,
    });
    for (const b of bundles)
      blobs.push({
        schema: 'olm.bundle',
        package: p,
        name: b,
        image: `example.com/${b}`,
        properties: [{ type: 'olm.csv.metadata', value: { description: 'long text' } }],
      });
  }
  blobs.push({ schema: 'custom.notes', text: `notes ${version}` });
  return blobs;
}

export interface ParsedRevision {
  blobs: Blob[];
  contentHash: string;
  key: string;
}

/** The blobs as the parser reads them from a catalog directory (what the CRD mode writes from). */
export async function parseBlobs(catalog: string, blobs: object[]): Promise<ParsedRevision> {
  const dir = await mkdtemp(path.join(tmpdir(), 'served-fbc-'));
  try {
    await writeFile(path.join(dir, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n'));
    const parsed: Blob[] = [];
    for await (const b of readCatalog(dir, { catalog })) parsed.push(b);
    const h = new CatalogHasher();
    for (const b of parsed) h.add(b.hash);
    const contentHash = h.digest();
    return { blobs: parsed, contentHash, key: revisionKey({ contentHash }) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A ViewSource whose catalogs a test sets; acquire is the store's. */
export class FakeSource implements ViewSource {
  list: ViewCatalog[] = [];
  private readonly listeners = new Set<() => void>();
  waits = 0;

  constructor(private readonly store: ContentStore) {}

  catalogs(): ViewCatalog[] {
    return [...this.list].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  /** Leases acquired and not released yet. */
  openLeases = 0;

  acquire(catalog: string, revision: string) {
    const lease = this.store.acquire(catalog, revision);
    if (!lease) return undefined;
    this.openLeases++;
    let released = false;
    return {
      ...lease,
      release: () => {
        if (!released) this.openLeases--;
        released = true;
        lease.release();
      },
    };
  }
  async waitFor(): Promise<boolean> {
    this.waits++;
    return false;
  }
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(catalogs: ViewCatalog[]): void {
    this.list = catalogs;
    for (const l of this.listeners) l();
  }
  /** Waits until every request has released what it leased (fails after 10 s). */
  async leasesReleased(): Promise<void> {
    await pollUntil(async () => this.openLeases === 0, {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: 'every lease released',
    });
  }
}

export function viewCatalog(
  name: string,
  revision: string | undefined,
  profile: ViewCatalog['profile'] = 'full',
): ViewCatalog {
  return { name, uid: CATALOG_UID, creationTimestamp: CREATED, priority: 0, revision, profile };
}

/** The front's RequestInfo for the requests the tests send (no namespaces, no subresources). */
export function requestInfo(req: IncomingMessage): RequestInfo {
  const url = new URL(req.url ?? '/', 'http://x');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const method = (req.method ?? 'GET').toLowerCase();
  if (parts[0] !== 'apis' || parts.length < 4)
    return {
      isResourceRequest: false,
      path: url.pathname,
      verb: method,
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      name: '',
    };
  const [, apiGroup, apiVersion, resource, name = '', subresource = ''] = parts;
  const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
  const verbs: Record<string, string> = {
    get: name ? 'get' : watch ? 'watch' : 'list',
    post: 'create',
    put: 'update',
    patch: 'patch',
    delete: name ? 'delete' : 'deletecollection',
  };
  return {
    isResourceRequest: true,
    path: url.pathname,
    verb: verbs[method] ?? method,
    apiGroup: apiGroup!,
    apiVersion: apiVersion!,
    resource: resource!,
    subresource,
    name,
  };
}

export const SERVER_URL = 'http://catalogd.example:8090';
export const blobUrlOf: ServedApiOptions['blobUrl'] = (catalog, blob) => {
  const q = new URLSearchParams({ schema: blob.schema });
  if (blob.package !== undefined) q.set('package', blob.package);
  if (blob.name !== undefined) q.set('name', blob.name);
  return `${SERVER_URL}/catalogs/${catalog}/api/v1/metas?${q.toString()}`;
};

export interface ServedFixture {
  store: ContentStore;
  source: FakeSource;
  api: ServedApi;
  server: Server;
  url: string;
  clock: ManualClock;
  close(): Promise<void>;
}

/** A store holding `revisions` of catalog `catalog`, the served API over it, and its HTTP server. */
export async function servedFixture(
  catalog: string,
  revisions: ParsedRevision[],
  opts: Partial<ServedApiOptions> = {},
): Promise<ServedFixture> {
  const store = new ContentStore(await mkdtemp(path.join(tmpdir(), 'served-store-')), {
    graceMs: 3_600_000,
  });
  for (const r of revisions) {
    await store.buildRevision(catalog, r.contentHash, streamOf(r.blobs));
    await store.activate(catalog, r.contentHash, new Date(CREATED));
  }
  const source = new FakeSource(store);
  const clock = new ManualClock(Date.parse('2026-01-03T00:00:00Z'));
  const api = createServedApi(source, {
    maxObjectBytes: 1 << 20,
    blobUrl: blobUrlOf,
    clock,
    ...opts,
  });
  const server = createServer((req, res) => {
    void api.handle(req, res, requestInfo(req), { name: 'tester', groups: [], extra: {} });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    store,
    source,
    api,
    server,
    url: `http://127.0.0.1:${port}`,
    clock,
    close: async () => {
      await api.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      await rm(store.root, { recursive: true, force: true });
    },
  };
}

/** An open watch (`path`: the collection, the query after `?watch=true&`): its events as they arrive, parsed line by line. */
export class WatchStream<E> {
  readonly events: E[] = [];
  ended = false;
  /** Whether the response arrived whole (not cut mid-stream), once it closed. */
  complete = false;
  contentType: string | undefined;
  private readonly req: ClientRequest;

  constructor(f: ServedFixture, path: string, query: string, headers: Record<string, string> = {}) {
    const { port } = new URL(f.url);
    let carry = '';
    this.req = request(
      { hostname: '127.0.0.1', port, path: `${path}?watch=true&${query}`, headers },
      (res) => {
        this.contentType = res.headers['content-type'];
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const lines = (carry + chunk).split('\n');
          carry = lines.pop()!;
          for (const l of lines) this.events.push(JSON.parse(l) as E);
        });
        res.on('end', () => (this.ended = true));
        res.on('close', () => (this.complete = res.complete));
        res.on('error', () => (this.ended = true));
      },
    );
    this.req.on('error', () => (this.ended = true));
    this.req.end();
  }

  /** Waits for the response's head: the watch has started. */
  async started(): Promise<void> {
    await pollUntil(async () => this.contentType !== undefined, {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: 'the watch to start',
    });
  }

  async until(n: number): Promise<E[]> {
    await pollUntil(async () => this.events.length >= n, {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: `${n} watch events`,
    });
    return this.events.slice(0, n);
  }

  /** Waits for the end of the response. */
  async end(): Promise<void> {
    await pollUntil(async () => this.ended, {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: 'the watch to end',
    });
  }

  close(): void {
    this.req.destroy();
  }
}
