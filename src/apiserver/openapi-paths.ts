// The operations of the OpenAPI documents (v2 and v3): get and list of a served resource and PATCH
// of one, each with its x-kubernetes-group-version-kind and query parameters, as the apiserver
// publishes them.
// kubectl reads these to decide whether the server takes dryRun and fieldValidation on a PATCH
// of the kind (its query-parameter verifiers), before `kubectl diff` and `kubectl apply`.
import { CATALOG_METADATA_KIND, CATALOG_METADATA_PLURAL } from '../api/v1/index.js';
import { SERVED_GROUP, SERVED_VERSION } from './ports.js';

type ParamType = 'string' | 'integer' | 'boolean';

const PATCH_PARAMS: Array<[string, ParamType, string]> = [
  [
    'dryRun',
    'string',
    'All: answer without storing (the only PATCH these read-only views answer).',
  ],
  ['fieldManager', 'string', 'The name of the actor making the change.'],
  ['fieldValidation', 'string', 'Ignore, Warn or Strict: how unknown fields are reported.'],
  ['force', 'boolean', 'Force an apply patch over conflicts.'],
];
const LIST_PARAMS: Array<[string, ParamType, string]> = [
  ['labelSelector', 'string', 'A label selector (=, ==, !=, in, notin, exists, !exists).'],
  ['fieldSelector', 'string', ''],
  ['limit', 'integer', 'At most this many objects; metadata.continue names the next page.'],
  ['continue', 'string', 'The continue token of the previous page.'],
  ['resourceVersion', 'string', 'The state to read or watch from (docs/served.md).'],
  ['resourceVersionMatch', 'string', 'Exact or NotOlderThan.'],
  ['watch', 'boolean', 'Watch for changes.'],
  ['allowWatchBookmarks', 'boolean', 'Send BOOKMARK events.'],
  ['sendInitialEvents', 'boolean', 'The WatchList protocol.'],
  ['timeoutSeconds', 'integer', 'End the list or watch after it.'],
];

/** A resource of the served group whose operations are published. */
export interface OpenApiResource {
  plural: string;
  kind: string;
  /** What its fieldSelector takes. */
  fieldSelector: string;
}

export const CATALOG_METADATA_RESOURCE: OpenApiResource = {
  plural: CATALOG_METADATA_PLURAL,
  kind: CATALOG_METADATA_KIND,
  fieldSelector:
    'metadata.name, spec.catalog.name, spec.schema, spec.package, spec.name with =, ==, !=.',
};

const collection = (r: OpenApiResource) => `/apis/${SERVED_GROUP}/${SERVED_VERSION}/${r.plural}`;

function listParams(r: OpenApiResource): Array<[string, ParamType, string]> {
  return LIST_PARAMS.map(([name, type, description]) =>
    name === 'fieldSelector' ? [name, type, r.fieldSelector] : [name, type, description],
  );
}

function operation(
  r: OpenApiResource,
  action: string,
  id: string,
  params: Array<Record<string, unknown>>,
  ok: Record<string, unknown>,
): Record<string, unknown> {
  return {
    operationId: `${id}ContentOlmOperatorframeworkIoV1${r.kind}`,
    parameters: params,
    responses: { '200': ok },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': {
      group: SERVED_GROUP,
      version: SERVED_VERSION,
      kind: r.kind,
    },
  };
}

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * The operations in OpenAPI v2 or v3 (`objectRef`, `listRef`: the object and list definitions'
 * references): the two differ in how parameters, responses and the PATCH body are written.
 */
export function paths(
  format: 'v2' | 'v3',
  objectRef: string,
  listRef: string,
  r: OpenApiResource,
): Record<string, unknown> {
  const v2 = format === 'v2';
  const COLLECTION = collection(r);
  const query = (p: Array<[string, ParamType, string]>) =>
    p.map(([name, type, description]) =>
      v2
        ? { name, in: 'query', type, uniqueItems: true, description }
        : { name, in: 'query', description, schema: { type, uniqueItems: true } },
    );
  const nameParam = v2
    ? { name: 'name', in: 'path', required: true, type: 'string', uniqueItems: true }
    : { name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } };
  const ok = (ref: string) =>
    v2
      ? { description: 'OK', schema: { $ref: ref } }
      : { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } };
  const body = { name: 'body', in: 'body', required: true, schema: { type: 'object' } };
  const patchParams: Array<Record<string, unknown>> = v2
    ? [nameParam, body, ...query(PATCH_PARAMS)]
    : [nameParam, ...query(PATCH_PARAMS)];
  const patchOp = operation(r, 'patch', 'patch', patchParams, ok(objectRef));
  const patch = v2
    ? { ...patchOp, consumes: PATCH_TYPES }
    : {
        ...patchOp,
        requestBody: {
          required: true,
          content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { type: 'object' } }])),
        },
      };
  return {
    [COLLECTION]: { get: operation(r, 'list', 'list', query(listParams(r)), ok(listRef)) },
    [`${COLLECTION}/{name}`]: {
      get: operation(r, 'get', 'read', [nameParam], ok(objectRef)),
      patch,
    },
  };
}
