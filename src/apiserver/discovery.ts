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

/** patch answers dry-run requests only (kubectl diff); every other write is 405. */
const SERVED_VERBS = ['get', 'list', 'patch', 'watch'];

/** The served resources, as both discovery documents list them. */
const RESOURCES = [
  {
    plural: CATALOG_METADATA_PLURAL,
    singular: CATALOG_METADATA_SINGULAR,
    kind: CATALOG_METADATA_KIND,
    shortNames: CATALOG_METADATA_SHORT_NAMES,
  },
  {
    plural: CATALOG_PACKAGE_PLURAL,
    singular: CATALOG_PACKAGE_SINGULAR,
    kind: CATALOG_PACKAGE_KIND,
    shortNames: CATALOG_PACKAGE_SHORT_NAMES,
  },
];

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
    resources: RESOURCES.map((r) => ({
      name: r.plural,
      singularName: r.singular,
      namespaced: false,
      kind: r.kind,
      verbs: SERVED_VERBS,
      shortNames: [...r.shortNames],
      categories: [CATEGORY],
    })),
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
            resources: RESOURCES.map((r) => ({
              resource: r.plural,
              responseKind: { group: SERVED_GROUP, version: SERVED_VERSION, kind: r.kind },
              scope: 'Cluster',
              singularResource: r.singular,
              verbs: SERVED_VERBS,
              shortNames: [...r.shortNames],
              categories: [CATEGORY],
            })),
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
