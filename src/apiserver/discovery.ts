// Discovery documents of the served group (what kubectl and client-go read to find the
// resource): /apis (APIGroupList, or the aggregated APIGroupDiscoveryList the aggregator asks
// for), /apis/<group> (APIGroup) and /apis/<group>/<version> (APIResourceList). Names, short
// names and categories as the CatalogMetadata CRD has them.
import {
  CATALOG_METADATA_KIND,
  CATALOG_METADATA_PLURAL,
  CATALOG_METADATA_SHORT_NAMES,
  CATALOG_METADATA_SINGULAR,
} from '../api/v1/index.js';
import { CATEGORY } from '../api/v1/crds.js';
import {
  CATALOG_PACKAGE_KIND,
  CATALOG_PACKAGE_PLURAL,
  CATALOG_PACKAGE_SHORT_NAMES,
  CATALOG_PACKAGE_SINGULAR,
} from './packages/package-object.js';
import { SERVED_API_VERSION, SERVED_GROUP, SERVED_VERSION } from './ports.js';

export const SERVED_RESOURCE = CATALOG_METADATA_PLURAL;
/** patch answers dry-run requests only (kubectl diff); every other write is 405. */
export const SERVED_VERBS = ['get', 'list', 'patch', 'watch'];

const versionEntry = { groupVersion: SERVED_API_VERSION, version: SERVED_VERSION };

export function apiGroup(): Record<string, unknown> {
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: SERVED_GROUP,
    versions: [versionEntry],
    preferredVersion: versionEntry,
  };
}

export function apiGroupList(): Record<string, unknown> {
  const { kind: _k, apiVersion: _a, ...group } = apiGroup();
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] };
}

export function apiResourceList(): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: SERVED_API_VERSION,
    resources: [
      {
        name: SERVED_RESOURCE,
        singularName: CATALOG_METADATA_SINGULAR,
        namespaced: false,
        kind: CATALOG_METADATA_KIND,
        verbs: SERVED_VERBS,
        shortNames: [...CATALOG_METADATA_SHORT_NAMES],
        categories: [CATEGORY],
      },
      {
        name: CATALOG_PACKAGE_PLURAL,
        singularName: CATALOG_PACKAGE_SINGULAR,
        namespaced: false,
        kind: CATALOG_PACKAGE_KIND,
        verbs: SERVED_VERBS,
        shortNames: [...CATALOG_PACKAGE_SHORT_NAMES],
        categories: [CATEGORY],
      },
    ],
  };
}

/** The aggregated discovery document (apidiscovery.k8s.io `v2` or `v2beta1`, the same shape). */
export function apiGroupDiscoveryList(version: 'v2' | 'v2beta1'): Record<string, unknown> {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: [
      {
        metadata: { name: SERVED_GROUP },
        versions: [
          {
            version: SERVED_VERSION,
            resources: [
              {
                resource: SERVED_RESOURCE,
                responseKind: {
                  group: SERVED_GROUP,
                  version: SERVED_VERSION,
                  kind: CATALOG_METADATA_KIND,
                },
                scope: 'Cluster',
                singularResource: CATALOG_METADATA_SINGULAR,
                verbs: SERVED_VERBS,
                shortNames: [...CATALOG_METADATA_SHORT_NAMES],
                categories: [CATEGORY],
              },
              {
                resource: CATALOG_PACKAGE_PLURAL,
                responseKind: {
                  group: SERVED_GROUP,
                  version: SERVED_VERSION,
                  kind: CATALOG_PACKAGE_KIND,
                },
                scope: 'Cluster',
                singularResource: CATALOG_PACKAGE_SINGULAR,
                verbs: SERVED_VERBS,
                shortNames: [...CATALOG_PACKAGE_SHORT_NAMES],
                categories: [CATEGORY],
              },
            ],
            freshness: 'Current',
          },
        ],
      },
    ],
  };
}

export function aggregatedDiscoveryContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}
