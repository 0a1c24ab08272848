// TokenReviews (authentication.k8s.io/v1) and SubjectAccessReviews (authorization.k8s.io/v1):
// create-only objects the apiserver answers in their status, never stored. The controller
// runtime's AccessReviewer port (src/controllers/runtime/delegated-access.ts) is written in the
// shapes below, and accessReviews() satisfies it structurally. A review that cannot be made (a
// network error, 429/5xx after the client's retries, 403 when the controller may not create
// reviews, the time bound) rejects: the caller refuses the request it was for.
import type { KubeClient } from './client.js';

/** authentication.k8s.io/v1 UserInfo. */
export interface ReviewUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface TokenReviewStatus {
  authenticated: boolean;
  user?: ReviewUser;
  error?: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  reason?: string;
}

export interface NonResourceAttributes {
  path: string;
  verb: string;
}

/** A cluster-scoped resource request (the served API's); `resource` tells the two apart. */
export interface ResourceAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  /** Empty or absent: the collection. */
  name?: string;
}

export interface AccessReviews {
  reviewToken(token: string): Promise<TokenReviewStatus>;
  reviewAccess(
    user: ReviewUser,
    attributes: NonResourceAttributes | ResourceAttributes,
  ): Promise<SubjectAccessReviewStatus>;
}

/** The spec's attributes field of a SubjectAccessReview. */
function reviewAttributes(attributes: NonResourceAttributes | ResourceAttributes): object {
  if (!('resource' in attributes))
    return { nonResourceAttributes: { path: attributes.path, verb: attributes.verb } };
  const { verb, group, version, resource, subresource, name } = attributes;
  return {
    resourceAttributes: {
      verb,
      group,
      version,
      resource,
      ...(subresource && { subresource }),
      ...(name && { name }),
    },
  };
}

export interface AccessReviewOptions {
  /** Bound of one review, its retries included (default 10 s, upstream's token review timeout). */
  timeoutMs?: number;
}

interface TokenReviewObject {
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    error?: string;
  };
}

interface SubjectAccessReviewObject {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

export function accessReviews(client: KubeClient, opts: AccessReviewOptions = {}): AccessReviews {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    async reviewToken(token) {
      const review = await client.request<TokenReviewObject>(
        '/apis/authentication.k8s.io/v1/tokenreviews',
        {
          method: 'POST',
          verb: 'create',
          resource: 'tokenreviews',
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
          signal: AbortSignal.timeout(timeoutMs),
        },
      );
      const s = review?.status ?? {};
      const u = s.user;
      return {
        authenticated: s.authenticated === true,
        ...(u?.username && {
          user: {
            username: u.username,
            ...(u.uid && { uid: u.uid }),
            ...(u.groups && { groups: u.groups }),
            ...(u.extra && { extra: u.extra }),
          },
        }),
        ...(s.error && { error: s.error }),
      };
    },

    async reviewAccess(user, attributes) {
      const review = await client.request<SubjectAccessReviewObject>(
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          method: 'POST',
          verb: 'create',
          resource: 'subjectaccessreviews',
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: user.username,
              ...(user.uid && { uid: user.uid }),
              ...(user.groups && { groups: user.groups }),
              ...(user.extra && { extra: user.extra }),
              ...reviewAttributes(attributes),
            },
          },
          signal: AbortSignal.timeout(timeoutMs),
        },
      );
      const s = review?.status ?? {};
      // Denied wins over allowed (the apiserver never sends both); neither is no opinion: not allowed.
      const reason = [s.reason, s.evaluationError].filter(Boolean).join('; ');
      return { allowed: s.allowed === true && s.denied !== true, ...(reason && { reason }) };
    },
  };
}
