import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { importGraph, REPO_ROOT } from '../../test/support/import-graph.js';

// The client library's entry point (package.json "exports": "./client") is imported by other
// programs: it must load only the client, the kube transport and the API types, never the
// controller's machinery (leader election, metrics, sync engine, FBC parser, tar, logging).
describe('client: the catalogd-ts/client entry point', () => {
  const graph = importGraph('src/client/index.ts');

  it('loads project modules only from src/client, src/kube, src/api and the canonical hash', () => {
    // src/fbc/canonical.ts: the controller's canonical form and hash (node:crypto only), so a
    // fetched blob is verified by the very function that wrote the content-hash annotation.
    const outside = graph.files.filter(
      (f) => !/^src\/(client|kube|api)\//.test(f) && f !== 'src/fbc/canonical.ts',
    );
    const via = graph.edges.filter(([, to]) => outside.includes(to));
    expect(via, 'imports that leave src/client, src/kube, src/api').to.deep.equal([]);
  });

  it('loads no npm package but the kubeconfig parser (client-node only for exec users, undici only with a content CA)', () => {
    expect(graph.packages).to.deep.equal(['js-yaml']);
    expect(graph.dynamicPackages).to.deep.equal(['@kubernetes/client-node', 'undici']);
  });

  it('is package.json\'s "./client" export, built from src/client/index.ts', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string }>;
    };
    expect(pkg.exports['./client']).to.deep.equal({
      types: './dist/src/client/index.d.ts',
      default: './dist/src/client/index.js',
    });
  });
});
