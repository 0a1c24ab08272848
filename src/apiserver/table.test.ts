import { expect } from 'chai';
import { aggregatedDiscoveryVersion, negotiate } from './negotiate.js';
import type { ServedObject } from './served-object.js';
import { catalogMetadataCells, parseIncludeObject, tableRowJson } from './table.js';

describe('Table and content negotiation', () => {
  const obj: ServedObject = {
    apiVersion: 'content.olm.operatorframework.io/v1',
    kind: 'CatalogMetadata',
    metadata: {
      name: 'ops-package-p-0123456789abcdef',
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: { 'olm.operatorframework.io/content-hash': 'sha256:ab' },
    },
    spec: { catalog: { name: 'ops' }, schema: 'olm.package', name: 'p', content: {} },
  };

  it('fills the cells as the CRD table converter does, the object as includeObject asks', () => {
    const now = Date.parse('2026-01-01T00:05:00Z');
    const row = (include: 'None' | 'Metadata' | 'Object') =>
      JSON.parse(
        tableRowJson(catalogMetadataCells(obj, now), include, () => '{"x":1}', obj.metadata),
      ) as {
        cells: unknown[];
        object?: unknown;
      };
    expect(row('None')).to.deep.equal({
      cells: [
        'ops-package-p-0123456789abcdef',
        'ops',
        'olm.package',
        null,
        'p',
        '5m',
        'sha256:ab',
        null,
      ],
    });
    expect(row('Object').object).to.deep.equal({ x: 1 });
    expect(row('Metadata').object).to.deep.equal({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: obj.metadata,
    });
    expect(parseIncludeObject(null)).to.equal('Metadata');
    expect(() => parseIncludeObject('All')).to.throw('includeObject: Unsupported value: "All"');
  });

  it('negotiates the Table, metadata or the object from Accept, and 406 without JSON', () => {
    expect(
      negotiate('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', true),
    ).to.equal('table');
    expect(
      negotiate('application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', true),
    ).to.equal('object');
    expect(
      negotiate(
        'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
        true,
      ),
    ).to.equal('metadata');
    expect(negotiate(undefined, false)).to.equal('object');
    expect(negotiate('*/*', false)).to.equal('object');
    expect(() => negotiate('application/vnd.kubernetes.protobuf', false))
      .to.throw()
      .with.property('code', 406);
  });

  it('recognizes the aggregator asking for aggregated discovery', () => {
    expect(
      aggregatedDiscoveryVersion(
        'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
      ),
    ).to.equal('v2');
    expect(aggregatedDiscoveryVersion('application/json')).to.equal(undefined);
  });
});
