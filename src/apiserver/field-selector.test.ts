import { expect } from 'chai';
import { matchesFields, parseFieldSelector, pinnedFieldValue } from './field-selector.js';
import { SelectorError } from './label-selector.js';

describe('field selectors', () => {
  it('parses =, == and != on the selectable fields and metadata.name, with escapes', () => {
    expect(
      parseFieldSelector('spec.package=a,spec.schema==olm.bundle,metadata.name!=x\\,y'),
    ).to.deep.equal([
      { field: 'spec.package', operator: '=', value: 'a' },
      { field: 'spec.schema', operator: '=', value: 'olm.bundle' },
      { field: 'metadata.name', operator: '!=', value: 'x,y' },
    ]);
    expect(parseFieldSelector('')).to.deep.equal([]);
  });

  it('refuses other fields as the apiserver does', () => {
    expect(() => parseFieldSelector('spec.content=x')).to.throw(
      SelectorError,
      'field label not supported: spec.content',
    );
    expect(() => parseFieldSelector('metadata.namespace=x')).to.throw(
      SelectorError,
      'field label not supported: metadata.namespace',
    );
    expect(() => parseFieldSelector('spec.package')).to.throw(
      SelectorError,
      "can't understand 'spec.package'",
    );
  });

  it('matches an absent field as the empty string', () => {
    const fields = { 'spec.package': undefined, 'spec.name': 'p' };
    expect(matchesFields(parseFieldSelector('spec.package='), fields)).to.equal(true);
    expect(matchesFields(parseFieldSelector('spec.package!=p'), fields)).to.equal(true);
    expect(matchesFields(parseFieldSelector('spec.name=p,spec.package=x'), fields)).to.equal(false);
  });

  it('pins a field, and two different values pin nothing (null)', () => {
    expect(pinnedFieldValue(parseFieldSelector('spec.package=a'), 'spec.package')).to.equal('a');
    expect(
      pinnedFieldValue(parseFieldSelector('spec.package=a,spec.package=b'), 'spec.package'),
    ).to.equal(null);
    expect(pinnedFieldValue(parseFieldSelector('spec.package!=a'), 'spec.package')).to.equal(
      undefined,
    );
  });
});
