// OpenAPI documents of the served group, from the CatalogMetadata CRD's schema (the one
// hack/gen-crds.ts writes, src/api/v1/crds.ts), so that `kubectl explain catalogmetadata` and
// client-side validation work through the aggregator: /openapi/v2 (Swagger 2.0, which the
// aggregator merges into the cluster's) and /openapi/v3 (the index) with
// /openapi/v3/apis/<group>/<version>.
import { createHash } from 'node:crypto';
import { CATALOG_METADATA_KIND, CATALOG_METADATA_LIST_KIND } from '../api/v1/index.js';
import { catalogMetadataCRD } from '../api/v1/crds.js';
import { CATALOG_METADATA_RESOURCE, paths } from './openapi-paths.js';
import { catalogPackageSchema, CATALOG_PACKAGE_RESOURCE } from './packages/package-openapi.js';
import { CATALOG_PACKAGE_KIND, CATALOG_PACKAGE_LIST_KIND } from './packages/package-object.js';
import { SERVED_GROUP, SERVED_VERSION } from './ports.js';

/** Definition names as the apiserver writes them: the group reversed, the version, the kind. */
const DEFINITION_PREFIX = `${SERVED_GROUP.split('.').reverse().join('.')}.${SERVED_VERSION}`;
export const OBJECT_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_METADATA_KIND}`;
export const LIST_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_METADATA_LIST_KIND}`;
const PACKAGE_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_PACKAGE_KIND}`;
const PACKAGE_LIST_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_PACKAGE_LIST_KIND}`;
export const OPENAPI_V3_PATH = `/openapi/v3/apis/${SERVED_GROUP}/${SERVED_VERSION}`;

const gvk = (kind: string) => [{ group: SERVED_GROUP, kind, version: SERVED_VERSION }];

/** A served kind's operations, and its object and list definitions. */
const KINDS = [
  {
    resource: CATALOG_METADATA_RESOURCE,
    object: OBJECT_DEFINITION,
    list: LIST_DEFINITION,
    listKind: CATALOG_METADATA_LIST_KIND,
    schema: () => structuredClone(catalogMetadataCRD().spec.versions[0]!.schema.openAPIV3Schema),
  },
  {
    resource: CATALOG_PACKAGE_RESOURCE,
    object: PACKAGE_DEFINITION,
    list: PACKAGE_LIST_DEFINITION,
    listKind: CATALOG_PACKAGE_LIST_KIND,
    schema: catalogPackageSchema,
  },
];

function listSchema(ref: string, kind: string, listKind: string): Record<string, unknown> {
  return {
    description: `${listKind} is a list of ${kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      items: { type: 'array', items: { $ref: ref } },
    },
    'x-kubernetes-group-version-kind': gvk(listKind),
  };
}

/** The operations and definitions of every kind (`prefix`: where the document keeps definitions). */
function kindsIn(
  format: 'v2' | 'v3',
  prefix: string,
): { paths: Record<string, unknown>; definitions: Record<string, unknown> } {
  const out = { paths: {}, definitions: {} as Record<string, unknown> };
  for (const k of KINDS) {
    Object.assign(
      out.paths,
      paths(format, `${prefix}${k.object}`, `${prefix}${k.list}`, k.resource),
    );
    const object = { ...k.schema(), 'x-kubernetes-group-version-kind': gvk(k.resource.kind) };
    out.definitions[k.object] = format === 'v2' ? toSwagger2(object) : object;
    out.definitions[k.list] = listSchema(`${prefix}${k.object}`, k.resource.kind, k.listKind);
  }
  return out;
}

/** Swagger 2.0 has no nullable, anyOf, oneOf nor not: left out, as the CRD's v2 document does. */
function toSwagger2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toSwagger2);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable' || k === 'anyOf' || k === 'oneOf' || k === 'not') continue;
    out[k] = toSwagger2(v);
  }
  return out;
}

export function openApiV2(): Record<string, unknown> {
  const { paths, definitions } = kindsIn('v2', '#/definitions/');
  return {
    swagger: '2.0',
    info: { title: 'catalogd-ts', version: SERVED_VERSION },
    paths,
    definitions,
  };
}

export function openApiV3GroupVersion(): Record<string, unknown> {
  const { paths, definitions } = kindsIn('v3', '#/components/schemas/');
  return {
    openapi: '3.0.0',
    info: { title: 'catalogd-ts', version: SERVED_VERSION },
    paths,
    components: { schemas: definitions },
  };
}

/** The documents as served (computed once): JSON text and its hash (the v3 index's `?hash=`, ETags). */
export interface OpenApiDocuments {
  v2: string;
  /** A strong ETag of v2. */
  v2Etag: string;
  v3: string;
  v3Hash: string;
  v3Index: string;
}

export function openApiDocuments(): OpenApiDocuments {
  const v3 = JSON.stringify(openApiV3GroupVersion());
  const v3Hash = createHash('sha512').update(v3).digest('hex').toUpperCase().slice(0, 128);
  const v3Index = JSON.stringify({
    paths: {
      [OPENAPI_V3_PATH.slice('/openapi/v3/'.length)]: {
        serverRelativeURL: `${OPENAPI_V3_PATH}?hash=${v3Hash}`,
      },
    },
  });
  const v2 = JSON.stringify(openApiV2());
  const v2Etag = `"${createHash('sha512').update(v2).digest('hex').toUpperCase().slice(0, 128)}"`;
  return { v2, v2Etag, v3, v3Hash, v3Index };
}
