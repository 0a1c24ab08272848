// The list options of a request's query (limit, continue, resourceVersion,
// resourceVersionMatch), checked as the apiserver checks them, and the continue token: opaque to
// clients, it names the list's resourceVersion and the position of the next object.
import { decodeResourceVersion, isAnyResourceVersion } from './resource-version.js';
import type { ViewState } from './resource-version.js';
import type { ListPosition } from './matching.js';
import { ApiError, badRequest } from './status.js';

export interface ListOptions {
  /** 0: no limit. */
  limit: number;
  /** What state to read: the current one, or the one a resourceVersion names exactly. */
  read: { kind: 'current' } | { kind: 'exact'; state: ViewState; resourceVersion: string };
  from?: ListPosition;
}

interface ContinueToken {
  rv: string;
  catalog: string;
  seq: number;
}

export function encodeContinue(resourceVersion: string, at: ListPosition): string {
  const token: ContinueToken = { rv: resourceVersion, catalog: at.catalog, seq: at.seq };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(value: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as ContinueToken;
    if (
      typeof t.rv === 'string' &&
      typeof t.catalog === 'string' &&
      Number.isSafeInteger(t.seq) &&
      t.seq >= 0
    )
      return t;
  } catch {
    // Reported below.
  }
  throw badRequest('continue key is not valid: the continue token was not issued by this server');
}

export const continueTooOld = (): ApiError =>
  new ApiError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );

export function parseListOptions(query: URLSearchParams): ListOptions {
  const limitText = query.get('limit');
  let limit = 0;
  if (limitText !== null && limitText !== '') {
    limit = Number(limitText);
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw badRequest(`limit: Invalid value: "${limitText}": must be a non-negative integer`);
  }
  const rv = query.get('resourceVersion') ?? undefined;
  const match = query.get('resourceVersionMatch') ?? '';
  const cont = query.get('continue') ?? '';
  if (cont !== '') {
    if (!isAnyResourceVersion(rv) || match !== '')
      throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(cont);
    let state: ViewState;
    try {
      state = decodeResourceVersion(token.rv);
    } catch {
      throw badRequest(
        'continue key is not valid: the continue token was not issued by this server',
      );
    }
    return {
      limit,
      read: { kind: 'exact', state, resourceVersion: token.rv },
      from: { catalog: token.catalog, seq: token.seq },
    };
  }
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan')
    throw badRequest(
      `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
    );
  if (match !== '' && (rv === undefined || rv === ''))
    throw badRequest(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
  if (match === 'Exact') {
    if (rv === '0')
      throw badRequest(
        'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
    return {
      limit,
      read: { kind: 'exact', state: decodeResourceVersion(rv!), resourceVersion: rv! },
    };
  }
  // resourceVersion=0 (any state) is what a client-go reflector's first list asks for: the
  // apiserver answers it from its watch cache, the whole list in one response whatever the limit,
  // so an informer of the CRD syncs in one request. The same here: page by page, an informer's
  // first sync took a request per 500 objects, each through the aggregator.
  if (rv === '0') return { limit: 0, read: { kind: 'current' } };
  // NotOlderThan (or a resourceVersion without a match): the current state is never older than
  // one this API named, since a catalog's status only moves forward; the RV must still be one.
  if (!isAnyResourceVersion(rv)) decodeResourceVersion(rv!);
  return { limit, read: { kind: 'current' } };
}
