// The ClusterCatalog spec and status schemas (SPEC §2.1): the source of truth that the CRD is
// generated from and the types derive from (clustercatalog.ts). Imported at run time only by
// crds.ts.
import { Type } from '@sinclair/typebox';
import {
  AVAILABILITY_MODES,
  AVAILABILITY_MODE_AVAILABLE,
  CONTENT_HASH_PATTERN,
  SOURCE_TYPES,
  SYNCING_TO_PATTERN,
} from './clustercatalog.js';
import { ConditionSchema } from './conditions.schema.js';
import {
  DIGEST_REF_RULES,
  IMAGE_REF_MAX_LENGTH,
  NO_POLL_WITH_DIGEST,
  TAG_OR_DIGEST_REF_RULES,
} from './imageref.js';
import { StringEnum, Timestamp } from './schema.js';
import type { CelRule } from './schema.js';

/** A source (desired or resolved) has image exactly when its type is Image. */
const IMAGE_IFF_TYPE_IMAGE: CelRule = {
  rule: `has(self.type) && self.type == 'Image' ? has(self.image) : !has(self.image)`,
  message: 'image is required when source type is Image, and forbidden otherwise',
};

export const ImageSourceSchema = Type.Object(
  {
    ref: Type.String({
      description:
        'ref is the required reference to the catalog image: <domain>/<name> followed by a tag (:tag, at most 127 word characters, "." or "-", starting with a word character) or a digest (@<algorithm>:<at least 32 hex digits>), e.g. "quay.io/operatorhubio/catalog:latest". At most 1000 characters.',
      maxLength: IMAGE_REF_MAX_LENGTH,
      'x-kubernetes-validations': [...TAG_OR_DIGEST_REF_RULES],
    }),
    pollIntervalMinutes: Type.Optional(
      Type.Integer({
        description:
          'pollIntervalMinutes is how often, in minutes, the tag is resolved again to look for new content (with a small jitter). Not allowed when ref is a digest. When omitted, the image is not polled.',
        minimum: 1,
      }),
    ),
  },
  {
    description:
      'image configures a catalog sourced from an OCI image. Required when type is Image, forbidden otherwise.',
    'x-kubernetes-validations': [NO_POLL_WITH_DIGEST],
  },
);

export const CatalogSourceSchema = Type.Object(
  {
    type: StringEnum(SOURCE_TYPES, {
      description:
        'type is the required kind of source. The only allowed value is "Image": the content comes from an OCI image and image must be set.',
    }),
    image: Type.Optional(ImageSourceSchema),
  },
  {
    description:
      'source is the required location of the catalog content, in the File-Based Catalog (FBC) format. Example: {type: Image, image: {ref: quay.io/operatorhubio/catalog:latest}}.',
    'x-kubernetes-validations': [IMAGE_IFF_TYPE_IMAGE],
  },
);

export const ClusterCatalogSpecSchema = Type.Object(
  {
    source: CatalogSourceSchema,
    priority: Type.Optional(
      Type.Integer({
        description:
          'priority is passed through for clients, which use it to break ties between catalogs that meet their requirements: higher numbers mean higher priority. Defaults to 0; any int32 (-2147483648 to 2147483647).',
        default: 0,
        format: 'int32',
        minimum: -2147483648,
        maximum: 2147483647,
      }),
    ),
    availabilityMode: Type.Optional(
      StringEnum(AVAILABILITY_MODES, {
        description:
          'availabilityMode is "Available" (default: the content is unpacked, served over HTTP and materialized as CatalogMetadata objects) or "Unavailable" (the served content and the CatalogMetadata objects are removed and Serving is False/UserSpecifiedUnavailable; treat the catalog as if it did not exist).',
        default: AVAILABILITY_MODE_AVAILABLE,
      }),
    ),
  },
  {
    description:
      'spec is the required desired state: where the catalog content comes from and how it is made available.',
  },
);

export const ResolvedImageSourceSchema = Type.Object(
  {
    ref: Type.String({
      description: 'ref is the digest reference of the image whose content is served.',
      maxLength: IMAGE_REF_MAX_LENGTH,
      'x-kubernetes-validations': [...DIGEST_REF_RULES],
    }),
  },
  {
    description:
      'image is the resolution of an image source. Set when type is Image, forbidden otherwise.',
  },
);

