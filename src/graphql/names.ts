// GraphQL names made from catalog names, as upstream catalogd makes them
// (operator-controller internal/catalogd/graphql/graphql.go: remapFieldName, sanitizeTypeName,
// and the root field rule of BuildDynamicGraphQLSchema), so that the same catalog has the same
// schema here and there.

/**
 * A blob key as a GraphQL field name: characters other than ASCII letters, digits and `_`
 * become `_`, runs of `_` one, leading `_` go; the parts between `_` are camel-cased (the first
 * lower-cased entirely when it is all upper case, else only its first letter); a name that does
 * not start with a letter gets `field_` in front; an empty key is `value`.
 */
export function remapFieldName(name: string): string {
  if (name === '') return 'value';
  const clean = name
    .replace(/[^a-zA-Z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+/, '');
  let result = '';
  let first = true;
  for (const part of clean.split('_')) {
    if (part === '') continue;
    if (first) {
      result =
        part.toUpperCase() === part ? part.toLowerCase() : part[0]!.toLowerCase() + part.slice(1);
      first = false;
    } else result += part[0]!.toUpperCase() + part.slice(1).toLowerCase();
  }
  if (!/^[a-zA-Z]/.test(result)) result = `field_${result}`;
  return result;
}

/**
 * A schema or field name as a GraphQL type name: characters other than ASCII letters and
 * digits become `_`, leading digits go, each part between `_` is capitalized (the rest lower
 * case) and the parts joined; nothing left is `Unknown`. `olm.bundle` is `OlmBundle`.
 */
export function sanitizeTypeName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9]/g, '_').replace(/^[0-9]+/, '');
  let result = '';
  for (const part of clean.split('_'))
    if (part !== '') result += part[0]!.toUpperCase() + part.slice(1).toLowerCase();
  return result === '' ? 'Unknown' : result;
}

/**
 * The root query field of an FBC schema: its ASCII letters and digits, lower-cased, with `s`
 * appended (`olm.bundle` is `olmbundles`, `olm.package` `olmpackages`).
 */
export function rootFieldName(schema: string): string {
  return `${schema.replace(/[^a-zA-Z0-9]/g, '').toLowerCase()}s`;
}

/** remapFieldName, remembered for the keys seen most (a few hundred distinct keys a catalog). */
const remembered = new Map<string, string>();
const REMEMBER_AT_MOST = 4096;

export function remapFieldNameCached(name: string): string {
  let mapped = remembered.get(name);
  if (mapped === undefined) {
    mapped = remapFieldName(name);
    if (remembered.size >= REMEMBER_AT_MOST) remembered.clear();
    if (name.length <= 256) remembered.set(name, mapped);
  }
  return mapped;
}

/**
 * The names of the additions (docs/graphql.md, "Additions") are kept apart from the generated
 * ones by their shape. A generated root field is ASCII lower-case letters and digits ending in
 * `s` (rootFieldName); a generated type name is ASCII letters and digits only (sanitizeTypeName,
 * and a list's object type, the schema's type name followed by the field's). So every addition
 * root field starts with `fbc` and an upper-case letter (`fbcPackages`), and every addition
 * type starts with `Fbc_`: no catalog can generate either, whatever its schema names
 * (additions-names.test.ts checks both shapes against the generators).
 */
export function isAdditionRootField(name: string): boolean {
  return /^fbc[A-Z][A-Za-z0-9]*$/.test(name);
}
