// A package's object from its blobs: what a catalog without CSV metadata, without a default
// channel or with a channel of two heads shows.
import { expect } from 'chai';
import type { ChannelBlob, PackageBlob } from '../../answers/fbc-types.js';
import { CATALOG_UID, CREATED, viewCatalog } from '../test-served.test.js';
import { catalogPackage, channelHeads, packageObjectName } from './package-object.js';

const pkg: PackageBlob = { schema: 'olm.package', name: 'p' };
const channel = (name: string, entries: ChannelBlob['entries']): ChannelBlob => ({
  schema: 'olm.channel',
  package: 'p',
  name,
  entries,
});

describe('apiserver/packages: CatalogPackage objects', () => {
  it('names a package as its olm.package CatalogMetadata: DNS-1123, injective, catalog first', () => {
    expect(packageObjectName('ops', 'p')).to.match(/^ops-package-p-[0-9a-f]{16}$/);
    expect(packageObjectName('ops', 'P')).to.not.equal(packageObjectName('ops', 'p'));
    expect(packageObjectName('ops', 'Weird Name!')).to.match(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
  });

  it('leaves out what the catalog does not say: no default channel, no single head, no CSV metadata', () => {
    const two = channel('fast', [{ name: 'p.v1' }, { name: 'p.v2' }]);
    const obj = catalogPackage(
      viewCatalog('ops', 'k'),
      { pkg, channels: [two], headBundles: [] },
      'rv',
    );
    expect(obj.status).to.deep.equal({
      catalog: { name: 'ops', priority: 0 },
      packageName: 'p',
      channels: [{ name: 'fast' }],
    });
    expect(obj.metadata).to.deep.include({
      name: packageObjectName('ops', 'p'),
      resourceVersion: 'rv',
      creationTimestamp: CREATED,
    });
    expect(obj.metadata.ownerReferences[0]!.uid).to.equal(CATALOG_UID);
    expect(channelHeads([two])).to.deep.equal([]);
  });
});
