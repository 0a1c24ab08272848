import { expect } from 'chai';
import { labelValue } from '../api/v1/index.js';
import { matchesQuery, metadataSelector } from './query.js';

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
