// Compile-time checks that the types derived from the schemas are as strict as the CRDs: the line
// after each ts-expect-error directive must fail to type-check (else tsc reports the directive).
import { expect } from 'chai';
import type { ClusterCatalog, ClusterCatalogSpec, ClusterCatalogStatus } from './clustercatalog.js';
import type { CatalogMetadataSpec } from './catalogmetadata.js';
import type { ConditionUpdate } from './conditions.js';

describe('derived types', () => {
  it('match the schema (checked by tsc, see the @ts-expect-error lines)', () => {
    const image = {
      type: 'Image',
      image: { ref: 'quay.io/operatorhubio/catalog:latest' },
    } as const;
    const specs: ClusterCatalogSpec[] = [
      { source: image },
      { source: image, priority: 5, availabilityMode: 'Unavailable' },
      // @ts-expect-error availabilityMode is an enum
      { source: image, availabilityMode: 'Sometimes' },
      // @ts-expect-error source.type is an enum
      { source: { type: 'Git' } },
      // @ts-expect-error source is required
      { priority: 1 },
      // @ts-expect-error image.ref is required
      { source: { type: 'Image', image: { pollIntervalMinutes: 5 } } },
    ];
    const status: ClusterCatalogStatus = {
      conditions: [
        {
          type: 'Serving',
          status: 'True',
          reason: 'Available',
          message: '',
          lastTransitionTime: 't',
        },
      ],
      resolvedSource: { type: 'Image', image: { ref: 'quay.io/x/y@sha256:abc' } },
      urls: { base: 'https://catalogd.example/catalogs/x' },
      contentHash: 'sha256:0',
      objectCount: 1,
      syncingTo: 'sha256:1',
      observedGeneration: 1,
      lastUnpacked: '2026-01-01T00:00:00Z',
    };
    const badStatus: ClusterCatalogStatus = {
      // @ts-expect-error a condition status is True, False or Unknown
      conditions: [{ ...status.conditions![0]!, status: 'Maybe' }],
    };
    // @ts-expect-error every condition we write carries observedGeneration
    const update: ConditionUpdate = {
      type: 'Serving',
      status: 'True',
      reason: 'Available',
      message: '',
    };
    const blobs: CatalogMetadataSpec[] = [
      { catalog: { name: 'c' }, schema: 'olm.package', content: {} },
      { catalog: { name: 'c' }, schema: 'olm.bundle', contentOmitted: { bytes: 1, url: 'u' } },
      // @ts-expect-error catalog is required
      { schema: 'olm.package' },
    ];
    const catalog: ClusterCatalog = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'c' },
      spec: specs[0]!,
    };
    expect([specs.length, blobs.length, catalog.kind, !!badStatus, !!update]).to.deep.equal([
      6,
      3,
      'ClusterCatalog',
      true,
      true,
    ]);
  });
});
