// Selectors over encoded label values: a package or name that is no valid label value is
// labelled `<prefix>-<hash>`; a selector on that label value still finds it (through the index's
// keys for packages, by matching every candidate for names), and the candidate ranges.
import { expect } from 'chai';
import { labelValue } from '../api/v1/index.js';
import { getText } from '../server/test-catalogs.test.js';
import { intersect, unionRanges } from './selection.js';
import { parseBlobs, servedFixture, viewCatalog } from './test-served.test.js';

const WEIRD = 'Weird/Package Name';
const LONG = `bundle-${'x'.repeat(70)}`;

describe('selectors over encoded label values', () => {
  it('finds a package and a name whose labels are hash-encoded', async () => {
    const blobs = [
      { schema: 'olm.package', name: WEIRD },
      { schema: 'olm.bundle', package: WEIRD, name: LONG },
      { schema: 'olm.bundle', package: 'plain', name: 'b' },
    ];
    const rev = await parseBlobs('ops', blobs);
    const f = await servedFixture('ops', [rev]);
    try {
      f.source.set([viewCatalog('ops', rev.key)]);
      const names = async (query: string) => {
        const r = await getText(
          f,
          `/apis/content.olm.operatorframework.io/v1/catalogmetadata?${query}`,
        );
        expect(r.status, query).to.equal(200);
        return (JSON.parse(r.body) as { items: Array<{ spec: { name: string } }> }).items.map(
          (i) => i.spec.name,
        );
      };
      const sel = (k: string, v: string) => `labelSelector=${encodeURIComponent(`${k}=${v}`)}`;
      expect(labelValue(WEIRD)).to.not.equal(WEIRD);
      expect(await names(sel('package', labelValue(WEIRD)))).to.deep.equal([LONG]);
      expect(await names(sel('packageOrName', labelValue(WEIRD)))).to.have.members([WEIRD, LONG]);
      expect(await names(sel('name', labelValue(LONG)))).to.deep.equal([LONG]);
      expect(
        await names(`fieldSelector=${encodeURIComponent(`spec.package=${WEIRD}`)}`),
      ).to.deep.equal([LONG]);
      expect(await names(sel('catalog', 'ops,package=plain'))).to.deep.equal(['b']);
    } finally {
      await f.close();
    }
  });

  it('unions and intersects sequence ranges', () => {
    expect(
      unionRanges([
        [
          [0, 2],
          [5, 6],
        ],
        [[1, 3]],
        [[6, 8]],
      ]),
    ).to.deep.equal([
      [0, 3],
      [5, 8],
    ]);
    expect(
      intersect(
        [
          [0, 3],
          [5, 8],
        ],
        [[2, 6]],
      ),
    ).to.deep.equal([
      [2, 3],
      [5, 6],
    ]);
  });
});
