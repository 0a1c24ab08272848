import { expect } from 'chai';
import type { ClusterCatalog } from '../api/v1/index.js';
import { InformerCatalogDirectory, catalogEntry } from './catalog-directory.js';

function catalog(
  name: string,
  spec: Partial<ClusterCatalog['spec']>,
  serving?: string,
): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref: 'r/x:1' } }, ...spec },
    ...(serving !== undefined && {
      status: {
        conditions: [
          {
            type: 'Serving',
            status: serving,
            reason: 'Available',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    }),
  } as ClusterCatalog;
}

describe('cmd/catalog-directory: ClusterCatalogs for GraphQL across catalogs', () => {
  it('reads priority, availabilityMode and Serving, with the CRD defaults', () => {
    expect(catalogEntry(catalog('a', {}))).to.deep.equal({
      name: 'a',
      priority: 0,
      availabilityMode: 'Available',
      serving: false,
    });
    expect(
      catalogEntry(catalog('b', { priority: -5, availabilityMode: 'Unavailable' }, 'True')),
    ).to.deep.equal({ name: 'b', priority: -5, availabilityMode: 'Unavailable', serving: true });
    expect(catalogEntry(catalog('c', {}, 'False')).serving).to.equal(false);
  });

  it('answers no catalog until the informer is plugged in, then its catalogs as they are now', () => {
    const d = new InformerCatalogDirectory();
    expect(d.catalogs()).to.deep.equal([]);
    const held = new Map([['a', catalog('a', { priority: 3 }, 'True')]]);
    d.readFrom(() => held.values());
    expect(d.catalogs().map((c) => [c.name, c.priority])).to.deep.equal([['a', 3]]);
    held.set('a', catalog('a', { priority: 7 }, 'True'));
    expect(d.catalogs()[0]!.priority).to.equal(7);
  });
});
