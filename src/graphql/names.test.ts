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
    for (const [name, want] of [
      ['olm.package', 'OlmPackage'],
      ['olm.gvk', 'OlmGvk'],
      ['some-type', 'SomeType'],
      ['complex.type-name_here', 'ComplexTypeNameHere'],
      ['', 'Unknown'],
      ['123invalid', 'Invalid'],
      ['olm.bundle', 'OlmBundle'],
      ['relatedImages', 'Relatedimages'],
      ['...', 'Unknown'],
    ] as const)
      expect(sanitizeTypeName(name), name).to.equal(want);
  });

  it('names a schema’s root field: letters and digits, lower case, plus s', () => {
    const fields: Record<string, string> = {
      'olm.bundle': 'olmbundles',
      'olm.package': 'olmpackages',
      'olm.channel': 'olmchannels',
      'OLM.Deprecations': 'olmdeprecationss',
      'helm.chart': 'helmcharts',
      olm_bundle: 'olmbundles',
    };
    for (const [schema, want] of Object.entries(fields))
      expect(rootFieldName(schema), schema).to.equal(want);
  });
});
