// CatalogPackage through the real aggregation layer (issue 55 point 6; docs/served.md
// "Packages"): a controller started with --object-view=served, behind the APIService
// v1.content.olm.operatorframework.io (test/support/served-api.ts), answers
// `kubectl get catalogpackages -l catalog=X` as `kubectl get packagemanifests` did on OLM v0:
// one object per package of the sample catalog with its default channel and head, the printer
// columns (-o wide too), `kubectl explain`, and a watch that sees the package whose blobs a
// catalog update changed, and only it.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { applyCatalog, getCatalog, objectsSynced, push } from '../support/catalogs.js';
import { sampleDir, writeSampleV2 } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { freePort } from '../support/ports.js';
import { registerServedApi } from '../support/served-api.js';
import type { ServedApiRegistration } from '../support/served-api.js';

const RESOURCE = `catalogpackages.${SERVED_GROUP}`;
const COLLECTION = `/apis/${SERVED_GROUP}/v1/catalogpackages`;
const NAMESPACE = 'default';
const SERVICE = 'catalogd-served-packages-e2e';

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
interface List {
  metadata: { resourceVersion?: string };
  items: Package[];
}

/** package: default channel, its head and version. */
const brief = (p: Package) => {
  const d = p.status.channels.find((c) => c.name === p.status.defaultChannel);
  return `${p.status.packageName}: ${p.status.defaultChannel} ${d?.currentCSV} ${d?.currentCSVDesc?.version}`;
};

describe('served view e2e: CatalogPackage through the aggregation layer', function () {
  this.timeout(600_000);
  const name = uniqueName('served-pkgs');
  let tmp = '';
  let controller: RunningController;
  let registration: ServedApiRegistration | undefined;
  let v2Dir = '';

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'served-packages-e2e-' }));
    const certs = path.join(tmp, 'certs');
    execFileSync(
      path.join(repoRoot, 'hack', 'serving-cert.sh'),
      [
        ...['--out', certs, '--namespace', NAMESPACE, '--service', SERVICE, '--no-secret'],
        ...['--days', '2', '--ip', '127.0.0.1', '--dns', 'localhost'],
      ],
      { stdio: 'pipe' },
    );
    const ca = await readFile(path.join(certs, 'ca.crt'), 'utf8');
    const port = await freePort();
    controller = (
      await setUpE2e({
        controller: {
          args: [
            '--object-view=served',
            `--api-listen=0.0.0.0:${port}`,
            `--tls-cert-file=${certs}/tls.crt`,
            `--tls-key-file=${certs}/tls.key`,
            '--no-metrics-secure',
          ],
        },
      })
    ).controller;
    registration = await registerServedApi({
      port,
      caBundle: ca,
      namespace: NAMESPACE,
      service: SERVICE,
    });
    await pushAndSync(name, sampleDir, `sample:${name}`);
  });

  after(async () => {
    await registration?.unregister();
    await tearDownE2e({ controllers: [controller], catalogs: [name], tmp });
    if (v2Dir) await rm(v2Dir, { recursive: true, force: true });
  });

  async function list(query: string): Promise<List> {
    return JSON.parse(await kubectlOk(['get', '--raw', `${COLLECTION}?${query}`])) as List;
  }

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
    const before = await list(`labelSelector=catalog%3D${name}`);
    const rv = before.metadata.resourceVersion ?? '';
    expect(rv).to.not.equal('');
    v2Dir = await writeSampleV2();
    const old = (await getCatalog(name)).status?.contentHash;
    await applyCatalog(name, await push(v2Dir, `sample-v2:${name}`));
    await pollUntil(
      async () => {
        const c = await getCatalog(name);
        return c.status?.contentHash !== old && objectsSynced(c) ? c : undefined;
      },
      { timeoutMs: 120_000, what: `${name} to serve the new revision` },
    );
    const stream = await kubectlOk([
      'get',
      '--raw',
      `${COLLECTION}?watch=1&labelSelector=catalog%3D${name}&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=3`,
    ]);
    const events = stream
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; object: Package })
      .filter((e) => e.type !== 'BOOKMARK');
    expect(events.map((e) => `${e.type} ${brief(e.object)}`)).to.deep.equal([
      'MODIFIED utility-operator: alpha utility-operator.v0.2.0 0.2.0',
    ]);
    const after = await list(`labelSelector=catalog%3D${name}`);
    expect(events[0]!.object.metadata.resourceVersion).to.equal(after.metadata.resourceVersion);
  });
});
