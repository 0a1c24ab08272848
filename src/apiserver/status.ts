// metav1.Status, the body of every error the served API answers (and of a watch's ERROR event),
// with the code and reason the kube-apiserver gives for the same failure.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'Expired'
  | 'Gone'
  | 'Timeout'
  | 'ServiceUnavailable'
  | 'InternalError'
  | 'Invalid'
  | 'RequestEntityTooLarge';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  retryAfterSeconds?: number;
  causes?: Array<{ reason?: string; message: string; field?: string }>;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A request the served API refuses: answered as a metav1 Status with this code and reason. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details && { details: this.details }),
      code: this.code,
    };
  }
}

export const badRequest = (message: string): ApiError => new ApiError(400, 'BadRequest', message);

/** As the apiserver words a missing object: `<resource>.<group> "<name>" not found`. */
export function notFound(resource: string, group: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resource}.${group} "${name}" not found`, {
    name,
    group,
    kind: resource,
  });
}

/** The request's revision is not held here (yet): a retryable 503 with Retry-After. */
export function unavailable(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message, { retryAfterSeconds });
}

/** Writes the error as a Status (an unexpected error as a 500 without its stack). */
export function sendError(res: ServerResponse, err: unknown): void {
  const e =
    err instanceof ApiError
      ? err
      : new ApiError(500, 'InternalError', `Internal error occurred: ${errorText(err)}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retryAfter = e.details?.retryAfterSeconds;
  sendText(
    res,
    JSON.stringify(e.toStatus()),
    e.code,
    retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Writes a JSON body with 200 (or `code`). */
export function sendJson(res: ServerResponse, value: unknown, code = 200): void {
  sendText(res, JSON.stringify(value), code);
}

/** Writes JSON text with 200 (or `code`), not cached; `headers` add to or override the defaults. */
export function sendText(
  res: ServerResponse,
  body: string,
  code = 200,
  headers: OutgoingHttpHeaders = {},
): void {
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(body);
}
