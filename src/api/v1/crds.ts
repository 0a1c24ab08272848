// The two CustomResourceDefinitions, built from the schemas (pure; hack/gen-crds.ts writes them).
// Not re-exported by index.ts: it loads TypeBox, which the controller does not need at run time.
import type { TSchema } from '@sinclair/typebox';
import {
  ANNOTATION_CONTENT_HASH,
  ANNOTATION_CONTENT_OMITTED,
  CATALOG_METADATA_DESCRIPTION,
  CATALOG_METADATA_KIND,
  CATALOG_METADATA_LIST_KIND,
  CATALOG_METADATA_PLURAL,
  CATALOG_METADATA_SELECTABLE_FIELDS,
  CATALOG_METADATA_SHORT_NAMES,
  CATALOG_METADATA_SINGULAR,
} from './catalogmetadata.js';
import { CatalogMetadataSpecSchema } from './catalogmetadata.schema.js';
import {
  CLUSTER_CATALOG_DESCRIPTION,
  CLUSTER_CATALOG_KIND,
  CLUSTER_CATALOG_LIST_KIND,
  CLUSTER_CATALOG_PLURAL,
  CLUSTER_CATALOG_SHORT_NAMES,
  CLUSTER_CATALOG_SINGULAR,
} from './clustercatalog.js';
import { ClusterCatalogSpecSchema, ClusterCatalogStatusSchema } from './clustercatalog.schema.js';
import { TYPE_SERVING } from './conditions.js';
import { GROUP, VERSION } from './group.js';
import { toOpenAPI } from './schema.js';

/** `kubectl get catalogd` lists both kinds. */
export const CATEGORY = 'catalogd';

/** An additionalPrinterColumns entry of a CRD version. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** A selectableFields entry of a CRD version (KEP-4358): a field `--field-selector` can name. */
export interface SelectableField {
  jsonPath: string;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition, the fields this project sets. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: 'Cluster' | 'Namespaced';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      additionalPrinterColumns: PrinterColumn[];
      selectableFields?: SelectableField[];
      schema: { openAPIV3Schema: Record<string, unknown> };
      subresources?: { status: Record<string, never> };
    }>;
  };
}

/** A map key as a JSONPath member: its dots escaped (the apiserver's columns need this form). */
function jsonPathKey(key: string): string {
  return key.replaceAll('.', '\\.');
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const CLUSTER_CATALOG_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  { name: 'LastUnpacked', type: 'date', jsonPath: '.status.lastUnpacked' },
  {
    name: 'Serving',
    type: 'string',
    jsonPath: `.status.conditions[?(@.type=="${TYPE_SERVING}")].status`,
  },
  AGE,
  // -o wide: which revision is synced.
  { name: 'Resolved', type: 'string', jsonPath: '.status.resolvedSource.image.ref', priority: 1 },
  { name: 'Objects', type: 'integer', jsonPath: '.status.objectCount', priority: 1 },
  { name: 'StoredBytes', type: 'integer', jsonPath: '.status.storedBytes', priority: 1 },
  { name: 'ContentHash', type: 'string', jsonPath: '.status.contentHash', priority: 1 },
];

/** Name is the blob's name (spec.name); the NAME kubectl always shows first is the object's. */
export const CATALOG_METADATA_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Catalog', type: 'string', jsonPath: '.spec.catalog.name' },
  { name: 'Schema', type: 'string', jsonPath: '.spec.schema' },
  { name: 'Package', type: 'string', jsonPath: '.spec.package' },
  { name: 'Name', type: 'string', jsonPath: '.spec.name' },
  AGE,
  // -o wide: the content's hash, and why the content is not in the object (empty: it is).
  {
    name: 'ContentHash',
    type: 'string',
    jsonPath: `.metadata.annotations.${jsonPathKey(ANNOTATION_CONTENT_HASH)}`,
    priority: 1,
  },
  {
    name: 'ContentOmitted',
    type: 'string',
    jsonPath: `.metadata.annotations.${jsonPathKey(ANNOTATION_CONTENT_OMITTED)}`,
    priority: 1,
  },
];

