// What a request asks, read from its method, path and query as the apiserver's RequestInfoResolver
// reads them (k8s.io/apiserver pkg/endpoints/request/requestinfo.go): the verb and resource
// attributes the SubjectAccessReview is made of, and the handlers' dispatch.
//   /apis/<group>/<version>/<resource>[/<name>[/<subresource>]]  a resource request
//   /api/<version>/<resource>[...]                                 (the core group)
//   anything shorter or elsewhere (/apis, /apis/<group>/<version>, /openapi/v3, /healthz)
//                                                                   a non-resource request, its verb
//                                                                   the lower-cased method
import type { RequestInfo } from '../ports.js';

/** Go's strconv.ParseBool true values: what the apiserver accepts as watch=true. */
const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** The deprecated path-prefix verbs (/apis/g/v/watch/<resource>); proxy has no subresource. */
const SPECIAL_VERBS = new Set(['proxy', 'watch']);

/** The verb of a resource request by its HTTP method (the apiserver's table). */
function methodVerb(method: string): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/** Path segments without empty ones at either end (Go's strings.Trim(path, "/") then Split). */
function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/**
 * The name an exact `metadata.name=<x>` (or `==`) field selector requires, as the apiserver
 * reads it for a list's authorization; undefined for any other selector.
 */
function exactNameOf(fieldSelector: string | null): string | undefined {
  if (!fieldSelector) return undefined;
  const terms = fieldSelector.split(',').map((t) => t.trim());
  for (const term of terms) {
    const m = /^metadata\.name(==|=)(.*)$/.exec(term);
    // A name usable as a path segment only (IsValidPathSegmentName).
    if (m?.[2] && m[2] !== '.' && m[2] !== '..' && !/[/%]/.test(m[2])) return m[2];
  }
  return undefined;
}

/** The request's RequestInfo, from its method and URL (path and query). */
export function requestInfo(method: string, url: URL): RequestInfo {
  const verb = method.toUpperCase();
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path: url.pathname,
    verb: verb.toLowerCase(),
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
  };
  let parts = splitPath(url.pathname);
  if (parts.length < 3) return nonResource;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  parts = parts.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    // One part (the prefix) is consumed: does it have four?
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0] as string;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0] as string;
  parts = parts.slice(1);

  const info: RequestInfo = {
    isResourceRequest: true,
    path: url.pathname,
    verb: methodVerb(verb),
    apiGroup,
    apiVersion,
    resource: '',
    subresource: '',
    name: '',
  };
  if (SPECIAL_VERBS.has(parts[0] as string)) {
    // /watch with nothing after it names no resource: the apiserver refuses it (an error).
    if (parts.length < 2) return { ...nonResource };
    info.verb = parts[0] as string;
    parts = parts.slice(1);
  }
  // Namespaced forms (/namespaces/<ns>/<resource>/...): the served resources are cluster-scoped,
  // so the namespace is not kept, but the parts that follow it are read as the apiserver does.
  if (
    parts[0] === 'namespaces' &&
    parts.length > 2 &&
    parts[2] !== 'status' &&
    parts[2] !== 'finalize'
  )
    parts = parts.slice(2);
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = parts[2] as string;

  if (info.name === '' && info.verb === 'get') {
    const watch = url.searchParams.get('watch');
    info.verb = watch !== null && TRUE_VALUES.has(watch) ? 'watch' : 'list';
    info.name = exactNameOf(url.searchParams.get('fieldSelector')) ?? '';
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
