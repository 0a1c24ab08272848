// The two servers hack/graphql-compare.ts asks: catalogd-ts's content server with its GraphQL
// endpoint, in this process, over each catalog's revision built from its FBC directory (as the
// controller builds it); and upstream catalogd v1.11 (GraphQLCatalogQueries on) beside the local
// cluster, syncing the same directories pushed as images to the local registry
// (bench/lib/upstream.ts, which the graphql bench shares).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { send } from '../../bench/lib/graphql-clients.js';
import { startUpstreamGraphql } from '../../bench/lib/upstream.js';
import { readCatalog } from '../../src/fbc/index.js';
import { createGraphqlEndpoint } from '../../src/graphql/index.js';
import { ContentStore, startContentServer } from '../../src/server/index.js';
import type { Answer } from './compare.js';

/** A catalog to serve: its name on both sides and its FBC directory. */
export interface CatalogDir {
  name: string;
  dir: string;
}

export interface Side {
  /** The GraphQL URL of catalog `name`. */
  url(name: string): string;
  send(url: string, method: 'POST' | 'GET', body: string | undefined): Promise<Answer>;
  close(): Promise<void>;
}

/** catalogd-ts's content server with the GraphQL endpoint, over revisions built here. */
export async function startOurs(catalogs: CatalogDir[]): Promise<Side> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'graphql-compare-'));
  const store = new ContentStore(path.join(root, 'store'), { graceMs: 0 });
  for (const { name, dir } of catalogs) {
    const { contentHash } = await store.buildNewRevision(name, readCatalog(dir, { catalog: name }));
    await store.activate(name, contentHash, new Date(0));
  }
  const server = await startContentServer({ store, graphql: createGraphqlEndpoint() });
  return {
    url: (name) => `${server.url}/catalogs/${name}/api/v1/graphql`,
    send: (url, method, body) => send(undefined, url, body, undefined, method),
    async close() {
      await server.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Upstream catalogd v1.11 serving the same directories (bench/lib/upstream.ts). */
export async function startUpstreamSide(
  catalogs: CatalogDir[],
  log: (s: string) => void,
): Promise<Side> {
  const u = await startUpstreamGraphql(catalogs, log);
  return {
    url: (name) => u.url(name),
    send: (url, method, body) => send(undefined, url, body, u.ca, method),
    close: () => u.close(),
  };
}
