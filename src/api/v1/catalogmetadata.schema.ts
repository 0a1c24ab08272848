// The CatalogMetadata spec schema (SPEC §2.2): the source of truth that the CRD is generated from
// and the spec types derive from (catalogmetadata.ts). Imported at run time only by crds.ts.
import { Type } from '@sinclair/typebox';
import { FreeFormObject } from './schema.js';

export const CatalogRefSchema = Type.Object(
  {
    name: Type.String({
      description: 'name is the name of the ClusterCatalog the blob belongs to.',
      minLength: 1,
      maxLength: 253,
    }),
  },
  { description: 'catalog names the ClusterCatalog that owns this object.' },
);

export const ContentOmittedSchema = Type.Object(
  {
    bytes: Type.Integer({
      description:
        'bytes is the size of the canonical (sorted keys, compact) JSON form of the blob.',
      format: 'int64',
      minimum: 0,
    }),
    url: Type.String({
      description:
        'url is where the blob is served over HTTP (the /api/v1/metas endpoint of the catalog).',
      minLength: 1,
    }),
  },
  {
    description:
      "contentOmitted is set instead of content when the object would exceed the controller's --max-object-bytes: the blob is then only served over HTTP.",
  },
);

export const CatalogMetadataSpecSchema = Type.Object(
  {
    catalog: CatalogRefSchema,
    schema: Type.String({
      description:
        'schema is the blob\'s "schema" field, e.g. olm.package, olm.channel, olm.bundle.',
      minLength: 1,
    }),
    package: Type.Optional(
      Type.String({
        description: 'package is the blob\'s "package" field, when it has one (exact value).',
      }),
    ),
    name: Type.Optional(
      Type.String({
        description: 'name is the blob\'s "name" field, when it has one (exact value).',
      }),
    ),
    content: Type.Optional(
      FreeFormObject({
        description:
          'content is the FBC blob, as a JSON object. Absent when contentOmitted is set.',
      }),
    ),
    contentOmitted: Type.Optional(ContentOmittedSchema),
  },
  {
    description:
      'spec is the identity of the blob (catalog, schema, package, name) and its content.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.content) != has(self.contentOmitted)',
        message: 'exactly one of content and contentOmitted must be set',
      },
    ],
  },
);
