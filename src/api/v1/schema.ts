// Building blocks for Kubernetes structural OpenAPI v3 schemas on top of TypeBox, so that one
// definition yields both the CRD schema (hack/gen-crds.ts) and the TypeScript type (Static<>).
// Only the subset of JSON Schema that Kubernetes accepts in a structural schema is produced:
// no anyOf/oneOf/const/$ref/patternProperties; enums are plain `enum`, maps of unknown content
// are `x-kubernetes-preserve-unknown-fields`.
import { Type } from '@sinclair/typebox';
import type { SchemaOptions, TSchema, TUnsafe } from '@sinclair/typebox';

/** One CEL rule of `x-kubernetes-validations`; every rule carries the message users see. */
export interface CelRule {
  /** The CEL expression; `self` is the value of the field the rule sits on. */
  rule: string;
  /** Shown to the user (prefixed with the field path) when the rule evaluates to false. */
  message: string;
}

/** Options every field takes; `description` is required so that every field is documented. */
export interface FieldOptions extends SchemaOptions {
  description: string;
  'x-kubernetes-validations'?: CelRule[];
}

/** A string field restricted to the given values (structural `enum`, not `anyOf` of consts). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: FieldOptions & { default?: T[number] },
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** A JSON object whose content the apiserver stores as is (the schema does not describe it). */
export function FreeFormObject(options: FieldOptions): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({
    ...options,
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  });
}

/** An RFC 3339 timestamp as the apiserver serializes metav1.Time (`2006-01-02T15:04:05Z`). */
export function Timestamp(options: FieldOptions): ReturnType<typeof Type.String> {
  return Type.String({ ...options, format: 'date-time' });
}

/**
 * The plain JSON form of a TypeBox schema: TypeBox keeps its bookkeeping under symbol keys
 * (Kind, Optional), which JSON drops; empty `required` lists are removed as controller-gen does.
 */
export function toOpenAPI(schema: TSchema): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(schema, (_key, value: unknown) => {
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const obj = value as Record<string, unknown>;
        if (Array.isArray(obj.required) && obj.required.length === 0) {
          const { required: _dropped, ...rest } = obj;
          return rest;
        }
      }
      return value;
    }),
  ) as Record<string, unknown>;
}
