// How the sync reads the apiserver's refusals. The transport (src/kube's KubeApiError) carries
// the HTTP status, the Status reason and whether the refusal is about size; the sync reads
// those fields structurally, so it needs nothing of the transport but its error's shape.

interface ApiErrorShape {
  status: number;
  reason?: string;
  tooLarge?: boolean;
}

function apiError(err: unknown): ApiErrorShape | undefined {
  const e = err as Partial<ApiErrorShape> | null | undefined;
  return typeof e === 'object' && e !== null && typeof e.status === 'number'
    ? (e as ApiErrorShape)
    : undefined;
}

export const isNotFound = (err: unknown): boolean => apiError(err)?.status === 404;
export const isConflict = (err: unknown): boolean =>
  apiError(err)?.status === 409 && apiError(err)?.reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean =>
  apiError(err)?.status === 409 && apiError(err)?.reason === 'AlreadyExists';
export const isTooLarge = (err: unknown): boolean => apiError(err)?.tooLarge === true;

/**
 * Admission refused the object itself: a validating webhook or policy, or validation (400, 403
 * Forbidden, 422 Invalid). Retrying the same object gets the same answer until the policy or
 * the catalog changes. Not 409 (a race), 429 or 5xx (the apiserver is busy).
 */
export const isAdmissionRefusal = (err: unknown): boolean => {
  const s = apiError(err)?.status;
  return s === 400 || s === 403 || s === 422;
};
