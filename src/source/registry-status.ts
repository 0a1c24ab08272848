// What a registry's status means to the client: which statuses are retried (429 and the 5xx of
// an overloaded or restarting registry), and the error for an unexpected one. No text of the
// response body reaches the message but a distribution-spec error code: messages end up in
// ClusterCatalog status and Events.
import { readLimited } from '../util/limits.js';
import { retryable, terminal } from './errors.js';
import type { HttpResponse } from './http.js';

export const retryableStatus = (s: number) =>
  s === 429 || s === 500 || s === 502 || s === 503 || s === 504;

/**
 * The error codes of the distribution spec (and Docker Hub's TOOMANYREQUESTS): the only text of
 * an error body a message may carry, as our own strings.
 */
const registryErrorCodes = new Set([
  'BLOB_UNKNOWN',
  'BLOB_UPLOAD_INVALID',
  'BLOB_UPLOAD_UNKNOWN',
  'DIGEST_INVALID',
  'MANIFEST_BLOB_UNKNOWN',
  'MANIFEST_INVALID',
  'MANIFEST_UNKNOWN',
  'MANIFEST_UNVERIFIED',
  'NAME_INVALID',
  'NAME_UNKNOWN',
  'SIZE_INVALID',
  'TAG_INVALID',
  'UNAUTHORIZED',
  'DENIED',
  'UNSUPPORTED',
  'TOOMANYREQUESTS',
]);

/**
 * The error for an unexpected status, with the registry's error code when it sent one of the
 * spec's (registryErrorCodes): the status and that code, never other text of the body.
 */
export async function statusError(
  res: HttpResponse,
  what: string,
  notFoundIsTerminal: boolean,
): Promise<Error> {
  let code = '';
  try {
    const body = await readLimited(res.body, 64 * 1024, () => new Error('large'));
    const errs = (JSON.parse(body.toString('utf8')) as { errors?: { code?: unknown }[] } | null)
      ?.errors;
    const first = Array.isArray(errs) ? (errs[0] as { code?: unknown } | null)?.code : undefined;
    if (typeof first === 'string' && registryErrorCodes.has(first)) code = ` ${first}`;
  } catch {
    // no JSON error body
  }
  const msg = `${what}: registry returned HTTP ${res.status}${code}`;
  if (res.status === 404)
    return notFoundIsTerminal ? terminal('NotFound', msg) : retryable('NotFound', msg);
  if (res.status === 401 || res.status === 403) return retryable('Unauthorized', msg);
  if (retryableStatus(res.status)) return retryable('Unavailable', msg);
  return retryable('BadResponse', msg);
}
