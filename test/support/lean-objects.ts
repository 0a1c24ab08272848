// CatalogMetadata objects in the three content shapes (SPEC §2.2) for the client's and the
// plugin's unit tests: whole content, the lean profile's partial content (the controller's
// projection, src/fbc/lean.ts), and content omitted whole; and a fetch that serves the whole blobs as
// the content server's metas endpoint does (one canonical JSON line), counting requests.
import type { CatalogMetadata, ClusterCatalog, ContentPart } from '../../src/api/v1/index.js';
import {
  ANNOTATION_CONTENT_HASH,
  ANNOTATION_CONTENT_OMITTED,
  OMITTED_LEAN,
  OMITTED_MAX_OBJECT_BYTES,
  labelValue,
  objectName,
  revisionBaseUrl,
} from '../../src/api/v1/index.js';
import type { AnyBlob } from '../../src/client/index.js';
import { blobHash, canonicalize } from '../../src/api/v1/index.js';
import { leanContent } from '../../src/fbc/lean.js';
import type { KubeClient, RequestOptions } from '../../src/kube/index.js';
import { KubeApiError } from '../../src/kube/index.js';
import { blobUrl, catalogBaseUrl } from '../../src/server/index.js';

/** The content server's URL the objects' contentOmitted.url and the catalogs' urls.base name. */
export const CONTENT_SERVER = 'http://catalogd.test';

export type Shape = 'full' | 'lean' | 'absent';

/** The lean profile's part of a blob and what it left out: the controller's projection. */
function leanPart(b: AnyBlob): { content: AnyBlob; parts: ContentPart[] } {
  const lean = leanContent(b.schema, b);
  return lean ? { content: lean.content as AnyBlob, parts: lean.parts } : { content: b, parts: [] };
}

/** The content server's URL of a blob: the controller's blobUrl. */
function blobUrlOf(catalog: string, b: AnyBlob): string {
  return blobUrl(catalogBaseUrl(CONTENT_SERVER, catalog), {
    schema: b.schema,
    ...(typeof b.package === 'string' && { package: b.package }),
    ...(typeof b.name === 'string' && { name: b.name }),
  });
}

/** The object of a blob in the given shape (a lean blob with nothing to leave out stays whole). */
export function metadataObject(
  catalog: string,
  b: AnyBlob,
  shape: Shape = 'full',
): CatalogMetadata {
  const pkg = typeof b.package === 'string' ? b.package : undefined;
  const name = typeof b.name === 'string' ? b.name : undefined;
  const fields = {
    schema: b.schema,
    ...(pkg !== undefined && { package: pkg }),
    ...(name !== undefined && { name }),
  };
  const id = { catalog, ...fields };
  const canonical = canonicalize(b);
  const omitted = { bytes: Buffer.byteLength(canonical), url: blobUrlOf(catalog, b) };
  const lean = shape === 'lean' ? leanPart(b) : undefined;
  const body =
    shape === 'absent'
      ? { contentOmitted: omitted }
      : lean && lean.parts.length > 0
        ? { content: lean.content, contentOmitted: { ...omitted, parts: lean.parts } }
        : { content: b };
  const why =
    shape === 'absent'
      ? OMITTED_MAX_OBJECT_BYTES
      : 'content' in body && lean?.parts.length
        ? OMITTED_LEAN
        : undefined;
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'CatalogMetadata',
    metadata: {
      name: objectName(id),
      labels: {
        catalog: labelValue(catalog),
        schema: labelValue(b.schema),
        ...(pkg !== undefined && { package: labelValue(pkg) }),
        ...(name !== undefined && { name: labelValue(name) }),
        packageOrName: labelValue(pkg ?? name ?? ''),
      },
      annotations: {
        [ANNOTATION_CONTENT_HASH]: blobHash(canonical),
        ...(why !== undefined && { [ANNOTATION_CONTENT_OMITTED]: why }),
      },
    },
    spec: { catalog: { name: catalog }, ...fields, ...body },
  };
}

export interface ContentServer {
  fetch: typeof fetch;
  /** URLs requested, in order. */
  requests: string[];
  /** The most requests in flight at once. */
  maxInFlight: number;
}

/**
 * A fetch serving the whole blobs at their metas URLs (404 for others); `serve` may replace a
 * blob's line (e.g. another revision's) to test verification.
 */
export function contentServer(
  catalog: string,
  blobs: readonly AnyBlob[],
  serve: (url: string, line: string) => string = (_u, line) => line,
): ContentServer {
  const byUrl = new Map(blobs.map((b) => [blobUrlOf(catalog, b), canonicalize(b)]));
  let inFlight = 0;
  const server: ContentServer = {
    requests: [],
    maxInFlight: 0,
    fetch: async (input) => {
      const url = input instanceof Request ? input.url : input.toString();
      server.requests.push(url);
      inFlight++;
      server.maxInFlight = Math.max(server.maxInFlight, inFlight);
      try {
        await new Promise((r) => setImmediate(r));
        const line = byUrl.get(url);
        if (line === undefined) return new Response('not found', { status: 404 });
        return new Response(`${serve(url, line)}\n`, { status: 200 });
      } finally {
        inFlight--;
      }
    },
  };
  return server;
}

/**
 * A KubeClient fake for a CatalogClient that fetches blobs: GET of a ClusterCatalog answers its
 * status.urls.base (`base`, default CONTENT_SERVER's), the only place the client reads content
 * from; anything else is a 404. `gets` counts the GETs.
 */
export function catalogKube(
  base: (catalog: string) => string | undefined = (c) =>
    revisionBaseUrl(catalogBaseUrl(CONTENT_SERVER, c), `sha256:${'a'.repeat(64)}`),
): KubeClient & { gets: string[] } {
  const gets: string[] = [];
  const kube = {
    gets,
    request(path: string, opts: RequestOptions): Promise<unknown> {
      const name = path.split('/').pop() ?? '';
      if (opts.verb === 'get' && opts.resource === 'clustercatalogs') {
        gets.push(name);
        const url = base(name);
        const catalog: ClusterCatalog = {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterCatalog',
          metadata: { name },
          spec: { source: { type: 'Image', image: { ref: 'quay.io/demo/catalog:1' } } },
          status: { ...(url !== undefined && { urls: { base: url } }) },
        };
        return Promise.resolve(catalog);
      }
      return Promise.reject(new KubeApiError(404, 'NotFound', 'not found', opts.verb, path));
    },
    close() {},
  };
  return kube as unknown as KubeClient & { gets: string[] };
}
