import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { importGraph, REPO_ROOT } from '../../test/support/import-graph.js';
import type { CatalogClient, CatalogMetadata, ClusterCatalog, Condition } from './index.js';

// The client library's entry point (package.json "exports": "./client") is imported by other
// programs: it must load only the client, the kube transport and the API types, never the
// controller's machinery (leader election, metrics, sync engine, FBC parser, tar, logging),
// and as little of the API and the transport as it uses.
describe('client: the catalogd-ts/client entry point', () => {
  const graph = importGraph('src/client/index.ts');

  it('loads project modules only from src/client, src/answers, src/kube, src/api, src/util and the canonical hash', () => {
    // src/fbc/canonical.ts: the controller's canonical form and hash (node:crypto only), so a
    // fetched blob is verified by the very function that wrote the content-hash annotation.
    const outside = graph.files.filter(
      (f) => !/^src\/(client|answers|kube|api|util)\//.test(f) && f !== 'src/fbc/canonical.ts',
    );
    const via = graph.edges.filter(([, to]) => outside.includes(to));
    expect(
      via,
      'imports that leave src/client, src/answers, src/kube, src/api, src/util',
    ).to.deep.equal([]);
  });

  it('loads at most 25 project modules (the API and kube files it uses, not their indexes)', () => {
    expect(graph.files.length, graph.files.join('\n')).to.be.at.most(25);
  });

  it('loads the object view module on first use only, and it adds two API files', () => {
    // client.ts imports it dynamically on a client's first CatalogMetadata read (docs/client.md).
    expect(graph.files).to.not.include('src/client/object-view.ts');
    const later = importGraph('src/client/object-view.ts');
    const added = later.files.filter((f) => !graph.files.includes(f)).sort();
    expect(added).to.deep.equal(['src/api/v1/revision-url.ts', 'src/client/object-view.ts']);
    expect(later.packages).to.deep.equal([]);
  });

  it('loads no npm package but the kubeconfig parser (client-node only for exec users, undici only with a content CA)', () => {
    expect(graph.packages).to.deep.equal(['js-yaml']);
    expect(graph.dynamicPackages).to.deep.equal(['undici']);
    // client-node comes with src/kube/delegated-auth.ts, which the transport imports only for
    // a user whose credentials come from a plugin.
    expect(graph.files).to.not.include('src/kube/delegated-auth.ts');
    expect(importGraph('src/kube/delegated-auth.ts').dynamicPackages).to.deep.equal([
      '@kubernetes/client-node',
    ]);
  });

  it('exports the API types its methods return (a program can name them)', () => {
    // The type checker is the test: this compiles only while the index exports the types.
    const catalogsOf = (c: CatalogClient): Promise<ClusterCatalog[]> => c.listCatalogs();
    const servingOf = (c: ClusterCatalog): Condition | undefined => c.status?.conditions?.[0];
    const catalogOf = (o: CatalogMetadata): string => o.spec.catalog.name;
    expect([catalogsOf, servingOf, catalogOf].map((f) => typeof f)).to.deep.equal([
      'function',
      'function',
      'function',
    ]);
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
