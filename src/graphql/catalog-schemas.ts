// The GraphQL schema of each revision, built on its first query from the revision's blobs and
// kept (a few kilobytes each) for the next: at most `maxEntries` revisions, the least recently
// queried forgotten first. Building reads the blobs one batch at a time (the revision's
// schemaBlobs) and keeps only the shape: memory does not grow with the catalog.
import type { GraphQLSchema } from 'graphql';
import { isIntrospectionType, isObjectType, isSpecifiedScalarType } from 'graphql';
import { buildCatalogSchema, SchemaBuildError } from './schema.js';
import type { CatalogSchema } from './schema.js';
import { DEFAULT_SHAPE_BOUNDS, isObject, ShapeBuilder, ShapeError } from './shape.js';
import type { CatalogShape, ShapeBounds } from './shape.js';

/** What the schema needs of a leased revision (src/server's RevisionLease has it). */
export interface RevisionBlobs {
  contentHash: string;
  schemas(): Array<{ schema: string; blobs: number }>;
  schemaBlobs(schema: string, skip: number, take: number): AsyncIterable<string>;
}

export const DEFAULT_MAX_SCHEMAS_KEPT = 64;

/**
 * graphql-go's introspection gives a type, field or argument without a description as `""`
 * (its configs hold a Go string), graphql-js's as `null`: the schema's own types (not the
 * built-in scalars and introspection types, which are each library's) get `""` where they
 * have none, so that `{ __schema { queryType { fields { name description } } } }`, upstream's
 * discovery query, answers byte for byte as upstream's (hack/graphql-compare.ts).
 */
function describeAsGraphqlGo(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    type.description ??= '';
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      field.description ??= '';
      for (const arg of field.args) arg.description ??= '';
    }
  }
  return schema;
}

/** The shape of a revision's blobs, read one batch at a time. */
export async function inferShape(
  revision: Pick<RevisionBlobs, 'schemas' | 'schemaBlobs'>,
  bounds: ShapeBounds = DEFAULT_SHAPE_BOUNDS,
): Promise<CatalogShape> {
  const builder = new ShapeBuilder(bounds);
  for (const { schema } of revision.schemas())
    for await (const line of revision.schemaBlobs(schema, 0, Infinity)) {
      const blob: unknown = JSON.parse(line);
      if (isObject(blob)) builder.add(schema, blob);
    }
  return builder.shape();
}

export class CatalogSchemas {
  /** By contentHash, least recently used first. */
  private readonly entries = new Map<string, Promise<CatalogSchema>>();

  constructor(
    private readonly maxEntries = DEFAULT_MAX_SCHEMAS_KEPT,
    private readonly bounds: ShapeBounds = DEFAULT_SHAPE_BOUNDS,
  ) {}

  /**
   * The revision's schema, built once however many queries ask at the same time. A catalog
   * that cannot have one (SchemaBuildError) is remembered as such; a read error is not.
   */
  get(revision: RevisionBlobs): Promise<CatalogSchema> {
    const key = revision.contentHash;
    const kept = this.entries.get(key);
    if (kept) {
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept;
    }
    const built = this.build(revision);
    this.entries.set(key, built);
    for (const old of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(old);
    }
    built.catch((err: unknown) => {
      if (!(err instanceof SchemaBuildError) && this.entries.get(key) === built)
        this.entries.delete(key);
    });
    return built;
  }

  /** How many revisions' schemas are kept (tests). */
  get size(): number {
    return this.entries.size;
  }

  private async build(revision: RevisionBlobs): Promise<CatalogSchema> {
    let shape: CatalogShape;
    try {
      shape = await inferShape(revision, this.bounds);
    } catch (err) {
      if (err instanceof ShapeError) throw new SchemaBuildError(err.message, { cause: err });
      throw err;
    }
    const built = buildCatalogSchema(shape);
    describeAsGraphqlGo(built.schema);
    return built;
  }
}
