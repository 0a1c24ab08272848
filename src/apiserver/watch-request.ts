// A watch request's query, checked as the apiserver checks it: the state it starts from
// (an RV, the empty state for initial events, or the statuses' state with
// sendInitialEvents=false), bookmarks, timeoutSeconds, selectors and the representation.
import type { IncomingMessage } from 'node:http';
import { negotiate } from './negotiate.js';
import type { Representation } from './negotiate.js';
import type { ViewSource } from './ports.js';
import { decodeResourceVersion, isAnyResourceVersion } from './resource-version.js';
import type { ViewState } from './resource-version.js';
import type { Selectors } from './selection.js';
import { badRequest } from './status.js';
import { parseIncludeObject } from './table.js';
import type { IncludeObject } from './table.js';
import { statusState } from './view.js';

/** The apiserver's --min-request-timeout: a watch without timeoutSeconds ends after it. */
export const DEFAULT_WATCH_TIMEOUT_SECONDS = 1800;

export interface WatchRequest {
  start: ViewState;
  sendInitialEventsEnd: boolean;
  bookmarks: boolean;
  timeoutMs: number;
  selectors: Selectors;
  representation: Representation;
  includeObject: IncludeObject;
}

export function parseWatchRequest(
  req: IncomingMessage,
  query: URLSearchParams,
  name: string,
  source: ViewSource,
  parse: (query: URLSearchParams) => Selectors,
): WatchRequest {
  const selectors = parse(query);
  if (name !== '') selectors.fields.push({ field: 'metadata.name', operator: '=', value: name });
  const rv = query.get('resourceVersion') ?? undefined;
  const match = query.get('resourceVersionMatch') ?? '';
  const initial = query.get('sendInitialEvents');
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  if (initial !== null && initial !== 'true' && initial !== 'false')
    throw badRequest(`sendInitialEvents: Invalid value: "${initial}": must be true or false`);
  const sendInitial = initial === 'true';
  if (initial !== null && match !== 'NotOlderThan')
    throw badRequest(
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  if (initial === null && match !== '')
    throw badRequest(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
  if (sendInitial && !bookmarks)
    throw badRequest(
      'allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
    );
  const timeoutText = query.get('timeoutSeconds');
  const timeoutSeconds = timeoutText === null ? DEFAULT_WATCH_TIMEOUT_SECONDS : Number(timeoutText);
  if (!Number.isSafeInteger(timeoutSeconds) || timeoutSeconds < 0)
    throw badRequest(
      `timeoutSeconds: Invalid value: "${timeoutText}": must be a non-negative integer`,
    );
  // Unset, "" or "0" (or the WatchList's initial events): from the empty state, so the initial
  // ADDED events are the plan's own (each with a resumable resourceVersion); with
  // sendInitialEvents=false, from the state the statuses name (no initial events).
  let start: ViewState;
  if (!sendInitial && !isAnyResourceVersion(rv)) start = decodeResourceVersion(rv!);
  else if (initial === 'false') start = statusState(source.catalogs());
  else start = { catalogs: [] };
  return {
    start,
    sendInitialEventsEnd: sendInitial,
    bookmarks,
    timeoutMs: (timeoutSeconds || DEFAULT_WATCH_TIMEOUT_SECONDS) * 1000,
    selectors,
    representation: negotiate(req.headers.accept, false),
    includeObject: parseIncludeObject(query.get('includeObject')),
  };
}
