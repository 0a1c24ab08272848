import { expect } from 'chai';
import { readDirCatalog } from '../server/test-catalogs.test.js';
import type { TestCatalog } from '../server/test-catalogs.test.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { PackageCache } from './package-cache.js';
import { EXCERPT_DIR, withServed } from './test-fixtures.test.js';
import { postQuery } from './test-requests.test.js';

const NFS = 'nfs-provisioner-operator';
const HEADS = `{ fbcPackage(name: "${NFS}") { name defaultChannelName channels { name headName head { name version } } } }`;

describe('graphql/package-cache: packages kept across queries, bounded', function () {
  it('keeps values up to its bytes and entries, forgetting the least recently used first', () => {
    const c = new PackageCache(100, 3);
    c.set('a', 'A', 40);
    c.set('b', 'B', 40);
    expect(c.get('a')).to.equal('A'); // a is now the most recently used
    c.set('c', 'C', 40); // 120 bytes: b goes
    expect(c.get('b')).to.equal(undefined);
    expect(c.size).to.deep.equal({ entries: 2, bytes: 80 });
    c.set('d', 'D', 1);
    c.set('e', null, 1); // four entries: the least recently used (a) goes
    expect(c.get('a')).to.equal(undefined);
    expect(c.get('e')).to.equal(null);
    expect(c.size).to.deep.equal({ entries: 3, bytes: 42 });
    c.set('big', 'X', 101); // larger than the bound alone: not kept, nothing else lost
    expect(c.get('big')).to.equal(undefined);
    expect(c.size.entries).to.equal(3);
    c.set('d', 'D2', 10); // replaced, counted once
    expect(c.get('d')).to.equal('D2');
    expect(c.size).to.deep.equal({ entries: 3, bytes: 51 });
  });

  describe('through the endpoint', () => {
    let excerpt: TestCatalog;
    before(async () => {
      excerpt = await readDirCatalog(EXCERPT_DIR);
    });

    it('answers a package’s channels and heads again without reading a blob, and a head’s other fields from the bundle', async () => {
      const packages = new PackageCache();
      await withServed({ real: excerpt }, createGraphqlEndpoint({ packages }), async (s) => {
        await postQuery(s.server, 'real', '{ summary { totalSchemas } }');
        const first = await postQuery(s.server, 'real', HEADS);
        expect(first.status, first.text).to.equal(200);
        expect(first.text).to.contain('"headName":"nfs-provisioner-operator.v0.0.9"');
        expect(packages.size.entries).to.be.greaterThan(0);
        const before = s.store.io.contentBytesRead;
        const again = await postQuery(s.server, 'real', HEADS);
        expect(again.text).to.equal(first.text);
        expect(s.store.io.contentBytesRead - before).to.equal(0);
        // image is not in a head's stub: that bundle is read, whole.
        const head = excerpt.blobs.find(
          (b) => b.schema === 'olm.bundle' && b.name === `${NFS}.v0.0.9`,
        )!;
        const beforeImage = s.store.io.contentBytesRead;
        const image = await postQuery(
          s.server,
          'real',
          `{ fbcPackage(name: "${NFS}") { head { name version image } } }`,
        );
        const { image: headImage } = JSON.parse(head.canonical) as { image: string };
        expect(image.text).to.contain(`"image":${JSON.stringify(headImage)}`);
        expect(s.store.io.contentBytesRead - beforeImage).to.equal(
          Buffer.byteLength(head.canonical) + 1,
        );
      });
    });

    it('reads the package again when its cache keeps nothing', async () => {
      await withServed(
        { real: excerpt },
        createGraphqlEndpoint({ packages: new PackageCache(0) }),
        async (s) => {
          await postQuery(s.server, 'real', HEADS);
          const before = s.store.io.contentBytesRead;
          const again = await postQuery(s.server, 'real', HEADS);
          expect(again.status, again.text).to.equal(200);
          expect(s.store.io.contentBytesRead - before).to.be.greaterThan(0);
        },
      );
    });
  });
});
