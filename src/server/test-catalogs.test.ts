// Named *.test.ts so that the build (tsconfig.build.json) leaves it out; it holds no tests.
// Test support for the server tests: catalogs as blob arrays, the store's answers computed the
// slow, obvious way (sort everything, filter everything) to compare against, and a store with a
// content server over it.
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { CatalogHasher, blobHash, canonicalize, readCatalog } from '../fbc/index.js';
import { generateCatalog } from '../../test/support/fbcgen.js';
import type { MetasQuery } from './query.js';
import type { ContentBlob } from './revision-build.js';
import { compareStrings } from './revision-format.js';
import { startContentServer } from './server.js';
import type { ContentServer, ContentServerOptions } from './server.js';
import { ContentStore } from './store.js';
import type { ContentStoreOptions } from './store.js';

export interface TestCatalog {
  blobs: ContentBlob[];
  contentHash: string;
}

export function catalogOf(blobs: ContentBlob[]): TestCatalog {
  const h = new CatalogHasher();
  for (const b of blobs) h.add(b.hash);
  return { blobs, contentHash: h.digest() };
}

/** A blob from a JSON object (schema/package/name read from its fields). */
export function blobOf(content: Record<string, unknown>): ContentBlob {
  const canonical = canonicalize(content);
  const str = (k: string): string | undefined => {
    const v = content[k];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  return {
    schema: str('schema')!,
    package: str('package'),
    name: str('name'),
    canonical,
    hash: blobHash(canonical),
  };
}

export async function readDirCatalog(dir: string): Promise<TestCatalog> {
  const blobs: ContentBlob[] = [];
  for await (const b of readCatalog(dir, { catalog: 'test' }))
    blobs.push({
      schema: b.schema,
      package: b.package,
      name: b.name,
      canonical: b.canonical,
      hash: b.hash,
    });
  return catalogOf(blobs);
}

/** A generated catalog of about `sizeMB`, parsed. */
export async function generatedCatalog(seed: number, sizeMB: number): Promise<TestCatalog> {
  const dir = await mkdtemp(path.join(tmpdir(), 'server-gen-'));
  try {
    await generateCatalog(dir, { seed, sizeMB });
    return await readDirCatalog(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function* streamOf<T>(xs: Iterable<T>): AsyncGenerator<T> {
  for (const x of xs) yield x;
}

/** A revision of three (or n) blobs b0, b1, … of package p, which `tag` makes its own. */
export function taggedRevision(tag: string, n = 3): TestCatalog {
  return catalogOf(
    Array.from({ length: n }, (_, i) => blobOf({ schema: 's', package: 'p', name: `b${i}`, tag })),
  );
}

/** The documented blob order: schema, package, name (absent first), then hash. */
export function inBlobOrder(blobs: ContentBlob[]): ContentBlob[] {
  return [...blobs].sort(
    (a, b) =>
      compareStrings(a.schema, b.schema) ||
      compareStrings(a.package ?? '', b.package ?? '') ||
      compareStrings(a.name ?? '', b.name ?? '') ||
      compareStrings(a.hash, b.hash),
  );
}

export function expectedLines(blobs: ContentBlob[], query: MetasQuery = {}): string {
  return inBlobOrder(blobs)
    .filter(
      (b) =>
        (query.schema === undefined || b.schema === query.schema) &&
        (query.package === undefined || b.package === query.package) &&
        (query.name === undefined || b.name === query.name),
    )
    .map((b) => `${b.canonical}\n`)
    .join('');
}

/**
 * A writable that keeps a copy of what it is given: the store reuses its chunk buffers once a
 * write has called back, so keeping the chunk itself would keep bytes that change later.
 */
export class CopyingSink extends Writable {
  readonly #chunks: Buffer[] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.#chunks.push(Buffer.from(chunk));
    done();
  }

  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

/** What a content server answered: status, headers and the body's bytes. */
export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request for `target` to a content server on 127.0.0.1 (GET unless `opts.method`). */
export function send(
  server: { url: string },
  target: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<HttpReply> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path: target, method: opts.method ?? 'GET', headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** GET `target` from a content server on 127.0.0.1: status, headers and the body as text. */
export async function getText(
  server: { url: string },
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const r = await send(server, target, { headers });
  return { ...r, body: r.body.toString('utf8') };
}

/** A content store in a new temporary directory (store.root), and a content server over it. */
export interface ServedStore {
  store: ContentStore;
  server: ContentServer;
}

/** A ServedStore: the store's directory named from `prefix`; closeServedStore undoes it all. */
export async function openServedStore(
  prefix: string,
  storeOptions: ContentStoreOptions = {},
  serverOptions: Omit<ContentServerOptions, 'store'> = {},
): Promise<ServedStore> {
  const store = new ContentStore(await mkdtemp(path.join(tmpdir(), prefix)), storeOptions);
  const server = await startContentServer({ store, ...serverOptions });
  return { store, server };
}

/** Stops the server, closes the store and removes its directory. */
export async function closeServedStore({ store, server }: ServedStore): Promise<void> {
  await server.close();
  await store.close();
  await rm(store.root, { recursive: true, force: true });
}
