// The Table format (meta.k8s.io/v1 Table, what `kubectl get` asks for): the columns of the CRD's
// additionalPrinterColumns after Name, cells as the apiserver's CRD table converter fills them
// (a date as a human duration since it, an absent value as null), priority 1 columns for
// `-o wide`, and each row's object as includeObject asks.
import { CATALOG_METADATA_PRINTER_COLUMNS } from '../api/v1/crds.js';
import type { PrinterColumn } from '../api/v1/crds.js';
import type { ServedObject } from './served-object.js';
import { badRequest } from './status.js';
import { humanDuration } from '../util/human-duration.js';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const TABLE_COLUMNS: readonly TableColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
  ...CATALOG_METADATA_PRINTER_COLUMNS.map((c) => ({
    name: c.name,
    type: c.type,
    format: '',
    description:
      c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
    priority: c.priority ?? 0,
  })),
];

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw badRequest(
    `includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`,
  );
}

/** The value at a printer column's simple JSONPath (`.a.b`, `\.` escaping a dot in a key). */
function lookup(obj: unknown, jsonPath: string): unknown {
  const keys = jsonPath
    .slice(1)
    .split(/(?<!\\)\./)
    .map((k) => k.replaceAll('\\.', '.'));
  let v: unknown = obj;
  for (const k of keys) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function cell(obj: ServedObject, column: PrinterColumn, now: number): unknown {
  const v = lookup(obj, column.jsonPath);
  if (v === undefined || v === null) return null;
  if (column.type === 'date') {
    const t = typeof v === 'string' ? Date.parse(v) : NaN;
    return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
  }
  return v;
}

/** The cells of a CatalogMetadata's row: its name, then the CRD's printer columns. */
export function catalogMetadataCells(obj: ServedObject, now: number): unknown[] {
  return [obj.metadata.name, ...CATALOG_METADATA_PRINTER_COLUMNS.map((c) => cell(obj, c, now))];
}

/**
 * A row: its cells, and its object as includeObject asks (`json`: the object's JSON, spliced in
 * for Object; `metadata`: the object's, for Metadata).
 */
export function tableRowJson(
  cells: unknown[],
  include: IncludeObject,
  json: () => string,
  metadata: unknown,
): string {
  const head = `{"cells":${JSON.stringify(cells)}`;
  if (include === 'None') return `${head}}`;
  if (include === 'Object') return `${head},"object":${json()}}`;
  return `${head},"object":${JSON.stringify(partialObjectMetadata(metadata))}}`;
}

export function partialObjectMetadata(metadata: unknown): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
}
