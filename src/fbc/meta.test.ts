import { expect } from 'chai';
import { extractMeta, foldKey } from './meta.js';

describe('fbc/meta: schema, package and name as operator-registry reads them', () => {
  it('reads the meta keys case-insensitively', () => {
    expect(extractMeta({ SCHEMA: 's', Package: 'p', nAME: 'n', other: 1 })).to.deep.equal({
      meta: { schema: 's', package: 'p', name: 'n' },
    });
  });

  it('absent keys are empty', () => {
    expect(extractMeta({ schema: 's' })).to.deep.equal({
      meta: { schema: 's', package: '', name: '' },
    });
    expect(extractMeta(null)).to.deep.equal({ meta: { schema: '', package: '', name: '' } });
  });

  it('rejects top-level keys that differ only in case (any key, as upstream does)', () => {
    expect(extractMeta({ schema: 's', name: 'a', Name: 'b' })).to.deep.equal({
      error: 'duplicate keys for key "name": [Name name]',
    });
    expect(extractMeta({ schema: 's', foo: 1, FOO: 2 })).to.deep.equal({
      error: 'duplicate keys for key "foo": [FOO foo]',
    });
  });

  it('requires string values for meta keys', () => {
    expect(extractMeta({ schema: 's', name: 1 })).to.deep.equal({
      error: 'expected value for key "name" to be a string, got number',
    });
    expect(extractMeta({ schema: null })).to.deep.equal({
      error: 'expected value for key "schema" to be a string, got null',
    });
  });

  it('rejects non-objects', () => {
    expect(extractMeta([1])).to.deep.equal({
      error: 'not an object: a blob must be a JSON object, got array',
    });
    expect(extractMeta('x')).to.deep.equal({
      error: 'not an object: a blob must be a JSON object, got string',
    });
  });

  it('folds case like Unicode full case folding for common cases', () => {
    expect(foldKey('NAME')).to.equal('name');
    expect(foldKey('Straße')).to.equal(foldKey('STRASSE'));
  });
});
