// The schema across catalogs (docs/graphql.md, "Across catalogs"): built from the schemas of
// the catalogs a query reads, whatever their root fields are (upstream's generated ones and the
// typed additions alike). Every root field whose type is a list of objects in some catalog is a
// root field here, answering the concatenation of each catalog's answer, by priority; each
// object type is the union of the catalogs' types of that name, and the item types of those
// lists get a `catalog` field naming the ClusterCatalog an object is from. A root field
// `catalogs` lists the ClusterCatalogs.
//
// A field whose type differs between catalogs (upstream infers types from each catalog's own
// values) takes the type of the first catalog, by priority, that has it, made nullable; a
// catalog where it has another type, or which lacks it, is not asked for it and answers null.
import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import type {
  GraphQLArgumentConfig,
  GraphQLField,
  GraphQLFieldConfigMap,
  GraphQLFieldResolver,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLNullableInputType,
  GraphQLNullableOutputType,
  GraphQLOutputType,
} from 'graphql';

/** The field naming an object's ClusterCatalog, on the item types of the root lists. */
export const CATALOG_FIELD = 'catalog';
/** The root field listing the ClusterCatalogs (a catalog's own root field of that name is left out). */
const CATALOGS_FIELD = 'catalogs';
/**
 * The type of `catalogs`' items. Generated type names never hold `_` (names.ts
 * sanitizeTypeName), but a typed addition might take any name: a catalog type of this name is
 * left out.
 */
const CATALOG_TYPE = 'ServedCatalog';
/** Where an object answered by a catalog holds that catalog's name. */
export const CATALOG_OF: unique symbol = Symbol('catalog');

/** One catalog a query reads, with its schema. */
export interface SchemaOfCatalog {
  name: string;
  schema: GraphQLSchema;
}

export interface AcrossSchema {
  schema: GraphQLSchema;
  /** Root list field → the catalogs that have it, in order. */
  rootFields: ReadonlyMap<string, readonly string[]>;
  /** Type → field → the catalogs not to ask for it (their type of it differs). */
  leftOut: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  /** The types whose `catalog` field is the one added here. */
  tagged: ReadonlySet<string>;
}

/** A row of `catalogs`. */
export interface CatalogRow {
  name: string;
  priority: number;
  availabilityMode: string;
  serving: boolean;
  /** The revision the query read, or null when the catalog was left out. */
  contentHash: string | null;
}

/** What the root resolvers of the schema call (across.ts's run of one query). */
export interface AcrossContext {
  catalogRows(): readonly CatalogRow[];
  rootList(info: Parameters<GraphQLFieldResolver<unknown, unknown>>[3]): Promise<unknown[]>;
}

/** Every value was resolved by the catalog's own schema: read it by its response key. */
const byResponseKey: GraphQLFieldResolver<unknown, unknown> = (source, _args, _ctx, info) =>
  (source as Record<string, unknown> | null)?.[info.path.key as string];

const catalogType = new GraphQLObjectType({
  name: CATALOG_TYPE,
  description: 'A ClusterCatalog, as the query across catalogs reads it.',
  fields: {
    name: { type: new GraphQLNonNull(GraphQLString) },
    priority: { type: new GraphQLNonNull(GraphQLInt), description: 'spec.priority' },
    availabilityMode: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'spec.availabilityMode: Unavailable catalogs are not read',
    },
    serving: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'Whether its Serving condition is True',
    },
    contentHash: {
      type: GraphQLString,
      description: 'The revision the query read; null when the catalog was left out',
    },
  },
});

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The root list fields of a catalog's schema: lists of objects (possibly non-null). */
function rootLists(schema: GraphQLSchema): Array<GraphQLField<unknown, unknown>> {
  const query = schema.getQueryType();
  if (!query) return [];
  return Object.values(query.getFields()).filter((f) => {
    const t = getNullableType(f.type);
    return (
      f.name !== CATALOGS_FIELD &&
      isListType(t) &&
      isObjectType(getNamedType(t)) &&
      getNamedType(t).name !== CATALOG_TYPE
    );
  });
}

