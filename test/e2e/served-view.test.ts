// The served view through the real aggregation layer (issue 55; SPEC §2.3; docs/served.md): a
// controller started with --object-view=served, behind the APIService
// v1.content.olm.operatorframework.io (test/support/served-api.ts), answers kubectl as the CRD
// mode's objects do: discovery and OpenAPI (kubectl explain), `get -l package=X` with the names
// `catalogd render` prints, `-o wide`, a field selector, pagination, a watch through a catalog
// update (exactly the 2 changed objects), 403 for a user without `list` and the objects for one
// with it, 401 for a direct connection without the front proxy's certificate, and `kubectl diff`
// of `render --object-view served` output exiting 0. Nothing is written to etcd. The checks
// served-node.test.ts repeats on the node are test/support/served-checks.ts's.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { SERVED_GROUP } from '../../src/api/v1/index.js';
import { sampleDir } from '../support/catalogs.js';
import { pushAndSync, setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { renderTo } from '../support/render.js';
import type { ServedItem as Item, ServedTarget } from '../support/served-checks.js';
import {
  SERVED_COLLECTION as COLLECTION,
  SERVED_RESOURCE as RESOURCE,
  deleteReader,
  expectDirectRefused,
  itChecksTheServedView,
  listCatalog,
  servedNames as names,
} from '../support/served-checks.js';
import type { ServedController, ServedList } from '../support/served-e2e.js';
import { startServedController, watchSampleV2FromList } from '../support/served-e2e.js';

type List = ServedList<Item>;

describe('served view e2e: CatalogMetadata through the aggregation layer', function () {
  this.timeout(600_000);
  const name = uniqueName('served-view');
  const reader = uniqueName('served-reader');
  let tmp = '';
  let served: ServedController | undefined;
  let rendered: Item[] = [];
  let renderedFile = '';
  const target = (): ServedTarget => ({ catalog: name, rendered, renderedFile });

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
    await deleteReader(reader);
    await served?.stop();
    await tearDownE2e({ catalogs: [name], tmp });
  });

  const list = (query: Record<string, string> = {}) => listCatalog(name, query);

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

  itChecksTheServedView({
    suffix: '',
    target,
    reader,
    directName: 'refuses a direct connection without the front-proxy certificate (401)',
    direct: () => expectDirectRefused(served!.directUrl, served!.ca),
  });

  it('watches a catalog update from the list resourceVersion: the added bundle and the changed channel', async () => {
    const { before, events, after } = await watchSampleV2FromList<Item>(COLLECTION, name);
    const changes = events
      .map((e) => `${e.type} ${e.object.spec.schema} ${e.object.spec.name ?? ''}`)
      .sort();
    expect(changes).to.deep.equal([
      'ADDED olm.bundle utility-operator.v0.2.0',
      'MODIFIED olm.channel alpha',
    ]);
    // Each event's resourceVersion is a point to resume from; the last is the list's now.
    const last = events.at(-1)!;
    expect(last.object.metadata.resourceVersion).to.equal(after.metadata.resourceVersion);
    expect(after.items).to.have.length(before.items.length + 1);
  });
});
