import { expect } from 'chai';
import type { CatalogMetadata, ClusterCatalog } from '../../api/v1/index.js';
import type { CatalogClient, MetadataQuery } from '../../client/index.js';
import { packageDetails } from '../../client/index.js';
import { answersCatalog } from '../../../test/support/answers-catalog.js';
import {
  FIXTURE_BLOBS,
  FIXTURE_CATALOG,
  fixtureClient,
} from '../../../test/support/kubectl-catalog-fixture.js';
import type { Shape } from '../../../test/support/lean-objects.js';
import { fakeCatalogs, packageBlobs } from '../../../test/support/ui-catalogs.js';
import { CARD_SLICE, UiData } from './data.js';
import { PAGE_SLICE, packagesPage } from './pages.js';

/** How many turns the event loop took while `work` ran (each a macrotask: setImmediate). */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  done = true;
  return { turns, result };
}

/** A client over in-memory blobs that records every consistent list's query. */
function fakeClient(state: { hash: string; blobs: Array<Record<string, unknown>> }) {
  const queries: MetadataQuery[] = [];
  const catalog = (): ClusterCatalog =>
    ({
      metadata: { name: 'c' },
      spec: { source: { type: 'Image', image: { ref: 'r' } } },
      status: {
        contentHash: state.hash,
        conditions: [{ type: 'Serving', status: 'True', reason: 'Available' }],
      },
    }) as unknown as ClusterCatalog;
  const matches = (b: Record<string, unknown>, q: MetadataQuery) => {
    const schemas = q.schema === undefined ? [] : [q.schema].flat();
    const names = q.name === undefined ? [] : [q.name].flat();
    return (
      (schemas.length === 0 || schemas.includes(String(b.schema))) &&
      (names.length === 0 || names.includes(String(b.name))) &&
      (q.packageOrName === undefined || (b.package ?? b.name) === q.packageOrName)
    );
  };
  const client = {
    listCatalogs: () => Promise.resolve([catalog()]),
    consistentList: (q: MetadataQuery) => {
      queries.push(q);
      return Promise.resolve({
        contentHash: state.hash,
        revisions: { c: state.hash },
        items: state.blobs
          .filter((b) => matches(b, q))
          .map(
            (b) => ({ spec: { catalog: { name: 'c' }, content: b } }) as unknown as CatalogMetadata,
          ),
        retries: 0,
        skipped: [],
      });
    },
    blobOf: (o: CatalogMetadata) => Promise.resolve(o.spec.content),
    blobsOf: (objs: CatalogMetadata[]) => Promise.resolve(objs.map((o) => o.spec.content)),
    resolverContents: (objs: CatalogMetadata[]) =>
      Promise.resolve(objs.map((o) => ({ state: 'full', blob: o.spec.content }))),
  };
  return { client: client as unknown as CatalogClient, queries };
}

describe('ui data (reads and cache)', () => {
  it('reads a catalog once per contentHash: packages, channels, deprecations, then heads only', async () => {
    const state = { hash: 'h1', blobs: answersCatalog(6, 3, 'd') };
    const { client, queries } = fakeClient(state);
    const data = new UiData(client);
    await data.refreshCatalogs();
    const rows = (await data.packages()).cards;
    expect(rows.map((r) => r.name)).to.deep.equal(['d-0', 'd-1', 'd-2', 'd-3', 'd-4', 'd-5']);
    expect(queries[0]).to.include({ catalog: 'c' });
    expect(queries[0]?.schema).to.have.members(['olm.package', 'olm.channel', 'olm.deprecations']);
    expect(
      queries.slice(1).every((q) => q.schema === 'olm.bundle' && Array.isArray(q.name)),
    ).to.equal(true);
    const heads = queries.slice(1).flatMap((q) => [q.name].flat());
    expect(heads.length).to.be.at.most(6);
    const before = queries.length;
    await data.refreshCatalogs();
    await data.packages();
    expect(queries.length, 'same contentHash: cached').to.equal(before);
    state.hash = 'h2';
    state.blobs = answersCatalog(7, 3, 'd');
    await data.refreshCatalogs();
    expect((await data.packages()).cards.map((r) => r.name)).to.include('d-6');
    expect(queries.length, 'new contentHash: read again').to.be.greaterThan(before);
  });

  it('reads a package page with package=P only, never the whole catalog', async () => {
    const state = { hash: 'h1', blobs: answersCatalog(5, 3, 'd') };
    const { client, queries } = fakeClient(state);
    const data = new UiData(client);
    await data.refreshCatalogs();
    const view = await data.packageView('c', 'd-2');
    expect(view?.pkg.name).to.equal('d-2');
    expect(view?.bundles.every((b) => b.package === 'd-2')).to.equal(true);
    expect(queries).to.have.length(1);
    expect(queries[0]).to.deep.include({ catalog: 'c', packageOrName: 'd-2' });
    await data.packageView('c', 'd-2');
    expect(queries, 'cached').to.have.length(1);
  });

  it('shows only the --catalog catalog', async () => {
    const { client } = fakeClient({ hash: 'h1', blobs: answersCatalog(2, 3, 'd') });
    const data = new UiData(client, 'other');
    expect(await data.refreshCatalogs()).to.deep.equal([]);
    expect(await data.packages()).to.deep.equal({ cards: [], failed: [] });
  });
});

