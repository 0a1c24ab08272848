// Named *.test.ts so that the build leaves it out; it holds no tests. A small catalog for the
// GraphQL tests and a content server with the endpoint mounted (requests to it: test-requests).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ContentStore, startContentServer } from '../server/index.js';
import type { ContentServer, LeasedEndpoint } from '../server/index.js';
import { blobOf, catalogOf, streamOf } from '../server/test-catalogs.test.js';
import type { TestCatalog } from '../server/test-catalogs.test.js';
import type { Clock } from '../util/clock.js';
import { createGraphqlEndpoint } from './endpoint.js';

export const T0 = new Date('2026-03-04T05:06:07Z');

/** A clock whose timers fire at once: a query's deadline has passed when it runs. */
export const LATE_CLOCK: Pick<Clock, 'setTimer'> = {
  setTimer(_ms, fn) {
    fn();
    return { cancel: () => undefined };
  },
};

/** Real packages of public OpenShift catalogs (test/fixtures/olmv1-check/README.md). */
export const EXCERPT_DIR = path.resolve(
  import.meta.dirname,
  '../../test/fixtures/olmv1-check/catalog',
);

/** Blobs of every kind the type rules tell apart. */
export function smallCatalog(extra: Array<Record<string, unknown>> = []): TestCatalog {
  return catalogOf(
    [
      {
        schema: 'olm.package',
        name: 'foo',
        defaultChannel: 'stable',
        icon: { mediatype: 'image/svg+xml', base64data: 'PHN2Zz4=' },
        description: 'a <b> & c',
      },
      { schema: 'olm.package', name: 'bar', defaultChannel: 'fast' },
      {
        schema: 'olm.channel',
        package: 'foo',
        name: 'stable',
        entries: [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1', skips: ['foo.v0'] }],
      },
      ...['foo.v1', 'foo.v2', 'bar.v1'].map((name) => ({
        schema: 'olm.bundle',
        package: name.split('.')[0],
        name,
        image: `quay.io/x/${name}`,
        properties: [
          { type: 'olm.package', value: { packageName: name.split('.')[0], version: '1.0.0' } },
          { type: 'olm.gvk', value: { group: 'x.io', kind: 'X', version: 'v1' } },
        ],
      })),
      {
        schema: 'my.thing',
        name: 'one',
        count: 3,
        ratio: 0.5,
        big: 3000000000,
        flag: true,
        tags: ['a', 'b'],
        mixed: [1, 'a'],
        nums: [1, 2.5],
        empty: [],
        obj: { z: 1, a: '<' },
        'weird-key': 'x',
        nothing: null,
      },
      ...extra,
    ].map(blobOf),
  );
}

export interface Served {
  root: string;
  store: ContentStore;
  server: ContentServer;
  close(): Promise<void>;
}

/** A store serving `catalogs` (name → catalog) and a server with `graphql` mounted. */
export async function serve(
  catalogs: Record<string, TestCatalog>,
  graphql: LeasedEndpoint | undefined,
  opts: { graceMs?: number } = {},
): Promise<Served> {
  const root = await mkdtemp(path.join(tmpdir(), 'graphql-'));
  const store = new ContentStore(path.join(root, 'store'), { graceMs: opts.graceMs ?? 0 });
  for (const [name, c] of Object.entries(catalogs))
    await store.ensureServed(name, c.contentHash, T0, () => streamOf(c.blobs));
  const server = await startContentServer({ store, ...(graphql && { graphql }) });
  return {
    root,
    store,
    server,
    async close() {
      await server.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Runs `fn` with `catalogs` served (see serve), and closes them after, whatever `fn` does. */
export async function withServed(
  catalogs: Record<string, TestCatalog>,
  graphql: LeasedEndpoint | undefined,
  fn: (s: Served) => Promise<void>,
  opts: { graceMs?: number } = {},
): Promise<void> {
  const s = await serve(catalogs, graphql, opts);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

/**
 * Serves smallCatalog() as `cat`, with the endpoint mounted, for the suite it is called in (a
 * before and an after hook); what it returns gives that Served once the before hook has run.
 */
export function servedForSuite(): () => Served {
  let s: Served | undefined;
  before(async () => {
    s = await serve({ cat: smallCatalog() }, createGraphqlEndpoint());
  });
  after(async () => {
    await s?.close();
  });
  return () => s!;
}
