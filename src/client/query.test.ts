import { expect } from 'chai';
import { labelValue } from '../api/v1/index.js';
import { escapeFieldValue, matchesQuery, metadataSelector, metadataSelectors } from './query.js';

describe('client/query', () => {
  it('builds label selectors with encoded values', () => {
    expect(metadataSelector({})).to.equal('');
    expect(metadataSelector({ catalog: 'c', schema: 'olm.channel', package: 'p' })).to.equal(
      'catalog=c,schema=olm.channel,package=p',
    );
    expect(
      metadataSelector({
        packageOrName: 'p',
        schema: ['olm.package', 'olm.channel', 'olm.package'],
      }),
    ).to.equal('schema in (olm.channel,olm.package),packageOrName=p');
    const long = 'x'.repeat(80);
    expect(metadataSelector({ name: long })).to.equal(`name=${labelValue(long)}`);
    expect(labelValue(long)).to.have.length.lessThanOrEqual(63);
  });

  it('selects values whose labels would be encoded by field selectors on the exact spec fields', () => {
    expect(metadataSelectors({})).to.deep.equal({ labelSelector: '', fieldSelector: '' });
    expect(metadataSelectors({ catalog: 'c', schema: 'olm.bundle', package: 'p' })).to.deep.equal({
      labelSelector: 'catalog=c,schema=olm.bundle,package=p',
      fieldSelector: '',
    });
    const long = 'x'.repeat(70);
    expect(metadataSelectors({ catalog: 'c', package: long, name: 'a b,c=d\\e' })).to.deep.equal({
      labelSelector: 'catalog=c',
      fieldSelector: `spec.package=${long},spec.name=a b\\,c\\=d\\\\e`,
    });
    const longCatalog = 'k'.repeat(64);
    expect(metadataSelectors({ catalog: longCatalog, schema: 'my schema' })).to.deep.equal({
      labelSelector: '',
      fieldSelector: `spec.catalog.name=${longCatalog},spec.schema=my schema`,
    });
    // No field form: packageOrName and schema sets stay labels (encoded).
    expect(
      metadataSelectors({ packageOrName: long, schema: ['olm.package', 'olm.channel'] }),
    ).to.deep.equal({
      labelSelector: `schema in (olm.channel,olm.package),packageOrName=${labelValue(long)}`,
      fieldSelector: '',
    });
    expect(metadataSelectors({ schema: 'olm.bundle', name: ['b', long, 'a', 'b'] })).to.deep.equal({
      labelSelector: `schema=olm.bundle,name in (${['a', 'b', labelValue(long)].sort().join(',')})`,
      fieldSelector: '',
    });
    expect(escapeFieldValue('a\\b,c=d')).to.equal('a\\\\b\\,c\\=d');
  });

  it('re-checks exact spec values', () => {
    const spec = {
      catalog: { name: 'c' },
      schema: 'olm.bundle',
      package: 'p',
      name: 'p.v1',
      content: {},
    };
    expect(matchesQuery(spec, { catalog: 'c', package: 'p', schema: 'olm.bundle' })).to.equal(true);
    expect(matchesQuery(spec, { schema: ['olm.channel', 'olm.bundle'] })).to.equal(true);
    expect(matchesQuery(spec, { packageOrName: 'p' })).to.equal(true);
    expect(matchesQuery(spec, { packageOrName: 'p.v1' })).to.equal(false);
    expect(matchesQuery(spec, { catalog: 'd' })).to.equal(false);
    expect(matchesQuery(spec, { name: 'p.v2' })).to.equal(false);
    expect(matchesQuery(spec, { name: ['p.v2', 'p.v1'] })).to.equal(true);
    expect(matchesQuery(spec, { name: ['p.v2'] })).to.equal(false);
    // two long values that share a readable prefix have different label values, and the
    // exact spec check guards against any label collision anyway
    const a = `${'y'.repeat(70)}a`;
    const b = `${'y'.repeat(70)}b`;
    expect(labelValue(a)).to.not.equal(labelValue(b));
    expect(matchesQuery({ ...spec, package: a }, { package: b })).to.equal(false);
    const pkg = { catalog: { name: 'c' }, schema: 'olm.package', name: 'p', content: {} };
    expect(matchesQuery(pkg, { packageOrName: 'p' })).to.equal(true);
    expect(matchesQuery(undefined, {})).to.equal(false);
  });
});
