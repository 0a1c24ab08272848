// The GraphQL schema of one revision, generated from its shape as upstream catalogd generates
// it (operator-controller internal/catalogd/graphql/graphql.go: BuildDynamicGraphQLSchema):
// one root list field per FBC schema (`olm.bundle` → `olmbundles`, with `limit` and `offset`),
// an object type per schema (`OlmBundle`) with a field per blob key, a list of objects for
// keys holding lists of objects (`OlmBundleProperties`), and `summary`. Fields are defined in
// name order, the order upstream's introspection lists them in.
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  assertValidSchema,
} from 'graphql';
import type {
  GraphQLFieldConfig,
  GraphQLFieldConfigMap,
  GraphQLOutputType,
  GraphQLResolveInfo,
  SelectionSetNode,
} from 'graphql';
import { ADDITION_ROOT_FIELDS } from './additions.js';
import { coerceBoolean, coerceFloat, coerceInt, coerceString } from './go-values.js';
import { pageOffset, pageSize } from './limits.js';
import { remapFieldNameCached, rootFieldName, sanitizeTypeName } from './names.js';
import { isObject } from './shape.js';
import type { CatalogShape, FieldShape, ScalarName } from './shape.js';

/** A blob as the resolvers see it: its values by GraphQL field name (null prototype). */
export type BlobFields = Record<string, unknown>;

/** What the root list fields need of a query's context (query.ts makes it per request). */
export interface BlobLoader {
  /**
   * The page of one FBC schema's blobs (`offset`, `limit` as clamped), in blob order, each
   * with only the fields in `fields` (GraphQL names): the first key of the blob, in key order,
   * whose name is that.
   */
  load(
    schema: string,
    offset: number,
    limit: number,
    fields: ReadonlySet<string>,
  ): Promise<BlobFields[]>;
}

export interface CatalogSchema {
  schema: GraphQLSchema;
  /** Root list field → FBC schema. */
  rootFields: ReadonlyMap<string, string>;
}

/** The schema cannot be built from this catalog (upstream refuses to store such a catalog). */
export class SchemaBuildError extends Error {
  override name = 'SchemaBuildError';
}

const SCALARS: Record<ScalarName, GraphQLOutputType> = {
  String: GraphQLString,
  Int: GraphQLInt,
  Float: GraphQLFloat,
  Boolean: GraphQLBoolean,
};

const COERCE: Record<ScalarName, (v: unknown) => unknown> = {
  String: coerceString,
  Int: coerceInt,
  Float: coerceFloat,
  Boolean: coerceBoolean,
};

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sortedFields<T>(entries: Iterable<[string, T]>): Array<[string, T]> {
  return [...entries].sort(([a], [b]) => byName(a, b));
}

/**
 * A field's value made into its type, as upstream's resolvers and graphql-go's scalars make
 * it: a scalar coerced (objects and lists are strings of JSON); a list's elements each coerced
 * (upstream answers these with an error: docs/graphql.md, "Differences").
 */
function scalarValue(f: FieldShape, value: unknown): unknown {
  const coerce = COERCE[f.scalar];
  if (!f.list) return coerce(value);
  return Array.isArray(value) ? value.map((v) => coerce(v)) : value;
}

/** A key of a list's object by its GraphQL name: the key itself, else the first that maps to it. */
function nestedValue(source: unknown, name: string): unknown {
  if (!isObject(source)) return null;
  if (Object.hasOwn(source, name)) return source[name];
  for (const key of Object.keys(source)) if (remapFieldNameCached(key) === name) return source[key];
  return null;
}

function nestedObjectType(typeName: string, fields: Map<string, FieldShape>): GraphQLObjectType {
  return new GraphQLObjectType({
    name: typeName,
    fields: () => {
      const config: GraphQLFieldConfigMap<unknown, unknown> = {};
      for (const [name, f] of sortedFields(fields))
        config[name] = {
          type: f.list ? new GraphQLList(SCALARS[f.scalar]) : SCALARS[f.scalar],
          resolve: (source) => scalarValue(f, nestedValue(source, name)),
        };
      return config;
    },
  });
}

