// Golden answers of the additions on the real catalog excerpt (test/fixtures/olmv1-check):
// each query and the response body, byte for byte. A changed answer fails until the golden file
// is regenerated and reviewed:
//
//   UPDATE_GOLDEN=1 npx mocha --config .mocharc.unit.cjs src/graphql/additions-golden.test.ts
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { readDirCatalog } from '../server/test-catalogs.test.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { EXCERPT_DIR, withServed } from './test-fixtures.test.js';
import { postQuery } from './test-requests.test.js';

const GOLDEN = path.resolve(import.meta.dirname, '../../test/golden/graphql/additions.txt');

/** The queries docs/graphql.md shows, and a few more. */
export const GOLDEN_QUERIES = [
  '{ fbcPackage(name: "nfs-provisioner-operator") { name defaultChannelName deprecation head { name version deprecation } channels { name headName deprecation entries { name replaces } } } }',
  '{ fbcPackages(installMode: OwnNamespace) { name provider headVersion installModes } }',
  '{ fbcPackages(limit: 2) { name icon { mediatype } categories } }',
  '{ fbcBundles(package: "eda-k8s-operator", channel: "6.0") { name version channels { name } provides { group version kind } } }',
  '{ fbcProvides(group: "cache.jhouse.com", version: "v1alpha1", kind: "NFSProvisioner") { package name version } }',
  '{ fbcUpgrades(package: "eda-k8s-operator", from: "6.0.0") { channel from { name } items { name version via skipRange head } path { name } warnings } }',
  '{ fbcUpgrades(package: "eda-k8s-operator", from: "5.0.0") { head } }',
];

describe('graphql/additions: golden answers on a real catalog excerpt', function () {
  it('answers each query as test/golden/graphql/additions.txt says', async () => {
    const excerpt = await readDirCatalog(EXCERPT_DIR);
    const parts: string[] = [];
    await withServed({ excerpt }, createGraphqlEndpoint(), async (s) => {
      for (const q of GOLDEN_QUERIES) {
        const r = await postQuery(s.server, 'excerpt', q);
        parts.push(`# query\n${q}\n# ${r.status}\n${r.text}`);
      }
    });
    const actual = parts.join('\n');
    if (process.env.UPDATE_GOLDEN) await writeFile(GOLDEN, actual);
    expect(actual).to.equal(await readFile(GOLDEN, 'utf8'));
  });
});
