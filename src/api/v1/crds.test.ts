import { expect } from 'chai';
import type { ClusterCatalogSpec } from './clustercatalog.js';
import type { CatalogMetadataSpec } from './catalogmetadata.js';
import { allCRDs, catalogMetadataCRD, clusterCatalogCRD } from './crds.js';

type Json = Record<string, unknown>;

/** Keywords a Kubernetes structural schema may not use (or that we never want to emit). */
const FORBIDDEN = [
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'const',
  '$ref',
  '$id',
  'patternProperties',
  'definitions',
];

/** Visits every schema node with its field path. */
function walk(node: Json, path: string, visit: (node: Json, path: string) => void): void {
  visit(node, path);
  const props = node.properties as Record<string, Json> | undefined;
  for (const [key, child] of Object.entries(props ?? {})) walk(child, `${path}.${key}`, visit);
  if (node.items) walk(node.items as Json, `${path}[]`, visit);
}

function rootOf(crd: ReturnType<typeof clusterCatalogCRD>): Json {
  const version = crd.spec.versions[0];
  if (!version) throw new Error('no version');
  return version.schema.openAPIV3Schema;
}

describe('CRDs', () => {
  for (const { crd } of allCRDs()) {
    describe(crd.metadata.name, () => {
      it('is a structural schema: every node typed, no forbidden keywords', () => {
        walk(rootOf(crd), '', (node, path) => {
          expect(node.type, `type at ${path || '<root>'}`).to.be.a('string');
          for (const k of FORBIDDEN) expect(node, `${k} at ${path}`).not.to.have.property(k);
        });
      });

      it("documents every field (metadata is the apiserver's)", () => {
        walk(rootOf(crd), '', (node, path) => {
          if (path === '.metadata') return;
          expect(node.description, `description at ${path || '<root>'}`).to.match(/\S/);
        });
      });

      it('gives every CEL rule a message', () => {
        walk(rootOf(crd), '', (node, path) => {
          for (const v of (node['x-kubernetes-validations'] as Json[] | undefined) ?? []) {
            expect(v.message, `message of ${String(v.rule)} at ${path}`).to.match(/\S/);
          }
        });
      });

      it('is cluster-scoped, in the upstream group, served and stored as v1', () => {
        expect(crd.spec.scope).to.equal('Cluster');
        expect(crd.spec.group).to.equal('olm.operatorframework.io');
        expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).to.deep.equal([
          ['v1', true, true],
        ]);
      });

      it('does not take a short name of a built-in resource', () => {
        const builtIn = [
          'cs',
          'cm',
          'ep',
          'ev',
          'limits',
          'ns',
          'no',
          'pvc',
          'pv',
          'po',
          'rc',
          'quota',
          'sa',
          'svc',
        ];
        builtIn.push(
          'crd',
          'crds',
          'ds',
          'deploy',
          'rs',
          'sts',
          'hpa',
          'cj',
          'csr',
          'ing',
          'ip',
          'netpol',
          'pdb',
        );
        builtIn.push('pc', 'sc', 'vac');
        for (const s of crd.spec.names.shortNames) expect(builtIn).not.to.include(s);
      });
    });
  }

  it('ClusterCatalog has the status subresource and upstream printer columns plus Serving', () => {
    const crd = clusterCatalogCRD();
    expect(crd.spec.versions[0]?.subresources).to.deep.equal({ status: {} });
    expect(crd.spec.versions[0]?.additionalPrinterColumns.map((c) => c.name)).to.deep.equal([
      'LastUnpacked',
      'Serving',
      'Age',
      'Resolved',
      'Objects',
      'StoredBytes',
      'ContentHash',
    ]);
    // The last four only with -o wide.
    expect(
      crd.spec.versions[0]?.additionalPrinterColumns.map((c) => c.priority ?? 0),
    ).to.deep.equal([0, 0, 0, 1, 1, 1, 1]);
  });

  it('CatalogMetadata has printer columns Catalog, Schema, Package, Name, Age (wide: content hash, omission) and no status', () => {
    const crd = catalogMetadataCRD();
    expect(crd.spec.versions[0]?.subresources).to.equal(undefined);
    expect(
      crd.spec.versions[0]?.additionalPrinterColumns.map((c) => [c.name, c.jsonPath]),
    ).to.deep.equal([
      ['Catalog', '.spec.catalog.name'],
      ['Schema', '.spec.schema'],
      ['Package', '.spec.package'],
      ['Name', '.spec.name'],
      ['Age', '.metadata.creationTimestamp'],
      ['ContentHash', '.metadata.annotations.olm\\.operatorframework\\.io/content-hash'],
      ['ContentOmitted', '.metadata.annotations.olm\\.operatorframework\\.io/content-omitted'],
    ]);
  });

  it('CatalogMetadata selects by spec.catalog.name, spec.schema, spec.package and spec.name (field selectors on exact values)', () => {
    const version = catalogMetadataCRD().spec.versions[0];
    expect(version?.selectableFields).to.deep.equal([
      { jsonPath: '.spec.catalog.name' },
      { jsonPath: '.spec.schema' },
      { jsonPath: '.spec.package' },
      { jsonPath: '.spec.name' },
    ]);
    // Each is a string leaf of the generated schema (what the apiserver requires).
    for (const f of version?.selectableFields ?? []) {
      let node: Json = rootOf(catalogMetadataCRD());
      for (const key of f.jsonPath.slice(1).split('.'))
        node = (node.properties as Record<string, Json>)[key]!;
      expect(node.type, f.jsonPath).to.equal('string');
    }
    expect(clusterCatalogCRD().spec.versions[0]).not.to.have.property('selectableFields');
  });

  it('keeps spec.content free-form, so any FBC blob is stored as is', () => {
    const spec = (rootOf(catalogMetadataCRD()).properties as Record<string, Json>).spec as Json;
    const content = (spec.properties as Record<string, Json>).content as Json;
    expect(content['x-kubernetes-preserve-unknown-fields']).to.equal(true);
  });

  it('derives types that accept upstream manifests and our objects (compile-time check)', () => {
    const upstream: ClusterCatalogSpec = {
      source: {
        type: 'Image',
        image: { ref: 'quay.io/operatorhubio/catalog:latest', pollIntervalMinutes: 10 },
      },
    };
    const blob: CatalogMetadataSpec = {
      catalog: { name: 'operatorhubio' },
      schema: 'olm.package',
      name: 'etcd',
      content: { schema: 'olm.package', name: 'etcd' },
    };
    expect(upstream.source.type).to.equal('Image');
    expect(blob.catalog.name).to.equal('operatorhubio');
  });
});