describe('ui data of a large hostile catalog', () => {
  // 64 packages, each with a 64 KiB icon and a 64 KiB description: cards made and a page
  // searched through in one go would hold every other request for all of it.
  const PNG = Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    Buffer.alloc(48 * 1024),
  ]).toString('base64');
  const blobs = Array.from({ length: 64 }, (_, i) =>
    packageBlobs(`p-${i}`, {
      pkg: { icon: { base64data: PNG, mediatype: 'image/png' } },
      csv: { description: `${'['.repeat(64 * 1024)} needle` },
    }),
  ).flat();

  it('gives the event loop a turn every slice of work, making the cards and the page', async () => {
    const data = new UiData(fakeCatalogs({ big: blobs }).client);
    await data.refreshCatalogs();
    const cards = await turnsDuring(() => data.packages());
    expect(cards.result.cards).to.have.length(64);
    expect(cards.result.cards[0]!.excerpt).to.equal(`${'['.repeat(157)}...`);
    const work = 64 * PNG.length;
    expect(cards.turns).to.be.at.least(Math.floor(work / CARD_SLICE) - 1);

    const page = await turnsDuring(() => packagesPage(cards.result, { search: 'needle' }, 'big'));
    expect(page.result.value).to.contain('<span id="count">64</span> of 64 packages');
    expect(page.turns).to.be.at.least(Math.floor((64 * 64 * 1024) / PAGE_SLICE) - 1);
  });
});

describe('ui data on a lean catalog', () => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>';
  const blobs = FIXTURE_BLOBS.map((b) =>
    b.schema === 'olm.package' && b.name === 'demo-operator'
      ? {
          ...b,
          icon: { base64data: Buffer.from(svg).toString('base64'), mediatype: 'image/svg+xml' },
        }
      : b,
  );
  const open = async (shape: Shape) => {
    const f = fixtureClient(blobs, shape);
    const data = new UiData(f.client);
    await data.refreshCatalogs();
    return {
      data,
      fetched: () => f.content.requests.map((u) => new URL(u).searchParams.get('name')),
    };
  };

  it('shows the same rows, icons and package pages as the full catalog, fetching only heads and asked icons', async () => {
    const full = await open('full');
    const lean = await open('lean');
    expect(await lean.data.packages()).to.deep.equal(await full.data.packages());
    expect(lean.fetched(), 'the default channels’ heads only').to.deep.equal([
      'demo-operator.v1.3.0',
    ]);

    const icon = await lean.data.icon(FIXTURE_CATALOG, 'demo-operator');
    expect(icon).to.deep.equal(await full.data.icon(FIXTURE_CATALOG, 'demo-operator'));
    expect(icon?.body.toString()).to.equal(svg);
    await lean.data.icon(FIXTURE_CATALOG, 'demo-operator');
    expect(await lean.data.icon(FIXTURE_CATALOG, 'plain-operator')).to.equal(undefined);
    expect(lean.fetched(), 'the icon once').to.deep.equal([
      'demo-operator.v1.3.0',
      'demo-operator',
    ]);

    const details = async (d: UiData) => {
      const v = (await d.packageView(FIXTURE_CATALOG, 'demo-operator'))!;
      return packageDetails(v.catalog, v.pkg, v.channels, v.bundles, v.deprecations);
    };
    expect(await details(lean.data)).to.deep.equal(await details(full.data));
    expect(lean.fetched().slice(2), 'the package page: its head').to.deep.equal([
      'demo-operator.v1.3.0',
    ]);
  });

  it('answers no icon when the content server serves another blob, and asks again later', async () => {
    let broken = true;
    const f = fixtureClient(blobs, 'lean', (url, line) =>
      broken && url.includes('schema=olm.package') ? line.replace('Demo', 'Other') : line,
    );
    const data = new UiData(f.client);
    await data.refreshCatalogs();
    expect((await data.packages()).cards.find((r) => r.name === 'demo-operator')?.hasIcon).to.equal(
      true,
    );
    expect(await data.icon(FIXTURE_CATALOG, 'demo-operator')).to.equal(undefined);
    broken = false;
    expect((await data.icon(FIXTURE_CATALOG, 'demo-operator'))?.body.toString()).to.equal(svg);
  });
});
