// Which object view a cluster runs (docs/client.md, "Object view"): CatalogMetadata written as
// custom resources of olm.operatorframework.io/v1 (the CRD mode) or answered by catalogd-ts
// itself under content.olm.operatorframework.io/v1 (the served mode, docs/served.md). Decided
// from what the client read of the two group-versions' discovery documents (client.ts reads
// them: its transport's errors are told by src/kube/errors.ts), and, in served mode, when a
// consistent list's status read says the objects are one revision. Loaded on a client's first
// discovery or served read (client.ts imports it dynamically): the entry point's static modules
// stay those of the CRD mode (entry-point.test.ts counts them).
import { CATALOG_METADATA_PLURAL } from '../api/v1/catalogmetadata.js';
import type { ClusterCatalogStatus } from '../api/v1/clustercatalog.js';
import type { ObjectView } from '../api/v1/group.js';
import { GROUP, SERVED_GROUP, VERSION } from '../api/v1/group.js';
import { revisionKey, revisionKeyOf } from '../api/v1/revision-url.js';

/** The object view a client reads, where its CatalogMetadata are, and why that one. */
export interface ObjectViewChoice {
  view: ObjectView;
  /** The API group of CatalogMetadata in that view (version v1 in both). */
  group: string;
  /** One sentence: what discovery found (or that the view was forced). */
  reason: string;
  /** Both groups serve catalogmetadata: the CRD's were preferred (reason says why). */
  both: boolean;
}

/** Neither group serves catalogmetadata, or discovery could not tell. */
export class ObjectViewUnknownError extends Error {
  override name = 'ObjectViewUnknownError';
}

/** What one group-version's discovery document said of catalogmetadata. */
export type DiscoveryProbe =
  { state: 'listed' } | { state: 'absent'; why: string } | { state: 'failed'; why: string };

const CRD_GV = `${GROUP}/${VERSION}`;
const SERVED_GV = `${SERVED_GROUP}/${VERSION}`;

/** The group of CatalogMetadata in a view. */
function objectViewGroup(view: ObjectView): string {
  return view === 'crd' ? GROUP : SERVED_GROUP;
}

/** The choice made by the objectView option, without discovery. */
export function forcedObjectView(view: ObjectView): ObjectViewChoice {
  return {
    view,
    group: objectViewGroup(view),
    reason: `the ${view} view was asked for (objectView option, kubectl catalog --object-view)`,
    both: false,
  };
}

/**
 * The view from the two discovery documents. Both listing catalogmetadata: the CRD's, since the
 * served mode does not install the CRD (a cluster that has it runs, or ran, the CRD mode).
 * A CRD group that could not be read: no decision (its objects may be there).
 */
export function decideObjectView(crd: DiscoveryProbe, served: DiscoveryProbe): ObjectViewChoice {
  if (crd.state === 'listed' && served.state === 'listed')
    return {
      view: 'crd',
      group: GROUP,
      both: true,
      reason: `both ${CRD_GV} (the CatalogMetadata CRD) and ${SERVED_GV} (catalogd-ts's served view) serve ${CATALOG_METADATA_PLURAL}; the CRD's objects are read, because the served mode does not install that CRD, so a cluster that has it is taken to run the CRD mode; if the CRD was left behind by a switch to the served mode, ask for the served view (kubectl catalog --object-view served; the client library's objectView option)`,
    };
  if (crd.state === 'listed')
    return {
      view: 'crd',
      group: GROUP,
      both: false,
      reason: `${CRD_GV} lists ${CATALOG_METADATA_PLURAL} (the CatalogMetadata CRD: the CRD mode)`,
    };
  if (served.state === 'listed' && crd.state === 'absent')
    return {
      view: 'served',
      group: SERVED_GROUP,
      both: false,
      reason: `${SERVED_GV} lists ${CATALOG_METADATA_PLURAL} and ${CRD_GV} does not (the served mode)`,
    };
  const failed = [crd, served].filter((p) => p.state === 'failed');
  if (failed.length > 0)
    throw new ObjectViewUnknownError(
      `cannot tell where the cluster's CatalogMetadata are: ${failed.map((p) => p.why).join('; ')}; try again, or name the view (kubectl catalog --object-view crd|served; the client library's objectView option)`,
    );
  throw new ObjectViewUnknownError(
    `this cluster serves no CatalogMetadata: neither ${CRD_GV} (the CRD mode's CatalogMetadata CRD) nor ${SERVED_GV} (the served mode's APIService) lists ${CATALOG_METADATA_PLURAL}; is catalogd-ts installed (kubectl get crd,apiservice | grep olm.operatorframework.io)?`,
  );
}

/**
 * In served mode, whether a status's objects lag what the view answers: the served view answers
 * the revision status.urls.base names (docs/served-security.md, "What the controller does in
 * served mode"), which moves before contentHash does. Until contentHash names that revision too,
 * a list is not known to be of the revision contentHash says: the consistent list waits, as for
 * syncingTo.
 */
export function servedObjectsLag(status: ClusterCatalogStatus | undefined): boolean {
  const served = revisionKeyOf(status?.urls?.base);
  const hash = status?.contentHash;
  if (served === undefined || hash === undefined) return false;
  try {
    return revisionKey(hash) !== served;
  } catch {
    return true; // a contentHash that is not sha256:<hex> names no revision the view answers
  }
}
