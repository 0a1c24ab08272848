// CEL rules for image references, identical (rule and message) to upstream catalogd's
// ClusterCatalog v1 CRD: a manifest accepted or rejected there is accepted or rejected here with
// the same message. `(@.*:)` finds a digest separator; `:.*$` finds the tag (or digest) part.
import type { CelRule } from './schema.js';

/** Upper bound of an image reference, as upstream. */
export const IMAGE_REF_MAX_LENGTH = 1000;

const DOMAIN: CelRule = {
  rule: String.raw`self.matches('^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])((\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(:[0-9]+)?\\b')`,
  message:
    'must start with a valid domain. valid domains must be alphanumeric characters (lowercase and uppercase) separated by the "." character.',
};

const NAME: CelRule = {
  rule: String.raw`self.find('(\\/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?((\\/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?)+)?)') != ""`,
  message:
    'a valid name is required. valid names must contain lowercase alphanumeric characters separated only by the ".", "_", "__", "-" characters.',
};

const TAG_OR_DIGEST: CelRule = {
  rule: `self.find('(@.*:)') != "" || self.find(':.*$') != ""`,
  message: 'must end with a digest or a tag',
};

const DIGEST_ONLY: CelRule = {
  rule: `self.find('(@.*:)') != ""`,
  message: 'must end with a digest',
};

const TAG_LENGTH: CelRule = {
  rule: `self.find('(@.*:)') == "" ? (self.find(':.*$') != "" ? self.find(':.*$').substring(1).size() <= 127 : true) : true`,
  message: 'tag is invalid. the tag must not be more than 127 characters',
};

const TAG_CHARACTERS: CelRule = {
  rule: String.raw`self.find('(@.*:)') == "" ? (self.find(':.*$') != "" ? self.find(':.*$').matches(':[\\w][\\w.-]*$') : true) : true`,
  message:
    'tag is invalid. valid tags must begin with a word character (alphanumeric + "_") followed by word characters or ".", and "-" characters',
};

const DIGEST_ALGORITHM: CelRule = {
  rule: `self.find('(@.*:)') != "" ? self.find('(@.*:)').matches('(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:])') : true`,
  message:
    'digest algorithm is not valid. valid algorithms must start with an uppercase or lowercase alpha character followed by alphanumeric characters and may contain the "-", "_", "+", and "." characters.',
};

const DIGEST_LENGTH: CelRule = {
  rule: `self.find('(@.*:)') != "" ? self.find(':.*$').substring(1).size() >= 32 : true`,
  message: 'digest is not valid. the encoded string must be at least 32 characters',
};

const DIGEST_HEX: CelRule = {
  rule: `self.find('(@.*:)') != "" ? self.find(':.*$').matches(':[0-9A-Fa-f]*$') : true`,
  message:
    'digest is not valid. the encoded string must only contain hex characters (A-F, a-f, 0-9)',
};

/** spec.source.image.ref: a tag or a digest reference. */
export const TAG_OR_DIGEST_REF_RULES: readonly CelRule[] = [
  DOMAIN,
  NAME,
  TAG_OR_DIGEST,
  TAG_LENGTH,
  TAG_CHARACTERS,
  DIGEST_ALGORITHM,
  DIGEST_LENGTH,
  DIGEST_HEX,
];

/** status.resolvedSource.image.ref: always a digest reference. */
export const DIGEST_REF_RULES: readonly CelRule[] = [
  DOMAIN,
  NAME,
  DIGEST_ONLY,
  DIGEST_ALGORITHM,
  DIGEST_LENGTH,
  DIGEST_HEX,
];

/** On the image source object: polling a digest is meaningless (it never changes). */
export const NO_POLL_WITH_DIGEST: CelRule = {
  rule: `self.ref.find('(@.*:)') != "" ? !has(self.pollIntervalMinutes) : true`,
  message: 'cannot specify pollIntervalMinutes while using digest-based image',
};

/**
 * Whether a reference names a digest, by the same test as the CEL rules (`@<algorithm>:`), so
 * the controller and the apiserver never disagree about which references are digests.
 */
export function isDigestRef(ref: string): boolean {
  return /@.*:/.test(ref);
}
