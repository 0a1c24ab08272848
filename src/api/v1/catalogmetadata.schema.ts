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

export const ContentPartSchema = Type.Object(
  {
    path: Type.String({
      description:
        'path names what was left out: "icon", or "properties[type=<property type>]" for all properties of that type.',
      minLength: 1,
      maxLength: 256,
    }),
    bytes: Type.Integer({
      description:
        'bytes is the size of what was left out, in canonical JSON (for properties, the sum over the properties left out).',
      format: 'int64',
      minimum: 0,
    }),
  },
  { description: 'A part of the blob that the lean content profile left out of content.' },
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
    parts: Type.Optional(
      Type.Array(ContentPartSchema, {
        description:
          'parts lists what the lean content profile left out of content, which is then present but partial; absent when the whole content is omitted.',
        maxItems: 64,
      }),
    ),
  },
  {
    description:
      "contentOmitted is set instead of content when the object would exceed the controller's --max-object-bytes: the blob is then only served over HTTP. With the lean content profile it is set beside a partial content, and parts says what was left out.",
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
          'content is the FBC blob, as a JSON object. Absent when the whole blob is omitted (contentOmitted without parts); partial when contentOmitted.parts lists what was left out.',
      }),
    ),
    contentOmitted: Type.Optional(ContentOmittedSchema),
  },
  {
    description:
      'spec is the identity of the blob (catalog, schema, package, name) and its content.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.contentOmitted) ? has(self.content) == has(self.contentOmitted.parts) : has(self.content)',
        message:
          'content must be set, unless contentOmitted is set without parts (the whole blob omitted); contentOmitted.parts requires content',
      },
    ],
  },
);
