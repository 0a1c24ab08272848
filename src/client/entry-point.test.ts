import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { importGraph, REPO_ROOT } from '../../test/support/import-graph.js';

// The client library's entry point (package.json "exports": "./client") is imported by other
// programs: it must load only the client, the kube transport and the API types, never the
// controller's machinery (leader election, metrics, sync engine, FBC parser, tar, logging). Which
// project modules it may load is the layering's (docs/architecture.json, test/unit/architecture.test.ts).
describe('client: the catalogd-ts/client entry point', () => {
  const graph = importGraph('src/client/index.ts');

  it('loads no npm package but the kubeconfig parser and the concurrency cap (client-node only for exec users, undici only with a content CA)', () => {
    expect(graph.packages).to.deep.equal(['js-yaml', 'p-limit']);
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
