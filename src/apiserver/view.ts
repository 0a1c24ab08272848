// The leases a request reads: one revision per catalog, taken at the request's start (a list is
// consistent by construction). The current view is the revision each ClusterCatalog's status
// names, never an older one (SPEC §4): a replica that does not hold it yet waits for it
// (source.waitFor), then answers 503 with Retry-After. An exact view is the state a
// resourceVersion names, if this replica still holds its revisions.
import { REVISION_RETRY_AFTER_SECONDS } from '../server/index.js';
import type { RevisionLease } from '../server/index.js';
import type { ViewCatalog, ViewSource } from './ports.js';
import { encodeResourceVersion } from './resource-version.js';
import type { CatalogState, ViewState } from './resource-version.js';
import { ApiError, unavailable } from './status.js';

/** The content server's Retry-After for a revision not held yet: the same answer on both surfaces. */
export { REVISION_RETRY_AFTER_SECONDS };

export interface HeldCatalog {
  catalog: ViewCatalog;
  lease: RevisionLease;
  state: CatalogState;
}

export interface View {
  /** Sorted by catalog name. */
  catalogs: HeldCatalog[];
  resourceVersion: string;
  state: ViewState;
  release(): void;
}

/** The 16-hex-digit key of a lease's revision. */
export function revisionKey(lease: Pick<RevisionLease, 'contentHash'>): string {
  return lease.contentHash.replace(/^sha256:/, '').slice(0, 16);
}

function servesObjects(c: ViewCatalog): c is ViewCatalog & { revision: string } {
  return c.revision !== undefined && c.profile !== 'none';
}

function viewOf(held: HeldCatalog[], transition?: ViewState['transition']): View {
  const state: ViewState = { catalogs: held.map((h) => h.state) };
  if (transition) state.transition = transition;
  let released = false;
  return {
    catalogs: held,
    state,
    resourceVersion: encodeResourceVersion(state),
    release: () => {
      if (released) return;
      released = true;
      for (const h of held) h.lease.release();
    },
  };
}

/** The catalog's state at a revision (a content hash, or the revision as its status names it). */
function stateOf(c: ViewCatalog, contentHash: string): CatalogState {
  return {
    catalog: c.name,
    key: revisionKey({ contentHash }),
    profile: c.profile === 'lean' ? 'lean' : 'full',
  };
}

/** Whether a status's revision (a key, or a `sha256:` content hash) is the one `key` names. */
export function namesRevision(revision: string | undefined, key: string): boolean {
  return revision?.replace(/^sha256:/, '').startsWith(key) ?? false;
}

/** The state the catalogs' statuses name (no lease taken). */
export function statusState(catalogs: ViewCatalog[]): ViewState {
  return {
    catalogs: catalogs.filter(servesObjects).map((c) => stateOf(c, c.revision)),
  };
}

/**
 * A lease of a catalog's revision; one this replica does not hold (yet: it may be behind the
 * replica that named it, its informer too) is waited for, bounded as the content server's
 * revision wait (source.waitFor). undefined when it is still not held.
 */
export async function holdRevision(
  source: ViewSource,
  catalog: string,
  revision: string,
  signal?: AbortSignal,
): Promise<RevisionLease | undefined> {
  const lease = source.acquire(catalog, revision);
  if (lease || !(await source.waitFor(catalog, revision, signal))) return lease;
  return source.acquire(catalog, revision);
}

/** The revisions the catalogs' statuses name; 503 when one is not held here in time. */
export async function currentView(source: ViewSource, signal?: AbortSignal): Promise<View> {
  const held: HeldCatalog[] = [];
  try {
    for (const c of source.catalogs()) {
      if (!servesObjects(c)) continue;
      const lease = await holdRevision(source, c.name, c.revision, signal);
      if (!lease)
        throw unavailable(
          `the revision ${c.revision} of ClusterCatalog ${c.name} is not served by this replica yet`,
          REVISION_RETRY_AFTER_SECONDS,
        );
      held.push({ catalog: c, lease, state: stateOf(c, lease.contentHash) });
    }
  } catch (err) {
    for (const h of held) h.lease.release();
    throw err;
  }
  return viewOf(held);
}

export const tooOld = (): ApiError =>
  new ApiError(
    410,
    'Expired',
    'too old resource version: the revisions it names are no longer served',
  );

/** An RV ahead of this replica: what the apiserver answers for one ahead of its cache. */
export const tooLarge = (catalog: string, key: string): ApiError =>
  new ApiError(
    504,
    'Timeout',
    `Too large resource version: the revision ${key} of ClusterCatalog ${catalog} is not served by this replica yet`,
    {
      // What client-go's reflector looks for (isTooLargeResourceVersionError).
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: REVISION_RETRY_AFTER_SECONDS,
    },
  );

/**
 * The state a resourceVersion names (its transition left aside: the caller reads it). A revision
 * this replica does not hold is waited for (source.waitFor); then 504 "Too large resource
 * version" (as the apiserver answers an RV ahead of its cache) when the catalog's status names
 * it, else 410 (gone).
 */
export async function exactView(
  source: ViewSource,
  state: ViewState,
  signal?: AbortSignal,
): Promise<View> {
  const catalogs = new Map(source.catalogs().map((c) => [c.name, c]));
  const held: HeldCatalog[] = [];
  try {
    for (const s of state.catalogs) {
      const c = catalogs.get(s.catalog);
      if (!c || c.profile === 'none' || (c.profile === 'lean') !== (s.profile === 'lean'))
        throw tooOld();
      const lease = await holdRevision(source, c.name, s.key, signal);
      if (!lease) throw namesRevision(c.revision, s.key) ? tooLarge(c.name, s.key) : tooOld();
      held.push({ catalog: c, lease, state: { ...s } });
    }
  } catch (err) {
    for (const h of held) h.lease.release();
    throw err;
  }
  return viewOf(held, state.transition);
}
