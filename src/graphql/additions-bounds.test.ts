import { expect } from 'chai';
import { parse } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { catalogOf, generatedCatalog, readDirCatalog } from '../server/test-catalogs.test.js';
import type { TestCatalog } from '../server/test-catalogs.test.js';
import { additionListSize } from './additions.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { joinCost } from './limits.js';
import { isAdditionRootField } from './names.js';
import { EXCERPT_DIR, LATE_CLOCK, withServed } from './test-fixtures.test.js';
import { postQuery, requestError } from './test-requests.test.js';

const NFS = 'nfs-provisioner-operator';

function costOf(query: string, variables: Record<string, unknown> = {}): number {
  const doc = parse(query);
  const op = doc.definitions.find(
    (d) => d.kind === 'OperationDefinition',
  ) as OperationDefinitionNode;
  return joinCost(doc, op, variables, isAdditionRootField, additionListSize);
}

describe('graphql/additions: bounded reads and cost', function () {
  let excerpt: TestCatalog;
  let both: TestCatalog;
  before(async () => {
    excerpt = await readDirCatalog(EXCERPT_DIR);
    // The excerpt among a generated catalog of 2 MB: one package is a small part of it.
    const gen = await generatedCatalog(11, 2);
    both = catalogOf([...excerpt.blobs, ...gen.blobs]);
  });

  it('reads only one package’s blobs for its channels and heads (the store’s io counters)', async () => {
    const own = both.blobs.filter(
      (b) => b.package === NFS || (b.schema === 'olm.package' && b.name === NFS),
    );
    const ownBytes = own.reduce((n, b) => n + Buffer.byteLength(b.canonical) + 1, 0);
    const allBytes = both.blobs.reduce((n, b) => n + Buffer.byteLength(b.canonical) + 1, 0);
    await withServed({ both }, createGraphqlEndpoint(), async (s) => {
      // The schema is built on the first query (a read of every blob): before measuring.
      await postQuery(s.server, 'both', '{ summary { totalSchemas } }');
      const before = s.store.io.contentBytesRead;
      const r = await postQuery(
        s.server,
        'both',
        `{ fbcPackage(name: "${NFS}") { name deprecation channels { name headName head { name version } } head { name } } }`,
      );
      expect(r.status, r.text).to.equal(200);
      const read = s.store.io.contentBytesRead - before;
      expect(read).to.be.greaterThan(0);
      expect(read).to.be.at.most(ownBytes);
      expect(allBytes).to.be.greaterThan(100 * ownBytes);
      // A page of a package's bundles reads that page.
      const first = both.blobs
        .filter((b) => b.package === NFS && b.schema === 'olm.bundle')
        .sort((a, b) => (a.name! < b.name! ? -1 : 1))[0]!;
      const beforePage = s.store.io.contentBytesRead;
      const page = await postQuery(
        s.server,
        'both',
        `{ fbcBundles(package: "${NFS}", limit: 1) { name } }`,
      );
      expect(page.text).to.contain(first.name);
      expect(s.store.io.contentBytesRead - beforePage).to.equal(
        Buffer.byteLength(first.canonical) + 1,
      );
    });
  });

  it('counts each field with a selection by its limit (10 for a list without one), times the lists it is in', () => {
    expect(costOf('{ fbcPackage(name: "x") { name } }')).to.equal(1);
    expect(costOf('{ fbcPackages(limit: 5) { name channels { name head { name } } } }')).to.equal(
      5 * (1 + 10 * (1 + 1)),
    );
    expect(costOf('{ fbcPackages { bundles(limit: 3) { name } } }')).to.equal(100 * (1 + 3));
    expect(
      costOf('query($n: Int) { fbcBundles(package: "p", limit: $n) { channels { name } } }', {
        n: 2,
      }),
    ).to.equal(2 * (1 + 10));
    // Upstream's fields are counted by the list cost, not here; fragments as often as spread.
    expect(costOf('{ olmbundles { properties { type } } summary { totalSchemas } }')).to.equal(0);
    expect(
      costOf(
        '{ fbcPackage(name: "x") { ...C ...C } } fragment C on Fbc_Package { channels { name } }',
      ),
    ).to.equal(1 * (1 + 10 + 10));
  });

  it('refuses a query over the join cost with 400 before reading anything', async () => {
    await withServed({ excerpt }, createGraphqlEndpoint(), async (s) => {
      const r = await postQuery(
        s.server,
        'excerpt',
        '{ fbcPackages { bundles { channels { name } } } }',
      );
      expect([r.status, r.text]).to.deep.equal([
        400,
        requestError(
          'query exceeds maximum join cost of 10000 objects (each field with a selection counts its limit, or 10 for a list without one, times the lists it is in)',
        ),
      ]);
      const ok = await postQuery(
        s.server,
        'excerpt',
        '{ fbcPackages(limit: 10) { channels { head { name } } } }',
      );
      expect(ok.status).to.equal(200);
    });
  });

  it('reads and holds within the query’s budgets', async () => {
    await withServed(
      { excerpt },
      createGraphqlEndpoint({ budgets: { readBytes: 4000 } }),
      async (s) => {
        const r = await postQuery(
          s.server,
          'excerpt',
          '{ fbcProvides(group: "x", version: "v1", kind: "Y") { name } }',
        );
        expect([r.status, r.text]).to.deep.equal([
          400,
          requestError('query reads more than 4000 bytes of blobs: ask for fewer objects (limit)'),
        ]);
      },
    );
    await withServed(
      { excerpt },
      createGraphqlEndpoint({ budgets: { answerBytes: 2000 } }),
      async (s) => {
        const r = await postQuery(
          s.server,
          'excerpt',
          `{ fbcBundles(package: "${NFS}") { name } }`,
        );
        expect([r.status, r.text]).to.deep.equal([
          400,
          requestError(
            'query answer exceeds 2000 bytes: ask for fewer objects (limit) or fewer fields',
          ),
        ]);
      },
    );
  });

  it('stops an addition past the query’s deadline with 503', async () => {
    await withServed({ excerpt }, createGraphqlEndpoint({ clock: LATE_CLOCK }), async (s) => {
      const r = await postQuery(
        s.server,
        'excerpt',
        '{ fbcProvides(group: "x", version: "v1", kind: "Y") { name } }',
      );
      expect([r.status, r.text]).to.deep.equal([
        503,
        requestError('query exceeds its deadline of 5s'),
      ]);
    });
  });
});
