// The shape of a catalog's blobs, inferred as upstream catalogd infers it
// (operator-controller internal/catalogd/graphql/graphql.go: analyzeJSONObject,
// analyzeFieldValue, analyzeNestedObject, jsonTypeToGraphQL): per FBC schema, how many blobs
// it has and the fields its blobs have, each with the GraphQL type of the first value seen.
// Built once per revision from its blobs, one at a time (schema-cache.ts); small: a few
// hundred fields for a real catalog, and bounded for a hostile one (ShapeBounds).
import { remapFieldNameCached } from './names.js';

export type ScalarName = 'String' | 'Int' | 'Float' | 'Boolean';

export interface FieldShape {
  /** The GraphQL field name (remapFieldName of the key). */
  name: string;
  /** The first blob key seen with that name. */
  originalName: string;
  /** The scalar type, of the value or of its elements (a list). */
  scalar: ScalarName;
  list: boolean;
  /**
   * Fields of the objects of a list of objects: the field is a list of an object type with
   * these fields (one level: deeper objects are strings of JSON).
   */
  nested?: Map<string, FieldShape>;
}

export interface SchemaShape {
  name: string;
  totalObjects: number;
  fields: Map<string, FieldShape>;
}

export interface CatalogShape {
  /** By schema name, in blob order (the names sorted). */
  schemas: Map<string, SchemaShape>;
}

/** What a hostile catalog may not make the schema grow past (docs/graphql.md, "Bounds"). */
export interface ShapeBounds {
  schemas: number;
  /** Fields of one object type (a schema's, or a list's objects'). */
  fieldsPerType: number;
  /** Characters of one blob key. */
  keyLength: number;
}

export const DEFAULT_SHAPE_BOUNDS: ShapeBounds = {
  schemas: 1000,
  fieldsPerType: 1000,
  keyLength: 1024,
};

export class ShapeError extends Error {
  override name = 'ShapeError';
}

/** At most this many elements of a list are looked at (upstream's maxSampleElements). */
const MAX_SAMPLE_ELEMENTS = 10;

/** Go's reflect kinds of a value from encoding/json, as upstream tells them apart. */
type Kind = 'string' | 'bool' | 'float64' | 'map' | 'slice';

function kindOf(value: unknown): Kind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'float64';
  return Array.isArray(value) ? 'slice' : 'map';
}

/** Whether float64(int64(f)) == f in Go: an integer within int64's range. */
function isIntegerValue(value: unknown): boolean {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63
  );
}

/** jsonTypeToGraphQL: objects and lists (of lists) are strings of JSON. */
function scalarOf(kind: Kind, sample: unknown): ScalarName {
  if (kind === 'string') return 'String';
  if (kind === 'bool') return 'Boolean';
  if (kind === 'float64') return isIntegerValue(sample) ? 'Int' : 'Float';
  return 'String';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class ShapeBuilder {
  private readonly schemas = new Map<string, SchemaShape>();

  constructor(private readonly bounds: ShapeBounds = DEFAULT_SHAPE_BOUNDS) {}

  /** One blob of `schema` (a parsed JSON object). */
  add(schema: string, blob: Record<string, unknown>): void {
    let info = this.schemas.get(schema);
    if (!info) {
      if (this.schemas.size >= this.bounds.schemas)
        throw new ShapeError(`the catalog has more than ${this.bounds.schemas} schemas`);
      info = { name: schema, totalObjects: 0, fields: new Map() };
      this.schemas.set(schema, info);
    }
    info.totalObjects++;
    for (const key of Object.keys(blob)) {
      const name = this.fieldName(key);
      const found = this.analyze(blob[key]);
      const existing = info.fields.get(name);
      if (!existing) {
        this.checkRoom(info.fields, schema);
        info.fields.set(name, { name, originalName: key, ...found });
      } else if (found.nested) {
        // A key seen again only adds the fields of its objects (the first type stays).
        if (!existing.nested) existing.nested = found.nested;
        else this.merge(existing.nested, found.nested, `${schema}.${name}`);
      }
    }
  }

  shape(): CatalogShape {
    const names = [...this.schemas.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { schemas: new Map(names.map((n) => [n, this.schemas.get(n)!])) };
  }

  private fieldName(key: string): string {
    if (key.length > this.bounds.keyLength)
      throw new ShapeError(`a blob key is longer than ${this.bounds.keyLength} characters`);
    return remapFieldNameCached(key);
  }

  private checkRoom(fields: Map<string, FieldShape>, where: string): void {
    if (fields.size >= this.bounds.fieldsPerType)
      throw new ShapeError(`${where} has more than ${this.bounds.fieldsPerType} fields`);
  }

  /** analyzeFieldValue: the type of a value, and of a list's objects (10 elements looked at). */
  private analyze(value: unknown): Omit<FieldShape, 'name' | 'originalName'> {
    if (value === null) return { scalar: 'String', list: false };
    if (!Array.isArray(value)) return { scalar: scalarOf(kindOf(value), value), list: false };
    let dominant: Kind | undefined;
    let sample: unknown;
    let heterogeneous = false;
    let nested: Map<string, FieldShape> | undefined;
    const n = Math.min(value.length, MAX_SAMPLE_ELEMENTS);
    for (let i = 0; i < n; i++) {
      const elem: unknown = value[i];
      if (elem === null) continue;
      const kind = kindOf(elem);
      if (dominant === undefined) {
        dominant = kind;
        sample = elem;
      } else if (kind !== dominant) heterogeneous = true;
      if (isObject(elem)) {
        const fields = this.analyzeNested(elem);
        if (!nested) nested = fields;
        else this.merge(nested, fields, 'a list');
      }
    }
    if (dominant === undefined) return { scalar: 'String', list: true };
    // A list of mixed scalars is a list of strings.
    if (heterogeneous && !nested) return { scalar: 'String', list: true };
    return { scalar: scalarOf(dominant, sample), list: true, ...(nested && { nested }) };
  }

  /** analyzeNestedObject: the fields of one object of a list (their values' types only). */
  private analyzeNested(obj: Record<string, unknown>): Map<string, FieldShape> {
    const fields = new Map<string, FieldShape>();
    for (const key of Object.keys(obj)) {
      const name = this.fieldName(key);
      if (fields.has(name)) continue;
      this.checkRoom(fields, 'an object of a list');
      const value = obj[key];
      let shape: Omit<FieldShape, 'name' | 'originalName'>;
      if (value === null) shape = { scalar: 'String', list: false };
      else if (!Array.isArray(value))
        shape = { scalar: scalarOf(kindOf(value), value), list: false };
      else {
        // determineFieldType: the first element decides (none, or null: a list of strings).
        const first: unknown = value[0];
        shape =
          first === undefined || first === null
            ? { scalar: 'String', list: true }
            : { scalar: scalarOf(kindOf(first), first), list: true };
      }
      fields.set(name, { name, originalName: key, ...shape });
    }
    return fields;
  }

  /** mergeNestedFields: fields not seen yet are added; those seen keep their type. */
  private merge(into: Map<string, FieldShape>, from: Map<string, FieldShape>, where: string): void {
    for (const [name, f] of from) {
      if (into.has(name)) continue;
      this.checkRoom(into, where);
      into.set(name, f);
    }
  }
}