export const ResolvedCatalogSourceSchema = Type.Object(
  {
    type: StringEnum(SOURCE_TYPES, {
      description: 'type is the kind of source that was resolved; the only value is "Image".',
    }),
    image: ResolvedImageSourceSchema,
  },
  {
    description:
      'resolvedSource is the source that is being served, resolved to an immutable reference.',
    'x-kubernetes-validations': [IMAGE_IFF_TYPE_IMAGE],
  },
);

export const ClusterCatalogURLsSchema = Type.Object(
  {
    base: Type.String({
      description:
        'base is the URL under which the content is served; clients append an endpoint: /api/v1/all (the whole catalog as JSON lines) or /api/v1/metas?schema=&package=&name= (the matching blobs).',
      maxLength: 525,
      'x-kubernetes-validations': [
        { rule: 'isURL(self)', message: 'must be a valid URL' },
        {
          rule: 'isURL(self) ? (url(self).getScheme() == "http" || url(self).getScheme() == "https") : true',
          message: 'scheme must be either http or https',
        },
      ],
    }),
  },
  { description: 'urls are the URLs where the catalog content is served over HTTP.' },
);

export const ClusterCatalogStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        description:
          'conditions are Serving (True/Available: content is served; False/Unavailable: no content yet; False/UserSpecifiedUnavailable: availabilityMode is Unavailable) and Progressing (True/Succeeded: desired state reached; True/Retrying: an error a retry may fix; False/Blocked: an error only a spec change can fix). Both can be set at once: the previous content stays served (Serving=True) while a new one is retried (Progressing=True/Retrying).',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    resolvedSource: Type.Optional(ResolvedCatalogSourceSchema),
    urls: Type.Optional(ClusterCatalogURLsSchema),
    lastUnpacked: Type.Optional(
      Timestamp({
        description:
          'lastUnpacked is when the served content was last unpacked from its source; a poll that finds the same digest does not change it.',
      }),
    ),
    contentHash: Type.Optional(
      Type.String({
        description:
          'contentHash is sha256:<hex> over the sorted hashes of the blobs of the revision the CatalogMetadata objects hold: it changes exactly when the content changes, whatever the file layout or digest. Under the content profile none that revision has no objects.',
        pattern: CONTENT_HASH_PATTERN,
      }),
    ),
    objectSourceRef: Type.Optional(
      Type.String({
        description:
          'objectSourceRef is the digest reference of the image whose content the CatalogMetadata objects hold (the revision contentHash names). resolvedSource, urls.base and Serving speak of the HTTP content, which is served as soon as it is parsed: they run ahead of the objects while a new revision is written (syncingTo) or after admission refused its objects.',
        maxLength: IMAGE_REF_MAX_LENGTH,
        'x-kubernetes-validations': [...DIGEST_REF_RULES],
      }),
    ),
    objectCount: Type.Optional(
      Type.Integer({
        description: 'objectCount is the number of CatalogMetadata objects of this catalog.',
        format: 'int64',
        minimum: 0,
      }),
    ),
    storedBytes: Type.Optional(
      Type.Integer({
        description:
          "storedBytes is the sum of the sizes of this catalog's CatalogMetadata objects as the controller writes them (their JSON, content included, or contentOmitted for objects whose content is omitted), as of the last successful sync.",
        format: 'int64',
        minimum: 0,
      }),
    ),
    syncingTo: Type.Optional(
      Type.String({
        description:
          'syncingTo is the contentHash being written while a sync changes CatalogMetadata objects; absent (or empty) otherwise. A list taken between two status reads that both show the same contentHash and no syncingTo is one consistent revision.',
        pattern: SYNCING_TO_PATTERN,
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({
        description: 'observedGeneration is the metadata.generation that the status describes.',
        format: 'int64',
        minimum: 0,
      }),
    ),
  },
  {
    description:
      'status is the observed state: whether the content is served, whether the catalog is progressing, which image is served, and the revision of its CatalogMetadata objects.',
  },
);
