import { expect } from 'chai';
import { normalizeMetasQuery, parseMetasQuery } from './query.js';

describe('server/query', () => {
  it('parses the three fields', () => {
    expect(parseMetasQuery('schema=olm.bundle&package=foo&name=foo.v1')).to.deep.equal({
      ok: true,
      query: { schema: 'olm.bundle', package: 'foo', name: 'foo.v1' },
    });
  });

  it('no parameters select everything', () => {
    expect(parseMetasQuery('')).to.deep.equal({ ok: true, query: {} });
  });

  it('an empty value filters nothing (as upstream catalogd)', () => {
    expect(parseMetasQuery('package=&schema=olm.package&name')).to.deep.equal({
      ok: true,
      query: { schema: 'olm.package' },
    });
  });

  it('decodes percent-encoding and +', () => {
    expect(parseMetasQuery('name=a%20b+c&package=%E2%9C%93')).to.deep.equal({
      ok: true,
      query: { name: 'a b c', package: '✓' },
    });
  });

  it('rejects unknown parameters without echoing values', () => {
    expect(parseMetasQuery('schema=x&bogus=1')).to.deep.equal({
      ok: false,
      error: 'unknown query parameter "bogus": allowed are schema, package, name',
    });
    expect(parseMetasQuery('__proto__=1').ok).to.equal(false);
    expect(parseMetasQuery('Schema=x').ok).to.equal(false);
  });

  it('rejects a repeated parameter, even with an empty value', () => {
    expect(parseMetasQuery('name=a&name=b')).to.deep.equal({
      ok: false,
      error: 'query parameter "name" is given more than once',
    });
    expect(parseMetasQuery('name=&name=b').ok).to.equal(false);
  });

  it('normalizes to a fixed order without empty fields', () => {
    expect(normalizeMetasQuery({ name: 'n', schema: 's' })).to.equal('schema=s&name=n');
    expect(normalizeMetasQuery({ package: '' })).to.equal('');
    expect(normalizeMetasQuery({ name: 'a b&c' })).to.equal('name=a+b%26c');
  });
});
