// OpenAPI documents of the served group, from the CatalogMetadata CRD's schema (the one
// hack/gen-crds.ts writes, src/api/v1/crds.ts), so that `kubectl explain catalogmetadata` and
// client-side validation work through the aggregator: /openapi/v2 (Swagger 2.0, which the
// aggregator merges into the cluster's) and /openapi/v3 (the index) with
// /openapi/v3/apis/<group>/<version>.
import { createHash } from 'node:crypto';
import { CATALOG_METADATA_KIND, CATALOG_METADATA_LIST_KIND } from '../api/v1/index.js';
import { catalogMetadataCRD } from '../api/v1/crds.js';
import { pathsV2, pathsV3 } from './openapi-paths.js';
import { catalogPackageSchema, CATALOG_PACKAGE_RESOURCE } from './packages/package-openapi.js';
import { CATALOG_PACKAGE_KIND, CATALOG_PACKAGE_LIST_KIND } from './packages/package-object.js';
import { SERVED_GROUP, SERVED_VERSION } from './ports.js';

/** Definition names as the apiserver writes them: the group reversed, the version, the kind. */
const DEFINITION_PREFIX = `${SERVED_GROUP.split('.').reverse().join('.')}.${SERVED_VERSION}`;
export const OBJECT_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_METADATA_KIND}`;
export const LIST_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_METADATA_LIST_KIND}`;
export const PACKAGE_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_PACKAGE_KIND}`;
export const PACKAGE_LIST_DEFINITION = `${DEFINITION_PREFIX}.${CATALOG_PACKAGE_LIST_KIND}`;
export const OPENAPI_V3_PATH = `/openapi/v3/apis/${SERVED_GROUP}/${SERVED_VERSION}`;

const gvk = (kind: string) => [{ group: SERVED_GROUP, kind, version: SERVED_VERSION }];

function objectSchema(): Record<string, unknown> {
  const schema = structuredClone(catalogMetadataCRD().spec.versions[0]!.schema.openAPIV3Schema);
  return { ...schema, 'x-kubernetes-group-version-kind': gvk(CATALOG_METADATA_KIND) };
}

function packageSchema(): Record<string, unknown> {
  return {
    ...catalogPackageSchema(),
    'x-kubernetes-group-version-kind': gvk(CATALOG_PACKAGE_KIND),
  };
}

function listSchema(
  ref: string,
  kind = CATALOG_METADATA_KIND,
  listKind = CATALOG_METADATA_LIST_KIND,
): Record<string, unknown> {
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
  return {
    swagger: '2.0',
    info: { title: 'catalogd-ts', version: SERVED_VERSION },
    paths: {
      ...pathsV2(`#/definitions/${OBJECT_DEFINITION}`, `#/definitions/${LIST_DEFINITION}`),
      ...pathsV2(
        `#/definitions/${PACKAGE_DEFINITION}`,
        `#/definitions/${PACKAGE_LIST_DEFINITION}`,
        CATALOG_PACKAGE_RESOURCE,
      ),
    },
    definitions: {
      [OBJECT_DEFINITION]: toSwagger2(objectSchema()),
      [LIST_DEFINITION]: listSchema(`#/definitions/${OBJECT_DEFINITION}`),
      [PACKAGE_DEFINITION]: packageSchema(),
      [PACKAGE_LIST_DEFINITION]: listSchema(
        `#/definitions/${PACKAGE_DEFINITION}`,
        CATALOG_PACKAGE_KIND,
        CATALOG_PACKAGE_LIST_KIND,
      ),
    },
  };
}

export function openApiV3GroupVersion(): Record<string, unknown> {
  return {
    openapi: '3.0.0',
    info: { title: 'catalogd-ts', version: SERVED_VERSION },
    paths: {
      ...pathsV3(
        `#/components/schemas/${OBJECT_DEFINITION}`,
        `#/components/schemas/${LIST_DEFINITION}`,
      ),
      ...pathsV3(
        `#/components/schemas/${PACKAGE_DEFINITION}`,
        `#/components/schemas/${PACKAGE_LIST_DEFINITION}`,
        CATALOG_PACKAGE_RESOURCE,
      ),
    },
    components: {
      schemas: {
        [OBJECT_DEFINITION]: objectSchema(),
        [LIST_DEFINITION]: listSchema(`#/components/schemas/${OBJECT_DEFINITION}`),
        [PACKAGE_DEFINITION]: packageSchema(),
        [PACKAGE_LIST_DEFINITION]: listSchema(
          `#/components/schemas/${PACKAGE_DEFINITION}`,
          CATALOG_PACKAGE_KIND,
          CATALOG_PACKAGE_LIST_KIND,
        ),
      },
    },
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
