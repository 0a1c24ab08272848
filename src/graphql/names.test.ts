import { expect } from 'chai';
import { remapFieldName, remapFieldNameCached, rootFieldName, sanitizeTypeName } from './names.js';

describe('graphql/names: upstream catalogd’s names', () => {
  it('remaps blob keys to field names (upstream’s TestFieldNameRemapping cases and more)', () => {
    const cases: Array<[string, string]> = [
      ['name', 'name'],
      ['package-name', 'packageName'],
      ['default_channel', 'defaultChannel'],
      ['related-images', 'relatedImages'],
      ['', 'value'],
      ['123invalid', 'field_123invalid'],
      ['my.field.name', 'myFieldName'],
      ['CamelCase', 'camelCase'],
      ['UPPERCASE', 'uppercase'],
      ['mixed_case-field.name', 'mixedCaseFieldName'],
      ['__proto__', 'proto'],
      ['_', 'field_'],
      ['x--y__z', 'xYZ'],
      ['trailing_', 'trailing'],
      ['APIVersion', 'aPIVersion'],
      ['a.BC', 'aBc'],
      ['héllo', 'hLlo'],
      ['😀key', 'key'],
    ];
    for (const [key, want] of cases) {
      expect(remapFieldName(key), key).to.equal(want);
      expect(remapFieldNameCached(key), key).to.equal(want);
    }
  });

  it('sanitizes schema and field names to type names (upstream’s TestSanitizeTypeName cases)', () => {
    const cases: Array<[string, string]> = [
      ['olm.package', 'OlmPackage'],
      ['olm.gvk', 'OlmGvk'],
      ['some-type', 'SomeType'],
      ['complex.type-name_here', 'ComplexTypeNameHere'],
      ['', 'Unknown'],
      ['123invalid', 'Invalid'],
      ['olm.bundle', 'OlmBundle'],
      ['relatedImages', 'Relatedimages'],
      ['...', 'Unknown'],
    ];
    for (const [name, want] of cases) expect(sanitizeTypeName(name), name).to.equal(want);
  });

  it('names a schema’s root field: letters and digits, lower case, plus s', () => {
    expect(rootFieldName('olm.bundle')).to.equal('olmbundles');
    expect(rootFieldName('olm.package')).to.equal('olmpackages');
    expect(rootFieldName('olm.channel')).to.equal('olmchannels');
    expect(rootFieldName('OLM.Deprecations')).to.equal('olmdeprecationss');
    expect(rootFieldName('helm.chart')).to.equal('helmcharts');
    expect(rootFieldName('olm_bundle')).to.equal('olmbundles');
  });
});
