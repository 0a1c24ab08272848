import { expect } from 'chai';
import { isNamedType } from 'graphql';
import { catalogOf, blobOf } from '../server/test-catalogs.test.js';
import { ADDITION_ROOT_FIELDS } from './additions.js';
import { createGraphqlEndpoint } from './endpoint.js';
import { isAdditionRootField, rootFieldName, sanitizeTypeName } from './names.js';
import { buildCatalogSchema } from './schema.js';
import { ShapeBuilder } from './shape.js';
import { withServed } from './test-fixtures.test.js';
import { dataOf, postQuery } from './test-requests.test.js';

/** Whether rootFieldName can return `name` for some schema. */
function isGeneratedRootFieldShape(name: string): boolean {
  return /^[a-z0-9]*s$/.test(name);
}

/** Whether sanitizeTypeName (alone, or a list type's two names joined) can return `name`. */
function isGeneratedTypeShape(name: string): boolean {
  return /^[A-Za-z0-9]+$/.test(name);
}

/** Whether `name` has an addition type's shape: `Fbc_` and letters. */
function isAdditionType(name: string): boolean {
  return name.startsWith('Fbc_') && /^[A-Za-z_]+$/.test(name);
}

/** Schema names chosen to come as close to the additions' names as the generators allow. */
const ADVERSARIAL = [
  'package',
  'packages',
  'fbc.package',
  'fbcPackages',
  'fbc.Packages',
  'FBC_PACKAGE',
  'Fbc_Package',
  'fbc_package',
  'fbc-bundle',
  'f.b.c.package',
  '_fbc_Upgrades',
  'fbc.upgrade',
  'Fbc.Channel.Entry',
  'fbcprovides',
];

/** A schema from those of `schemas` whose names do not collide with each other's (upstream's rule). */
function schemaOf(schemas: string[]) {
  const builder = new ShapeBuilder();
  const types = new Set<string>();
  const fields = new Set<string>();
  for (const s of schemas) {
    if (types.has(sanitizeTypeName(s)) || fields.has(rootFieldName(s))) continue;
    types.add(sanitizeTypeName(s));
    fields.add(rootFieldName(s));
    builder.add(s, { schema: s, name: 'x', list: [{ a: 1 }] });
  }
  return buildCatalogSchema(builder.shape()).schema;
}

describe('graphql/names: the additions’ names and the generated ones never meet', () => {
  it('has addition root fields of the shape no schema generates (`fbc` and an upper-case letter)', () => {
    for (const [name] of ADDITION_ROOT_FIELDS) {
      expect(isAdditionRootField(name), name).to.equal(true);
      expect(isGeneratedRootFieldShape(name), name).to.equal(false);
    }
    for (const s of ADVERSARIAL) {
      expect(isGeneratedRootFieldShape(rootFieldName(s)), s).to.equal(true);
      expect(isAdditionRootField(rootFieldName(s)), s).to.equal(false);
    }
  });

  it('has addition types named `Fbc_…`, a shape no schema or list field generates', () => {
    const schema = schemaOf(ADVERSARIAL);
    const generated = new Set(['Query', 'CatalogSummary', 'SchemaSummary']);
    for (const s of ADVERSARIAL) {
      generated.add(sanitizeTypeName(s));
      generated.add(sanitizeTypeName(s) + sanitizeTypeName('list'));
    }
    const additions = Object.values(schema.getTypeMap())
      .filter((t) => isNamedType(t) && !t.name.startsWith('__') && !generated.has(t.name))
      .filter((t) => !['String', 'Int', 'Float', 'Boolean'].includes(t.name))
      .map((t) => t.name);
    expect(additions).to.include.members(['Fbc_Package', 'Fbc_Channel', 'Fbc_Bundle']);
    for (const name of additions) {
      expect(isAdditionType(name), name).to.equal(true);
      expect(isGeneratedTypeShape(name), name).to.equal(false);
    }
    for (const name of generated) expect(isAdditionType(name), name).to.equal(false);
  });

  it('serves a catalog whose schemas are named like the additions: both answer', async () => {
    const cat = catalogOf(
      [
        { schema: 'olm.package', name: 'foo', defaultChannel: 'stable' },
        { schema: 'fbc.Packages', name: 'not-a-package' },
        { schema: 'Fbc_Package', name: 'neither' },
      ].map(blobOf),
    );
    await withServed({ cat }, createGraphqlEndpoint(), async (s) => {
      const r = await postQuery(
        s.server,
        'cat',
        '{ fbcpackagess { name } fbcpackages { name } fbcPackages { name } }',
      );
      expect(dataOf(r)).to.deep.equal({
        fbcpackagess: [{ name: 'not-a-package' }],
        fbcpackages: [{ name: 'neither' }],
        fbcPackages: [{ name: 'foo' }],
      });
    });
  });
});