const API_VERSION_FIELD = {
  description:
    'APIVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
const KIND_FIELD = {
  description:
    'Kind is a string value representing the REST resource this object represents. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};

/** The root schema of a kind: apiVersion, kind, metadata (the apiserver's), spec and status. */
function rootSchema(description: string, spec: TSchema, status?: TSchema): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    apiVersion: API_VERSION_FIELD,
    kind: KIND_FIELD,
    // Structural schemas may not constrain metadata beyond name; the apiserver validates it.
    metadata: { type: 'object' },
    spec: toOpenAPI(spec),
  };
  if (status) properties.status = toOpenAPI(status);
  return { description, type: 'object', required: ['metadata', 'spec'], properties };
}

/**
 * The selectableFields entry of a field path (`spec.package`), checked against the schema the
 * way the apiserver checks it: the path must exist, outside any list, and end at a string,
 * integer or boolean. A schema change that breaks a selectable field fails generation, not
 * the CRD's admission.
 */
function selectableField(root: Record<string, unknown>, field: string): SelectableField {
  let node: Record<string, unknown> | undefined = root;
  for (const key of field.split('.')) {
    const props = node?.properties as Record<string, Record<string, unknown>> | undefined;
    node = props?.[key];
    if (!node) throw new Error(`selectable field ${field}: no property ${key} in the schema`);
  }
  if (!['string', 'integer', 'boolean'].includes(String(node?.type)))
    throw new Error(`selectable field ${field}: type ${String(node?.type)} is not selectable`);
  return { jsonPath: `.${field}` };
}

function crd(args: {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  columns: readonly PrinterColumn[];
  schema: Record<string, unknown>;
  statusSubresource: boolean;
  selectableFields?: readonly string[];
}): CustomResourceDefinition {
  const selectable = (args.selectableFields ?? []).map((f) => selectableField(args.schema, f));
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${args.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: args.kind,
        listKind: args.listKind,
        plural: args.plural,
        singular: args.singular,
        shortNames: [...args.shortNames],
        categories: [CATEGORY],
      },
      scope: 'Cluster',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          additionalPrinterColumns: [...args.columns],
          ...(selectable.length > 0 && { selectableFields: selectable }),
          schema: { openAPIV3Schema: args.schema },
          ...(args.statusSubresource ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

export function clusterCatalogCRD(): CustomResourceDefinition {
  return crd({
    kind: CLUSTER_CATALOG_KIND,
    listKind: CLUSTER_CATALOG_LIST_KIND,
    plural: CLUSTER_CATALOG_PLURAL,
    singular: CLUSTER_CATALOG_SINGULAR,
    shortNames: CLUSTER_CATALOG_SHORT_NAMES,
    columns: CLUSTER_CATALOG_PRINTER_COLUMNS,
    schema: rootSchema(
      CLUSTER_CATALOG_DESCRIPTION,
      ClusterCatalogSpecSchema,
      ClusterCatalogStatusSchema,
    ),
    statusSubresource: true,
  });
}

/** No status subresource: a CatalogMetadata has no status, and every write is the controller's. */
export function catalogMetadataCRD(): CustomResourceDefinition {
  return crd({
    kind: CATALOG_METADATA_KIND,
    listKind: CATALOG_METADATA_LIST_KIND,
    plural: CATALOG_METADATA_PLURAL,
    singular: CATALOG_METADATA_SINGULAR,
    shortNames: CATALOG_METADATA_SHORT_NAMES,
    columns: CATALOG_METADATA_PRINTER_COLUMNS,
    schema: rootSchema(CATALOG_METADATA_DESCRIPTION, CatalogMetadataSpecSchema),
    statusSubresource: false,
    selectableFields: CATALOG_METADATA_SELECTABLE_FIELDS,
  });
}

/** Both CRDs with the file name each is written to (under crds/ and config/crd/bases/). */
export function allCRDs(): Array<{ file: string; crd: CustomResourceDefinition }> {
  return [clusterCatalogCRD(), catalogMetadataCRD()].map((c) => ({
    file: `${GROUP}_${c.spec.names.plural}.yaml`,
    crd: c,
  }));
}
