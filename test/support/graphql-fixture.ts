// The plugin's fixture catalogs (kubectl-catalog-fixture.ts) with a real content server behind
// their GraphQL URLs: a store serving the same blobs, the GraphQL endpoint mounted, so that
// `kubectl catalog query` is tested against the endpoint's own answers. The catalogs' status
// names a revision URL of the fixture's made-up hash: a request to it is sent to the catalog's
// revision served now.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CatalogClient } from '../../src/client/index.js';
import { createAcrossEndpoint, createGraphqlEndpoint } from '../../src/graphql/index.js';
import { ContentStore, startContentServer } from '../../src/server/index.js';
import type { ContentServerOptions } from '../../src/server/index.js';
import { blobOf, catalogOf, streamOf } from '../../src/server/test-catalogs.test.js';
import type { FixtureCatalog } from './kubectl-catalog-fixture.js';
import { catalogsClient } from './kubectl-catalog-fixture.js';

export interface GraphqlFixture {
  client: CatalogClient;
  /** The URLs the client asked, as it asked them (before they are sent to the real server). */
  asked: string[];
  close(): Promise<void>;
}

/**
 * `catalogs` served by a real store and content server with GraphQL (per catalog, and across
 * them with the `priorities` given, 0 by default), and a client over them.
 */
export async function graphqlFixture(
  catalogs: readonly FixtureCatalog[],
  priorities: Readonly<Record<string, number>> = {},
  server: Partial<ContentServerOptions> = {},
): Promise<GraphqlFixture> {
  const root = await mkdtemp(path.join(tmpdir(), 'plugin-graphql-'));
  const store = new ContentStore(path.join(root, 'store'), { graceMs: 0 });
  for (const c of catalogs) {
    const served = catalogOf(c.blobs.map((b) => blobOf(b as Record<string, unknown>)));
    await store.ensureServed(c.name, served.contentHash, new Date('2026-01-01T00:00:00Z'), () =>
      streamOf(served.blobs),
    );
  }
  const entries = catalogs.map((c) => ({
    name: c.name,
    priority: priorities[c.name] ?? 0,
    availabilityMode: 'Available',
    serving: true,
  }));
  const content = await startContentServer({
    store,
    graphql: createGraphqlEndpoint(),
    serverGraphql: createAcrossEndpoint({ directory: { catalogs: () => entries } }),
    ...server,
  });
  const asked: string[] = [];
  const forward: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    asked.push(url.href);
    const target = url.pathname.replace(/\/revisions\/[0-9a-f]+\//, '/');
    return fetch(`${content.url}${target}${url.search}`, init);
  };
  const { client } = catalogsClient(catalogs, undefined, forward);
  return {
    client,
    asked,
    async close() {
      client.close();
      await content.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
