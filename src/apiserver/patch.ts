// PATCH with dryRun=All: the patched object answered without storing anything, so that
// `kubectl diff` (client-side: a merge or strategic merge patch; --server-side: an apply patch)
// of `catalogd render` output shows no difference. On these types a strategic merge patch is a
// JSON merge patch (no patch strategies in the schema), and an apply patch is merged into the
// object the same way (lists replaced whole), which is what server-side apply gives for fields
// the applier sets. Fields the apiserver owns (uid, resourceVersion, creationTimestamp) stay as
// they are.
import { load } from 'js-yaml';
import type { ObjectMeta } from '../api/v1/index.js';
import { ApiError, badRequest } from './status.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';
export const JSON_PATCH = 'application/json-patch+json';
const SUPPORTED = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];

/** kubectl's client-side apply annotation: kept by no one here, since nothing is stored. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** What a dry-run PATCH reads of a served object (any kind's). */
export interface PatchTarget {
  apiVersion: string;
  kind: string;
  metadata: Pick<
    ObjectMeta,
    'name' | 'uid' | 'resourceVersion' | 'creationTimestamp' | 'annotations'
  >;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The media type of a Content-Type header, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseBody(type: string, body: string): unknown {
  try {
    return type === APPLY_PATCH ? load(body) : JSON.parse(body);
  } catch (err) {
    throw badRequest(
      `the body of the request was in an unknown format: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

/** The object `current` becomes under the patch (nothing stored). */
export function dryRunPatch<T extends PatchTarget>(
  current: T,
  contentType: string | undefined,
  body: string,
): T {
  const type = mediaType(contentType);
  if (!SUPPORTED.includes(type))
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${SUPPORTED.join(', ')}`,
    );
  if (type === JSON_PATCH)
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `${JSON_PATCH} is not supported on ${current.kind} views: use ${MERGE_PATCH} or ${APPLY_PATCH}`,
    );
  const patch = parseBody(type, body);
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    throw badRequest('the patch must be a JSON object');
  const patched = mergePatch(current, patch) as T;
  const name = (patched.metadata as { name?: unknown } | undefined)?.name;
  if (name !== current.metadata.name)
    throw badRequest(
      `the name of the object (${String(name)}) does not match the name on the URL (${current.metadata.name})`,
    );
  if (patched.apiVersion !== current.apiVersion || patched.kind !== current.kind)
    throw badRequest(
      `the patch changes apiVersion or kind: the object is ${current.apiVersion}, Kind=${current.kind}`,
    );
  const annotations = { ...patched.metadata.annotations };
  delete annotations[LAST_APPLIED_ANNOTATION];
  return {
    ...patched,
    metadata: {
      ...patched.metadata,
      annotations,
      uid: current.metadata.uid!,
      resourceVersion: current.metadata.resourceVersion!,
      creationTimestamp: current.metadata.creationTimestamp!,
    },
  };
}
