// Errors from the apiserver, with the Status reason kept so callers can branch on it
// (NotFound, AlreadyExists, Conflict, Expired/Gone) and a retry class for the controller.

export class KubeApiError extends Error {
  /** HTTP status; also exposed as `code` so isGone() sees a 410 the same way on any error. */
  readonly code: number;
  readonly reason: string;

  constructor(
    readonly status: number,
    reason: string,
    message: string,
    readonly verb: string,
    readonly resource: string,
  ) {
    super(`${verb} ${resource}: ${message || reason || `HTTP ${status}`}`);
    this.name = 'KubeApiError';
    this.code = status;
    this.reason = reason;
  }

  /** 429 and 5xx are transient: the apiserver asks us to come back later. */
  get retryable(): boolean {
    return (this.status === 429 || this.status >= 500) && !this.tooLarge;
  }

  /**
   * The request was refused for its size, which no retry changes: 413 from the apiserver's
   * body limit (3 MiB), or a 500 relaying etcd's request limit (1.5 MiB: "etcdserver: request
   * is too large") or the gRPC message limit to etcd (2 MiB: "ResourceExhausted").
   */
  get tooLarge(): boolean {
    return (
      this.status === 413 ||
      (this.status === 500 &&
        /request is too large|ResourceExhausted|message larger than max/.test(this.message))
    );
  }
}

/**
 * The error of an apiserver response that is not a success: the reason and message of its
 * Status body, or the body's start when it is not one.
 */
export function apiError(
  status: number,
  text: string,
  verb: string,
  resource: string,
): KubeApiError {
  let reason = '';
  let message = text.slice(0, 2000);
  try {
    const s = JSON.parse(text) as { reason?: string; message?: string };
    reason = s.reason ?? '';
    message = s.message ?? message;
  } catch {
    // not a Status object (e.g. a proxy's error page): keep the text
  }
  return new KubeApiError(status, reason, message, verb, resource);
}

function apiStatus(err: unknown): number | undefined {
  return err instanceof KubeApiError ? err.status : undefined;
}

export const isNotFound = (err: unknown): boolean => apiStatus(err) === 404;
export const isConflict = (err: unknown): boolean =>
  apiStatus(err) === 409 && (err as KubeApiError).reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean =>
  apiStatus(err) === 409 && (err as KubeApiError).reason === 'AlreadyExists';
/**
 * 410 Gone: an expired resourceVersion or continue token. Any error carrying a 410 `code` or
 * `statusCode` (a KubeApiError, a ListWatch's own expiry error) counts: the informer relists.
 */
export function isGone(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; statusCode?: unknown };
  return e.code === 410 || e.statusCode === 410;
}
export const isTooLarge = (err: unknown): boolean => err instanceof KubeApiError && err.tooLarge;
/** Admission webhooks and policies, validation: the object itself is refused. */
export const isInvalid = (err: unknown): boolean => {
  const s = apiStatus(err);
  return s === 422 || s === 400 || s === 403;
};

const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
]);

/** Network-level failures (connection refused or reset, timeouts): worth retrying. */
export function isNetworkError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NETWORK_ERROR_CODES.has(code);
}

/** The error of a request ended by its AbortSignal (the name and code fetch and node use). */
export function abortError(signal: AbortSignal): Error {
  const err = new Error('The operation was aborted', { cause: signal.reason });
  err.name = 'AbortError';
  return Object.assign(err, { code: 'ABORT_ERR' });
}

/**
 * The requests in flight under each signal, ended with abortError when it aborts. A listener per
 * request (node:https's own `signal` option) would be added and removed tens of thousands of
 * times under a sync's one signal, which showed in profiles: one listener per signal ends them
 * all. Callers add a request to its signal's set and delete it when it ends.
 */
export function abortGroups<T>(
  end: (item: T, err: Error) => void,
): (signal: AbortSignal) => Set<T> {
  const groups = new WeakMap<AbortSignal, Set<T>>();
  return (signal) => {
    let group = groups.get(signal);
    if (!group) {
      const items = new Set<T>();
      group = items;
      groups.set(signal, items);
      signal.addEventListener(
        'abort',
        () => {
          for (const item of items) end(item, abortError(signal));
          items.clear();
        },
        { once: true },
      );
    }
    return group;
  };
}
