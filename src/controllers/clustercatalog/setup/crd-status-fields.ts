// Whether the ClusterCatalog CRD the apiserver serves has our status fields. OLM v1's release
// manifests and Helm chart install upstream's CRD, whose status has conditions, resolvedSource,
// urls and lastUnpacked only: applied over ours, the apiserver prunes contentHash, objectCount,
// objectSourceRef, storedBytes, syncingTo and observedGeneration from every status write,
// silently. Content serving does not depend on them (replicas read urls.base), but the
// consistent-list protocol and the sync journal do, so the controller says so everywhere
// (docs/api.md, "When another ClusterCatalog CRD is applied"). Pure: cmd feeds it the CRD from a
// watch.
import { CLUSTER_CATALOG_PLURAL, GROUP, VERSION } from '../../../api/v1/index.js';
import { clusterCatalogCRD } from '../../../api/v1/crds.js';

export const CLUSTER_CATALOG_CRD_NAME = `${CLUSTER_CATALOG_PLURAL}.${GROUP}`;

/** What is read of a served CustomResourceDefinition. */
export interface ServedCRD {
  metadata: { name: string; uid?: string; resourceVersion?: string };
  spec?: {
    versions?: Array<{
      name: string;
      served?: boolean;
      schema?: { openAPIV3Schema?: SchemaNode };
    }>;
  };
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** The command that puts our CRD back (docs/deploy.md); the controller then recovers alone. */
export const CRD_FIX_COMMAND = 'kubectl apply --server-side --force-conflicts -k config/crd';

function statusNode(crd: ServedCRD): SchemaNode | undefined {
  const version = crd.spec?.versions?.find((v) => v.name === VERSION && v.served !== false);
  return version?.schema?.openAPIV3Schema?.properties?.status;
}

/** Our status fields, from the CRD generated from the API types. */
export const OUR_STATUS_FIELDS: readonly string[] = Object.keys(
  statusNode(clusterCatalogCRD())?.properties ?? {},
).sort();

/** Our status fields that the served CRD would prune (sorted); none when it keeps them all. */
export function missingStatusFields(served: ServedCRD): string[] {
  const status = statusNode(served);
  if (status?.['x-kubernetes-preserve-unknown-fields'] === true) return [];
  const kept = status?.properties ?? {};
  return OUR_STATUS_FIELDS.filter((f) => !(f in kept));
}

/** The one-line problem said in logs, the event and every catalog's Progressing message. */
export function crdProblemMessage(missing: readonly string[]): string | undefined {
  if (missing.length === 0) return undefined;
  return `the ClusterCatalog CRD the apiserver serves lacks the status fields ${missing.join(', ')} (another ClusterCatalog CRD, such as OLM v1's, was applied over catalogd-ts's), so the apiserver drops them: run "${CRD_FIX_COMMAND}" in the catalogd-ts release to restore ours; HTTP content is still served from status.urls.base`;
}

/** The current verdict on the served CRD; observe() says when it changed. */
export class CRDStatusFieldsCheck {
  #missing: string[] = [];

  get missing(): readonly string[] {
    return this.#missing;
  }

  /** The problem message, while there is one. */
  problem(): string | undefined {
    return crdProblemMessage(this.#missing);
  }

  /**
   * Looks at the served CRD (undefined: none is served, nothing to compare); true when the
   * missing fields changed.
   */
  observe(served: ServedCRD | undefined): boolean {
    const missing = served ? missingStatusFields(served) : [];
    const changed = missing.join(',') !== this.#missing.join(',');
    this.#missing = missing;
    return changed;
  }
}
