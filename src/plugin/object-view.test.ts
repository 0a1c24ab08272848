// `kubectl catalog --object-view` and the object view the client finds: the same answers from
// either view, a warning naming why when the cluster serves both, a usage error for another
// value. Over the fixture catalog (test/support/kubectl-catalog-fixture.ts).
import { expect } from 'chai';
import {
  FIXTURE_BLOBS,
  FIXTURE_CATALOG,
  catalogsClient,
  runPlugin,
} from '../../test/support/kubectl-catalog-fixture.js';
import { run } from './main.js';

const clientOf = (views: ReadonlyArray<'crd' | 'served'>) =>
  catalogsClient([{ name: FIXTURE_CATALOG, blobs: FIXTURE_BLOBS }], undefined, undefined, views)
    .client;

describe('plugin: the object view', () => {
  it('answers the same from a served-mode cluster as from a CRD-mode one, with no warning', async () => {
    const crd = await runPlugin(['packages'], clientOf(['crd']));
    const servedClient = clientOf(['served']);
    const served = await runPlugin(['packages'], servedClient);
    expect(served).to.deep.equal(crd);
    expect(served.stderr).to.equal('');
    expect(servedClient.foundObjectView?.view).to.equal('served');
  });

  it('warns, saying why, when both views are there and the CRD is read', async () => {
    const both = clientOf(['crd', 'served']);
    const r = await runPlugin(['packages'], both);
    expect(r.code).to.equal(0);
    expect(both.foundObjectView).to.include({ view: 'crd', both: true });
    expect(r.stderr).to.match(
      /^warning: both olm\.operatorframework\.io\/v1 \(the CatalogMetadata CRD\) and content\.olm\.operatorframework\.io\/v1 .* ask for the served view \(kubectl catalog --object-view served; the client library's objectView option\)\n$/,
    );
  });

  it('refuses another --object-view value', async () => {
    const err: string[] = [];
    const code = await run(['list', '--object-view', 'etcd'], {
      stdout: () => undefined,
      stderr: (s) => err.push(s),
    });
    expect(code).to.equal(2);
    expect(err.join('')).to.match(/^error: --object-view etcd: one of crd, served/);
  });
});
