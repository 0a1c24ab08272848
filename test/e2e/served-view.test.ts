// The served view through the real aggregation layer (issue 55; SPEC §2.3; docs/served.md): a
// controller started with --object-view=served, behind the APIService
// v1.content.olm.operatorframework.io (test/support/served-api.ts), answers kubectl as the CRD
// mode's objects do: discovery and OpenAPI (kubectl explain), `get -l package=X` with the names
// `catalogd render` prints, `-o wide`, a field selector, pagination, a watch through a catalog
// update (exactly the 2 changed objects), 403 for a user without `list` and the objects for one
// with it, 401 for a direct connection without the front proxy's certificate, and `kubectl diff`
// of `render --object-view served` output exiting 0. Nothing is written to etcd.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { sampleDir } from '../support/catalogs.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { renderTo } from '../support/render.js';
import type { ServedController } from '../support/served-e2e.js';
import {
  httpsGet,
  listServed,
  startServedController,
  syncSampleV2,
  watchFrom,
} from '../support/served-e2e.js';

const RESOURCE = `catalogmetadata.${SERVED_GROUP}`;
const COLLECTION = `/apis/${SERVED_GROUP}/v1/catalogmetadata`;

interface Item {
  apiVersion: string;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: { catalog: { name: string }; package?: string; schema: string; name?: string };
}
interface List {
  items: Item[];
}

const names = (items: readonly Item[]) => items.map((i) => i.metadata.name).sort();

