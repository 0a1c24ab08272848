// The served view's ViewSource (ports.ts) over what the controller already runs: the
// ClusterCatalog informer (every replica has one; the revision each catalog's status names) and
// the content publisher's store (the revisions this replica holds). The profile is the
// catalog's content-profile annotation, else the controller's --content-profile, as the reconcile
// decides it; an annotation that names no profile (the reconcile refuses the catalog) counts as
// the flag's profile.
import type { ClusterCatalog, ContentProfile } from '../../api/v1/index.js';
import {
  ANNOTATION_CONTENT_PROFILE,
  AVAILABILITY_MODE_UNAVAILABLE,
  isContentProfile,
  statusRevision,
} from '../../api/v1/index.js';
import type { RevisionLease } from '../../server/index.js';
import type { ViewCatalog, ViewSource } from '../ports.js';

/** The part of the controller's ClusterCatalog informer the view reads. */
export interface CatalogIndex {
  values(): Iterable<ClusterCatalog>;
  /** Whether the first list is in. */
  hasSynced(): boolean;
  /** The runtime informer's subscribe: `enqueue` for every add, update and delete. */
  subscribe(map: (c: ClusterCatalog) => string, enqueue: (key: string) => void): () => void;
}

/** The part of the content publisher the view reads. */
export interface HeldRevisions {
  store: { acquire(catalog: string, revision?: string): RevisionLease | undefined };
  waitFor(catalog: string, revision: string, signal?: AbortSignal): Promise<boolean>;
  onChange(listener: (catalog: string) => void): () => void;
}

/** A ClusterCatalog as the view sees it. */
export function viewCatalog(catalog: ClusterCatalog, defaultProfile: ContentProfile): ViewCatalog {
  const annotated = catalog.metadata.annotations?.[ANNOTATION_CONTENT_PROFILE];
  const profile =
    annotated !== undefined && isContentProfile(annotated) ? annotated : defaultProfile;
  const unavailable = catalog.spec.availabilityMode === AVAILABILITY_MODE_UNAVAILABLE;
  return {
    name: catalog.metadata.name,
    uid: catalog.metadata.uid ?? '',
    creationTimestamp: catalog.metadata.creationTimestamp ?? '',
    priority: catalog.spec.priority ?? 0,
    revision: unavailable ? undefined : statusRevision(catalog.status),
    profile,
  };
}

const byName = (a: ViewCatalog, b: ViewCatalog) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function catalogViewSource(
  catalogs: CatalogIndex,
  held: HeldRevisions,
  defaultProfile: ContentProfile,
): ViewSource {
  return {
    catalogs: () =>
      [...catalogs.values()]
        .filter((c) => c.metadata.deletionTimestamp === undefined)
        .map((c) => viewCatalog(c, defaultProfile))
        .sort(byName),
    acquire: (catalog, revision) => held.store.acquire(catalog, revision),
    waitFor: (catalog, revision, signal) => held.waitFor(catalog, revision, signal),
    subscribe(listener) {
      // Coalesced: one call per turn of the event loop, however many events came.
      let queued = false;
      const notify = () => {
        if (queued) return;
        queued = true;
        queueMicrotask(() => {
          queued = false;
          listener();
        });
      };
      // The informer's subscribe replays the catalogs it holds: not a change.
      let replaying = true;
      const offCatalogs = catalogs.subscribe(
        (c) => c.metadata.name,
        () => {
          if (!replaying) notify();
        },
      );
      replaying = false;
      const offContent = held.onChange(notify);
      return () => {
        offCatalogs();
        offContent();
      };
    },
  };
}
