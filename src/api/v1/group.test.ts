import { expect } from 'chai';
import { API_VERSION } from './group.js';

describe('api group', () => {
  it('is the upstream catalogd group, so ClusterCatalog manifests apply unchanged', () => {
    expect(API_VERSION).to.equal('olm.operatorframework.io/v1');
  });
});
