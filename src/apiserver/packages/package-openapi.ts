// The OpenAPI schema of CatalogPackage (`kubectl explain catalogpackage`), and its operations'
// resource for openapi-paths.ts.
import type { OpenApiResource } from '../openapi-paths.js';
import {
  CATALOG_PACKAGE_KIND,
  CATALOG_PACKAGE_PLURAL,
  FIELD_PACKAGE_CATALOG,
  FIELD_PACKAGE_NAME,
} from './package-object.js';

export const CATALOG_PACKAGE_RESOURCE: OpenApiResource = {
  plural: CATALOG_PACKAGE_PLURAL,
  kind: CATALOG_PACKAGE_KIND,
  fieldSelector: `metadata.name, ${FIELD_PACKAGE_CATALOG}, ${FIELD_PACKAGE_NAME} with =, ==, !=.`,
};

const string = (description: string) => ({ type: 'string', description });
const deprecation = (of: string) => ({
  type: 'object',
  description: `The ${of}'s deprecation (olm.deprecations); absent when it is not deprecated.`,
  properties: { message: string('The deprecation message.') },
});
const appLink = {
  type: 'object',
  description: "The default channel head's provider (olm.csv.metadata provider).",
  properties: { name: string('The provider name.'), url: string("The provider's URL.") },
};

/** The object's schema (without x-kubernetes-group-version-kind, which openapi.ts adds). */
export function catalogPackageSchema(): Record<string, unknown> {
  return {
    description:
      'CatalogPackage is one package of a ClusterCatalog, as OLM v0 PackageManifest showed it: its default channel, each channel head and version, provider, display name, short description and deprecation, read from the revision the ClusterCatalog serves. Read-only; served by catalogd-ts. No icon: the olm.package CatalogMetadata of the same name has it.',
    type: 'object',
    properties: {
      apiVersion: string(
        'APIVersion defines the versioned schema of this representation of an object.',
      ),
      kind: string('Kind is a string value representing the REST resource this object represents.'),
      metadata: { type: 'object' },
      status: {
        type: 'object',
        description:
          'What the catalog says of the package (everything is observed, nothing desired).',
        required: ['catalog', 'packageName', 'channels'],
        properties: {
          catalog: {
            type: 'object',
            description: 'The ClusterCatalog the package is in.',
            properties: {
              name: string('The ClusterCatalog name.'),
              priority: { type: 'integer', description: "The ClusterCatalog's spec.priority." },
            },
          },
          packageName: string('The package name.'),
          defaultChannel: string("The olm.package blob's defaultChannel."),
          displayName: string("The default channel head's display name (olm.csv.metadata)."),
          shortDescription: string(
            "The default channel head's short description: its olm.csv.metadata annotation `description`.",
          ),
          provider: appLink,
          channels: {
            type: 'array',
            description: "The package's channels, by name.",
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: string('The channel name.'),
                currentCSV: string("The channel's head bundle; absent when it has no single head."),
                currentCSVDesc: {
                  type: 'object',
                  description: 'What the head bundle declares.',
                  properties: {
                    version: string("The head's olm.package property version."),
                    displayName: string("The head's display name (olm.csv.metadata)."),
                  },
                },
                deprecation: deprecation('channel'),
              },
            },
          },
          deprecation: deprecation('package'),
        },
      },
    },
  };
}