describe('served view e2e: CatalogMetadata through the aggregation layer', function () {
  this.timeout(600_000);
  const name = uniqueName('served-view');
  const reader = uniqueName('served-reader');
  let tmp = '';
  let served: ServedController | undefined;
  let rendered: Item[] = [];
  let renderedFile = '';

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'served-view-e2e-' }));
    served = await startServedController({ tmp, service: 'catalogd-served-e2e' });
    await pushAndSync(name, sampleDir, `sample:${name}`);
    renderedFile = path.join(tmp, 'rendered.yaml');
    await renderTo(sampleDir, renderedFile, [
      ...['--catalog', name, '--server-url', served.controller.serverUrl],
      ...['--object-view', 'served'],
    ]);
    rendered = loadAll(await readFile(renderedFile, 'utf8')) as Item[];
  });

  after(async () => {
    await kubectl(['delete', 'clusterrolebinding,clusterrole', reader, '--ignore-not-found']);
    await served?.stop();
    await tearDownE2e({ catalogs: [name], tmp });
  });

  const list = (query: Record<string, string> = {}) =>
    listServed<Item>(COLLECTION, { labelSelector: `catalog=${name}`, ...query });

  it('is discovered (api-resources) and explained from its OpenAPI', async () => {
    const resources = await kubectlOk([
      ...['api-resources', '--api-group', SERVED_GROUP, '-o', 'name'],
    ]);
    expect(resources.split('\n')).to.include(RESOURCE);
    // The aggregator merges an APIService's OpenAPI v3 into the cluster's when it has fetched it.
    await pollUntil(
      async () => {
        const index = JSON.parse(await kubectlOk(['get', '--raw', '/openapi/v3'])) as {
          paths: Record<string, unknown>;
        };
        return index.paths[`apis/${SERVED_GROUP}/v1`];
      },
      { timeoutMs: 60_000, what: 'the served group in the cluster OpenAPI v3 index' },
    );
    const explained = await kubectlOk(['explain', `${RESOURCE}.spec`]);
    expect(explained).to.match(/catalog/);
    expect(explained).to.match(/schema/);
  });

  it('answers `kubectl get -l package=X` with the names render prints, and writes no object', async () => {
    const pkg = 'example-operator';
    const got = JSON.parse(
      await kubectlOk(['get', RESOURCE, '-l', `catalog=${name},package=${pkg}`, '-o', 'json']),
    ) as List;
    const want = rendered.filter((o) => o.spec.package === pkg);
    expect(want.length).to.be.greaterThan(1);
    expect(names(got.items)).to.deep.equal(names(want));
    for (const o of got.items) expect(o.apiVersion).to.equal(`${SERVED_GROUP}/v1`);
    // Every object of the catalog, as render prints them.
    const all = await list();
    expect(names(all.items)).to.deep.equal(names(rendered));
    // Nothing in etcd: the CRD mode's resource holds none of this catalog's objects.
    const crd = JSON.parse(
      await kubectlOk([
        ...['get', 'catalogmetadata.olm.operatorframework.io', '-l', `catalog=${name}`],
        ...['-o', 'json'],
      ]),
    ) as List;
    expect(crd.items).to.have.length(0);
  });

  it('prints the CRD printer columns, -o wide too', async () => {
    const table = await kubectlOk(['get', RESOURCE, '-l', `catalog=${name}`]);
    expect(table.split('\n')[0]).to.match(/^NAME\s+CATALOG\s+SCHEMA\s+PACKAGE\s+NAME\s+AGE$/);
    const wide = await kubectlOk(['get', RESOURCE, '-l', `catalog=${name}`, '-o', 'wide']);
    const header = wide.split('\n')[0] ?? '';
    expect(header).to.match(/^NAME\s+CATALOG\s+SCHEMA\s+PACKAGE\s+NAME\s+AGE\s+\S/);
    expect(header.trim().split(/\s+/).length).to.be.greaterThan(6);
    expect(wide.trim().split('\n')).to.have.length(rendered.length + 1);
  });

  it('selects by field (spec.package, metadata.name)', async () => {
    const pkg = 'utility-operator';
    const got = JSON.parse(
      await kubectlOk([
        ...['get', RESOURCE, '--field-selector', `spec.catalog.name=${name},spec.package=${pkg}`],
        ...['-o', 'json'],
      ]),
    ) as List;
    expect(names(got.items)).to.deep.equal(names(rendered.filter((o) => o.spec.package === pkg)));
    const one = rendered[0]!.metadata.name;
    const byName = JSON.parse(
      await kubectlOk(['get', RESOURCE, '--field-selector', `metadata.name=${one}`, '-o', 'json']),
    ) as List;
    expect(names(byName.items)).to.deep.equal([one]);
    const bad = await kubectl(['get', RESOURCE, '--field-selector', 'spec.nope=1']);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.match(/field label not supported|not supported/i);
  });

  it('pages with limit and continue, one revision across the pages', async () => {
    const seen: string[] = [];
    let page = await list({ limit: '2' });
    const rv = page.metadata.resourceVersion;
    seen.push(...page.items.map((i) => i.metadata.name));
    let pages = 1;
    while (page.metadata.continue) {
      expect(page.items.length).to.be.at.most(2);
      page = await list({ limit: '2', continue: page.metadata.continue });
      expect(page.metadata.resourceVersion).to.equal(rv);
      seen.push(...page.items.map((i) => i.metadata.name));
      pages++;
    }
    expect(pages).to.be.greaterThan(1);
    expect(seen.sort()).to.deep.equal(names(rendered));
    const chunked = await kubectlOk(['get', RESOURCE, '-l', `catalog=${name}`, '--chunk-size=2']);
    expect(chunked.trim().split('\n')).to.have.length(rendered.length + 1);
  });

  it('refuses a user without list (403 through the apiserver) and answers one with it', async () => {
    const denied = await kubectl(['get', RESOURCE, '--as', reader]);
    expect(denied.code).to.not.equal(0);
    expect(denied.stderr).to.include(
      `User "${reader}" cannot list resource "catalogmetadata" in API group "${SERVED_GROUP}"`,
    );
    await kubectlOk([
      'create',
      'clusterrole',
      reader,
      '--verb=get,list,watch',
      `--resource=${RESOURCE}`,
    ]);
    await kubectlOk([
      'create',
      'clusterrolebinding',
      reader,
      `--clusterrole=${reader}`,
      `--user=${reader}`,
    ]);
    // The front caches a denial for a few seconds: poll.
    const allowed = await pollUntil(
      async () => {
        const r = await kubectl([
          'get',
          RESOURCE,
          '-l',
          `catalog=${name}`,
          '--as',
          reader,
          '-o',
          'name',
        ]);
        return r.code === 0 ? r.stdout : undefined;
      },
      { timeoutMs: 60_000, what: `${reader} to be allowed to list` },
    );
    expect(allowed.trim().split('\n')).to.have.length(rendered.length);
  });

  it('refuses a direct connection without the front-proxy certificate (401)', async () => {
    const answer = await httpsGet(`${served!.directUrl}${COLLECTION}`, served!.ca);
    expect(answer.status).to.equal(401);
  });

  it('`kubectl diff` of `render --object-view served` output exits 0, client- and server-side', async () => {
    for (const args of [[], ['--server-side']]) {
      const diff = await kubectl(['diff', ...args, '-f', renderedFile]);
      expect([diff.code, diff.stdout, diff.stderr], args.join(' ')).to.deep.equal([0, '', '']);
    }
  });

  it('watches a catalog update from the list resourceVersion: the added bundle and the changed channel', async () => {
    const before = await list();
    const rv = before.metadata.resourceVersion ?? '';
    expect(rv).to.not.equal('');
    await syncSampleV2(name);
    // A watch from the old list's resourceVersion replays what changed since, then ends.
    const events = await watchFrom<Item>(COLLECTION, `catalog=${name}`, rv);
    const changes = events
      .map((e) => `${e.type} ${e.object.spec.schema} ${e.object.spec.name ?? ''}`)
      .sort();
    expect(changes).to.deep.equal([
      'ADDED olm.bundle utility-operator.v0.2.0',
      'MODIFIED olm.channel alpha',
    ]);
    // Each event's resourceVersion is a point to resume from; the last is the list's now.
    const after = await list();
    const last = events.at(-1)!;
    expect(last.object.metadata.resourceVersion).to.equal(after.metadata.resourceVersion);
    expect(after.items).to.have.length(before.items.length + 1);
  });
});
