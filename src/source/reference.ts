// Image references, parsed and normalized as Docker does: `name[:tag][@digest]`, where a name
// without a registry host is on docker.io (and a one-component name there is under library/).
import { terminal } from './errors.js';

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

export function parseReference(input: string): ImageReference {
  const bad = (why: string) =>
    terminal('InvalidReference', `invalid image reference "${input}": ${why}`);
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

/** Whether a registry host is a loopback address, reached over plain HTTP as Docker does. */
export function isLoopbackHost(hostPort: string): boolean {
  let host = hostPort;
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']'));
  else if (host.includes(':')) host = host.slice(0, host.lastIndexOf(':'));
  host = host.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