function blobObjectType(schemaName: string, fields: Map<string, FieldShape>): GraphQLObjectType {
  const typeName = sanitizeTypeName(schemaName);
  return new GraphQLObjectType({
    name: typeName,
    fields: () => {
      const config: GraphQLFieldConfigMap<BlobFields, unknown> = {};
      for (const [name, f] of sortedFields(fields)) {
        config[name] = f.nested
          ? {
              type: new GraphQLList(nestedObjectType(typeName + sanitizeTypeName(name), f.nested)),
              resolve: (blob) => blob[name] ?? null,
            }
          : {
              type: f.list ? new GraphQLList(SCALARS[f.scalar]) : SCALARS[f.scalar],
              resolve: (blob) => scalarValue(f, blob[name] ?? null),
            };
      }
      return config;
    },
  });
}

/** The names of the fields a list field's objects are asked for (fragments followed). */
export function selectedFields(
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>,
): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (ss: SelectionSetNode | undefined): void => {
    for (const sel of ss?.selections ?? []) {
      if (sel.kind === Kind.FIELD) names.add(sel.name.value);
      else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        walk(info.fragments[sel.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) walk(node.selectionSet);
  return names;
}

/** Upstream's checks, in its order: type names first, then root fields. */
function checkCollisions(schemas: string[]): void {
  checkCollision(
    schemas,
    sanitizeTypeName,
    (other, s, t) =>
      `type name collision: schemas ${JSON.stringify(other)} and ${JSON.stringify(s)} both sanitize to GraphQL type ${JSON.stringify(t)}`,
  );
  checkCollision(
    schemas,
    rootFieldName,
    (other, s, f) =>
      `query field collision: schemas ${JSON.stringify(other)} and ${JSON.stringify(s)} both map to field ${JSON.stringify(f)}`,
  );
}

/** Throws `message(other, s, name)` for the first schema s whose name an earlier one has. */
function checkCollision(
  schemas: string[],
  nameOf: (schema: string) => string,
  message: (other: string, schema: string, name: string) => string,
): void {
  const seen = new Map<string, string>();
  for (const s of schemas) {
    const name = nameOf(s);
    const other = seen.get(name);
    if (other !== undefined) throw new SchemaBuildError(message(other, s, name));
    seen.set(name, s);
  }
}

const SchemaSummary = new GraphQLObjectType({
  name: 'SchemaSummary',
  fields: {
    name: { type: GraphQLString },
    totalFields: { type: GraphQLInt },
    totalObjects: { type: GraphQLInt },
  },
});

const CatalogSummary = new GraphQLObjectType({
  name: 'CatalogSummary',
  fields: {
    schemas: { type: new GraphQLList(SchemaSummary) },
    totalSchemas: { type: GraphQLInt },
  },
});

/** Builds the schema; a catalog upstream could not build one for is a SchemaBuildError. */
export function buildCatalogSchema(shape: CatalogShape): CatalogSchema {
  const names = [...shape.schemas.keys()];
  checkCollisions(names);
  const rootFields = new Map<string, string>();
  const fields: Array<[string, GraphQLFieldConfig<unknown, BlobLoader>]> = [];
  for (const [schemaName, info] of shape.schemas) {
    const field = rootFieldName(schemaName);
    rootFields.set(field, schemaName);
    fields.push([
      field,
      {
        type: new GraphQLList(blobObjectType(schemaName, info.fields)),
        args: {
          limit: {
            type: GraphQLInt,
            defaultValue: 100,
            description: 'Maximum number of items to return',
          },
          offset: { type: GraphQLInt, defaultValue: 0, description: 'Number of items to skip' },
        },
        resolve: (_root, args: { limit?: unknown; offset?: unknown }, loader, info) =>
          loader.load(
            schemaName,
            pageOffset(args.offset),
            pageSize(args.limit),
            selectedFields(info),
          ),
      },
    ]);
  }
  fields.push([
    'summary',
    {
      type: CatalogSummary,
      resolve: () => ({
        totalSchemas: shape.schemas.size,
        schemas: [...shape.schemas.values()].map((s) => ({
          name: s.name,
          totalObjects: s.totalObjects,
          totalFields: s.fields.size,
        })),
      }),
    },
  ]);
  const config: GraphQLFieldConfigMap<unknown, BlobLoader> = {};
  for (const [name, f] of sortedFields(fields)) config[name] = f;
  // The additions follow upstream's fields (introspection lists those first, in its order);
  // names.ts says why no generated name can be one of theirs.
  for (const [name, f] of ADDITION_ROOT_FIELDS)
    config[name] = f as GraphQLFieldConfig<unknown, BlobLoader>;
  try {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: config }),
    });
    assertValidSchema(schema);
    return { schema, rootFields };
  } catch (err) {
    if (err instanceof SchemaBuildError) throw err;
    throw new SchemaBuildError(`failed to create GraphQL schema: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