/** The schema across `catalogs` (in priority order). */
export function buildAcrossSchema(catalogs: readonly SchemaOfCatalog[]): AcrossSchema {
  const rootFields = new Map<string, string[]>();
  const rootField = new Map<string, GraphQLField<unknown, unknown>>();
  /** Object type → each catalog's version of it, in catalog order. */
  const versions = new Map<string, Array<{ catalog: string; type: GraphQLObjectType }>>();
  const tagged = new Set<string>();
  const seen = new Set<string>();
  const collect = (catalog: string, type: GraphQLObjectType): void => {
    const key = `${catalog}\0${type.name}`;
    if (seen.has(key) || type.name === CATALOG_TYPE) return;
    seen.add(key);
    const list = versions.get(type.name) ?? [];
    list.push({ catalog, type });
    versions.set(type.name, list);
    for (const f of Object.values(type.getFields())) {
      const named = getNamedType(f.type);
      if (isObjectType(named)) collect(catalog, named);
    }
  };
  for (const c of catalogs)
    for (const f of rootLists(c.schema)) {
      const item = getNamedType(f.type) as GraphQLObjectType;
      const having = rootFields.get(f.name) ?? [];
      having.push(c.name);
      rootFields.set(f.name, having);
      if (!rootField.has(f.name)) rootField.set(f.name, f);
      tagged.add(item.name);
      collect(c.name, item);
    }

  const merged = new Map<string, GraphQLObjectType>();
  const leaves = new Map<string, GraphQLNamedType>();
  const leftOut = new Map<string, Map<string, Set<string>>>();
  const leaf = <T extends GraphQLNamedType>(t: T): T => {
    const kept = leaves.get(t.name);
    if (kept) return kept as T;
    leaves.set(t.name, t);
    return t;
  };
  const output = (t: GraphQLOutputType): GraphQLOutputType | undefined => {
    if (isNonNullType(t)) {
      const inner = output(t.ofType);
      return inner && new GraphQLNonNull(inner as GraphQLNullableOutputType);
    }
    if (isListType(t)) {
      const inner = output(t.ofType);
      return inner && new GraphQLList(inner);
    }
    if (isObjectType(t)) return t.name === CATALOG_TYPE ? undefined : mergedType(t.name);
    if (isScalarType(t) || isEnumType(t)) return leaf(t);
    // Interfaces and unions: not answered across catalogs.
    return undefined;
  };
  const input = (t: GraphQLInputType): GraphQLInputType => {
    if (isNonNullType(t)) return new GraphQLNonNull(input(t.ofType) as GraphQLNullableInputType);
    if (isListType(t)) return new GraphQLList(input(t.ofType));
    if (isScalarType(t) || isEnumType(t) || isInputObjectType(t)) return leaf(t);
    return t;
  };
  const args = (f: GraphQLField<unknown, unknown>) =>
    Object.fromEntries(
      f.args.map((a): [string, GraphQLArgumentConfig] => [
        a.name,
        {
          type: input(a.type),
          ...(a.defaultValue !== undefined && { defaultValue: a.defaultValue }),
          ...(a.description && { description: a.description }),
        },
      ]),
    );
  const mergedType = (name: string): GraphQLObjectType => {
    const kept = merged.get(name);
    if (kept) return kept;
    const of = versions.get(name)!;
    const type = new GraphQLObjectType({
      name,
      ...(of[0]!.type.description && { description: of[0]!.type.description }),
      fields: () => mergedFields(name, of),
    });
    merged.set(name, type);
    return type;
  };
  const mergedFields = (
    name: string,
    of: ReadonlyArray<{ catalog: string; type: GraphQLObjectType }>,
  ): GraphQLFieldConfigMap<unknown, unknown> => {
    const names = new Set<string>();
    for (const v of of) for (const f of Object.keys(v.type.getFields())) names.add(f);
    const out: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const field of [...names].sort(byName)) {
      if (field === CATALOG_FIELD && tagged.has(name)) continue;
      const first = of.map((v) => v.type.getFields()[field]).find((f) => f !== undefined)!;
      let type = output(first.type);
      if (!type) continue;
      const want = String(first.type);
      const differ = of.filter((v) => {
        const f = v.type.getFields()[field];
        return f === undefined || String(f.type) !== want;
      });
      if (differ.length > 0) {
        type = getNullableType(type);
        const byField = leftOut.get(name) ?? new Map<string, Set<string>>();
        byField.set(field, new Set(differ.map((v) => v.catalog)));
        leftOut.set(name, byField);
      }
      out[field] = {
        type,
        args: args(first),
        resolve: byResponseKey,
        ...(first.description && { description: first.description }),
      };
    }
    if (tagged.has(name))
      out[CATALOG_FIELD] = {
        type: new GraphQLNonNull(GraphQLString),
        description: 'The ClusterCatalog this object is from.',
        resolve: (source) => (source as { [CATALOG_OF]?: string })[CATALOG_OF],
      };
    return out;
  };

  const query = new GraphQLObjectType<unknown, AcrossContext>({
    name: 'Query',
    fields: () => {
      const out: GraphQLFieldConfigMap<unknown, AcrossContext> = {
        [CATALOGS_FIELD]: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(catalogType))),
          description:
            'The ClusterCatalogs, by priority (higher first) then name; Unavailable ones too.',
          resolve: (_s, _a, ctx) => ctx.catalogRows(),
        },
      };
      for (const [field, f] of [...rootField].sort(([a], [b]) => byName(a, b))) {
        const type = output(f.type);
        if (!type) continue;
        out[field] = {
          type,
          args: args(f),
          description: `Every serving catalog's ${field}, by catalog priority, each naming its catalog (${CATALOG_FIELD}).`,
          resolve: (_s, _a, ctx, info) => ctx.rootList(info),
        };
      }
      return out;
    },
  });
  const schema = new GraphQLSchema({ query });
  return { schema, rootFields, leftOut, tagged };
}
