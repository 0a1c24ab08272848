// Image references (spec.source.image.ref, status.resolvedSource.image.ref), parsed and
// normalized as Docker does: `name[:tag][@digest]`, where a name without a registry host is on
// docker.io (and a one-component name there is under library/). The API's vocabulary: the
// source pulls by it, the reconcile reads whether a reference pins a digest, the signature
// policy matches it. (imageref.ts holds the CRD's CEL rules for the same field.)

/** Why a reference does not parse; src/source reports it as a terminal InvalidReference. */
export class InvalidImageReference extends Error {
  override readonly name = 'InvalidImageReference';
}

export interface ImageReference {
  /** Registry host[:port] as written (docker.io when omitted). */
  registry: string;
  /** Repository path inside the registry, e.g. `library/busybox`. */
  repository: string;
  tag?: string;
  /** `algorithm:hex`; when set it wins over the tag. */
  digest?: string;
}

const component = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const repositoryRe = new RegExp(`^${component}(?:/${component})*$`);
const tagRe = /^[\w][\w.-]{0,127}$/;
const digestRe = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;
const hostRe =
  /^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?$/;

const DOCKER_HUB = 'docker.io';

/** The reference, normalized; throws InvalidImageReference. */
export function parseImageReference(input: string): ImageReference {
  const bad = (why: string) =>
    new InvalidImageReference(`invalid image reference "${input}": ${why}`);
  if (input.length === 0 || input.length > 1000) throw bad('length must be 1 to 1000');
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!digestRe.test(digest)) throw bad('digest must be sha256:<64 hex> or sha512:<128 hex>');
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!tagRe.test(tag)) throw bad('invalid tag');
  }
  let registry = DOCKER_HUB;
  let repository = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (
      first.includes('.') ||
      first.includes(':') ||
      first === 'localhost' ||
      first.startsWith('[')
    ) {
      registry = first;
      repository = rest.slice(slash + 1);
      if (!hostRe.test(registry)) throw bad('invalid registry host');
    }
  }
  if (registry === 'index.docker.io' || registry === 'registry-1.docker.io') registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;
  if (!repositoryRe.test(repository))
    throw bad('invalid repository name (lowercase, [._-] separators)');
  if (tag === undefined && digest === undefined) tag = 'latest';
  return { registry, repository, ...(tag !== undefined && { tag }), ...(digest && { digest }) };
}

/** `registry/repository` — the name that registries.conf prefixes match. */
export function referenceName(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}`;
}

export function formatReference(ref: ImageReference): string {
  const name = referenceName(ref);
  if (ref.digest) return `${name}@${ref.digest}`;
  return `${name}:${ref.tag ?? 'latest'}`;
}

/** The same repository pinned to a digest. */
export function withDigest(ref: ImageReference, digest: string): ImageReference {
  return { registry: ref.registry, repository: ref.repository, digest };
}
