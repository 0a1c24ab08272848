// CatalogPackage through the real aggregation layer (issue 55 point 6; docs/served.md
// "Packages"): a controller started with --object-view=served, behind the APIService
// v1.content.olm.operatorframework.io (test/support/served-api.ts), answers
// `kubectl get catalogpackages -l catalog=X` as `kubectl get packagemanifests` did on OLM v0:
// one object per package of the sample catalog with its default channel and head, the printer
// columns (-o wide too), `kubectl explain`, and a watch that sees the package whose blobs a
// catalog update changed, and only it.
import { expect } from 'chai';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { sampleDir } from '../support/catalogs.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { ServedController, ServedList } from '../support/served-e2e.js';
import { startServedController, watchSampleV2FromList } from '../support/served-e2e.js';

const RESOURCE = `catalogpackages.${SERVED_GROUP}`;
const COLLECTION = `/apis/${SERVED_GROUP}/v1/catalogpackages`;

interface Channel {
  name: string;
  currentCSV?: string;
  currentCSVDesc?: { version?: string };
}
interface Package {
  kind: string;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  status: {
    catalog: { name: string; priority: number };
    packageName: string;
    defaultChannel?: string;
    channels: Channel[];
  };
}
type List = ServedList<Package>;

/** package: default channel, its head and version. */
const brief = (p: Package) => {
  const d = p.status.channels.find((c) => c.name === p.status.defaultChannel);
  return `${p.status.packageName}: ${p.status.defaultChannel} ${d?.currentCSV} ${d?.currentCSVDesc?.version}`;
};

describe('served view e2e: CatalogPackage through the aggregation layer', function () {
  this.timeout(600_000);
  const name = uniqueName('served-pkgs');
  let tmp = '';
  let served: ServedController | undefined;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'served-packages-e2e-' }));
    served = await startServedController({ tmp, service: 'catalogd-served-packages-e2e' });
    await pushAndSync(name, sampleDir, `sample:${name}`);
  });

  after(async () => {
    await served?.stop();
    await tearDownE2e({ catalogs: [name], tmp });
  });

  it('is discovered with its short name and explained from its OpenAPI', async () => {
    const resources = await kubectlOk([
      ...['api-resources', '--api-group', SERVED_GROUP, '-o', 'wide'],
    ]);
    expect(resources).to.match(/^catalogpackages\s+cpkg\s+/m);
    await pollUntil(
      async () => {
        const explained = await kubectlOk(['explain', `${RESOURCE}.status`]).catch(() => '');
        return /defaultChannel/.test(explained) ? explained : undefined;
      },
      { timeoutMs: 60_000, what: 'kubectl explain catalogpackages.status' },
    );
  });

  it("lists the sample catalog's packages with `-l catalog=X`: default channel and head", async () => {
    const got = JSON.parse(
      await kubectlOk(['get', RESOURCE, '-l', `catalog=${name}`, '-o', 'json']),
    ) as List;
    expect(got.items.map(brief)).to.deep.equal([
      'example-operator: stable example-operator.v1.1.0 1.1.0',
      'utility-operator: alpha utility-operator.v0.1.0 0.1.0',
    ]);
    for (const p of got.items) {
      expect(p.kind).to.equal('CatalogPackage');
      expect(p.metadata.labels).to.deep.equal({ catalog: name, package: p.status.packageName });
    }
    const one = JSON.parse(
      await kubectlOk([
        'get',
        'cpkg',
        '-l',
        `catalog=${name},package=utility-operator`,
        '-o',
        'json',
      ]),
    ) as List;
    expect(one.items.map((p) => p.status.packageName)).to.deep.equal(['utility-operator']);
  });

  it('prints the package columns, -o wide adds priority, deprecated and channels', async () => {
    const table = await kubectlOk(['get', RESOURCE, '-l', `catalog=${name}`]);
    const lines = table.trim().split('\n');
    expect(lines[0]).to.match(
      /^NAME\s+CATALOG\s+PACKAGE\s+DISPLAY NAME\s+DEFAULT CHANNEL\s+HEAD VERSION\s+PROVIDER\s+AGE$/,
    );
    expect(lines).to.have.length(3);
    expect(lines[1]).to.match(/\sexample-operator\s.*\sstable\s+1\.1\.0\s/);
    const wide = await kubectlOk(['get', RESOURCE, '-l', `catalog=${name}`, '-o', 'wide']);
    const wideLines = wide.trim().split('\n');
    expect(wideLines[0]).to.match(/\sAGE\s+PRIORITY\s+DEPRECATED\s+CHANNELS$/);
    expect(wideLines[1]).to.match(/\s0\s+false\s+candidate,stable$/);
  });

  it('watches a catalog update from the list resourceVersion: only the changed package, with its new head', async () => {
    const { events, after } = await watchSampleV2FromList<Package>(COLLECTION, name);
    expect(events.map((e) => `${e.type} ${brief(e.object)}`)).to.deep.equal([
      'MODIFIED utility-operator: alpha utility-operator.v0.2.0 0.2.0',
    ]);
    expect(events[0]!.object.metadata.resourceVersion).to.equal(after.metadata.resourceVersion);
  });
});
