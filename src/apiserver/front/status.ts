// The front's refusals as the apiserver words them: a metav1.Status (JSON), its message the same
// sentence kube-apiserver writes (k8s.io/apiserver responsewriters.Forbidden, apierrors), so that
// kubectl prints what it prints for any other resource.
import type { ServerResponse } from 'node:http';
import type { RequestInfo, UserInfo } from '../ports.js';
import { ApiError } from '../status.js';
import type { Status, StatusReason } from '../status.js';

export type { Status };

/** The handlers' Status (../status.ts): one shape and builder for every refusal of the API. */
function status(
  code: number,
  reason: StatusReason,
  message: string,
  details?: Status['details'],
): Status {
  return new ApiError(code, reason, message, details).toStatus();
}

/** A request without a verified front-proxy certificate and user (the apiserver's body). */
export function unauthorized(): Status {
  return status(401, 'Unauthorized', 'Unauthorized');
}

/** The apiserver's forbiddenMessage: who cannot do what, where. */
function forbiddenSentence(info: RequestInfo, user: UserInfo): string {
  if (!info.isResourceRequest)
    return `User ${JSON.stringify(user.name)} cannot ${info.verb} path ${JSON.stringify(info.path)}`;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  return `User ${JSON.stringify(user.name)} cannot ${info.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(info.apiGroup)} at the cluster scope`;
}

/**
 * 403: `catalogmetadata.content.olm.operatorframework.io "x" is forbidden: User "u" cannot get
 * resource "catalogmetadata" in API group "content.olm.operatorframework.io" at the cluster scope`
 * (with `: <reason>` when the authorizer gave one, as the apiserver appends it).
 */
export function forbidden(info: RequestInfo, user: UserInfo, reason?: string): Status {
  const sentence = forbiddenSentence(info, user) + (reason ? `: ${reason}` : '');
  if (!info.isResourceRequest) return status(403, 'Forbidden', `forbidden: ${sentence}`, {});
  const qualified = info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource;
  const subject = info.name ? `${qualified} ${JSON.stringify(info.name)}` : qualified;
  return status(403, 'Forbidden', `${subject} is forbidden: ${sentence}`, {
    ...(info.name && { name: info.name }),
    group: info.apiGroup,
    kind: info.resource,
  });
}

/** The authorization could not be checked: 503 when it may work again soon, else 500. */
export function authorizationFailed(code: 500 | 503): Status {
  return code === 503
    ? status(
        503,
        'ServiceUnavailable',
        'the request could not be authorized now (the SubjectAccessReview could not be made); retry',
      )
    : status(
        500,
        'InternalError',
        'Internal error occurred: the request could not be authorized (the SubjectAccessReview could not be made)',
      );
}

/** This replica has not listed its ClusterCatalogs yet: a retryable 503. */
export function starting(): Status {
  return status(
    503,
    'ServiceUnavailable',
    'the served API is starting: its ClusterCatalogs are not listed yet; retry',
  );
}

/** The served API failed before it answered. */
export function internalError(): Status {
  return status(500, 'InternalError', 'Internal error occurred: the request could not be answered');
}

/** Writes a Status as the response (nothing when a response has started). */
export function writeStatus(
  res: ServerResponse,
  body: Status,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(body.code, {
    'content-type': 'application/json',
    'content-length': String(bytes.length),
    'cache-control': 'no-cache, private',
    ...headers,
  });
  res.end(bytes);
}
