import { expect } from 'chai';
import {
  decodeResourceVersion,
  encodeResourceVersion,
  isAnyResourceVersion,
} from './resource-version.js';
import type { ViewState } from './resource-version.js';

const K1 = '0123456789abcdef';
const K2 = 'fedcba9876543210';

describe('resourceVersion codec', () => {
  const states: Array<[ViewState, string]> = [
    [{ catalogs: [] }, '1'],
    [{ catalogs: [{ catalog: 'a.b', key: K1, profile: 'full' }] }, `1_a.b~${K1}f`],
    [
      {
        catalogs: [
          { catalog: 'a', key: K1, profile: 'full' },
          { catalog: 'b', key: K2, profile: 'lean' },
        ],
        transition: { catalog: 'b', to: { key: K1, profile: 'lean' }, index: 7 },
      },
      `1_a~${K1}f_b~${K2}l_-b~${K1}l~7`,
    ],
    [
      { catalogs: [], transition: { catalog: 'c', to: { key: K2, profile: 'full' }, index: 0 } },
      `1_-c~${K2}f~0`,
    ],
    [
      {
        catalogs: [{ catalog: 'c', key: K2, profile: 'full' }],
        transition: { catalog: 'c', to: undefined, index: 3 },
      },
      `1_c~${K2}f_-c~0~3`,
    ],
  ];
  for (const [state, rv] of states)
    it(`writes and reads ${rv}`, () => {
      expect(encodeResourceVersion(state)).to.equal(rv);
      expect(decodeResourceVersion(rv)).to.deep.equal(state);
      expect(rv).to.match(/^[A-Za-z0-9._~-]+$/);
    });

  for (const rv of [
    '',
    'x',
    '2',
    '1_',
    `1_a~${K1}`,
    `1_a~${K1}x`,
    `1_b~${K1}f_a~${K1}f`,
    `1_-a~0~01`,
    `1_-a~0~1_a~${K1}f`,
    '12345',
  ])
    it(`refuses ${JSON.stringify(rv)} with a 400`, () => {
      expect(() => decodeResourceVersion(rv))
        .to.throw(`invalid resource version "${rv}"`)
        .with.property('code', 400);
    });

  it('takes unset, "" and "0" for any', () => {
    expect([undefined, '', '0', '1'].map(isAnyResourceVersion)).to.deep.equal([
      true,
      true,
      true,
      false,
    ]);
  });
});
