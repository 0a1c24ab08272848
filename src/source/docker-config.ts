// Registry credentials from Secrets of type kubernetes.io/dockerconfigjson (the `.dockerconfigjson`
// key): parsing, and lookup by registry host (and optional repository path prefix), as the
// kubelet does. PullSecretSource is the narrow interface the controller wires to the Kubernetes API.
import { terminal } from './errors.js';

export interface DockerConfigJSON {
  auths?: Record<string, DockerAuthEntry>;
}

export interface DockerAuthEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
}

export interface Credentials {
  username: string;
  password: string;
}

/** Supplies the docker configs to try, in order (global pull secret first, then the SA's). */
export interface PullSecretSource {
  dockerConfigs(): Promise<DockerConfigJSON[]>;
}

export const noPullSecrets: PullSecretSource = { dockerConfigs: async () => [] };

/** Parses the `.dockerconfigjson` value of a Secret (already base64-decoded). */
export function parseDockerConfigJSON(text: string): DockerConfigJSON {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // Not the parser's error as a cause: its message quotes the secret.
    throw terminal('InvalidConfig', 'pull secret: .dockerconfigjson is not valid JSON');
  }
  if (typeof doc !== 'object' || doc === null)
    throw terminal('InvalidConfig', 'pull secret: .dockerconfigjson must be an object');
  const auths = (doc as { auths?: unknown }).auths;
  if (auths !== undefined && (typeof auths !== 'object' || auths === null))
    throw terminal('InvalidConfig', 'pull secret: auths must be an object');
  return { auths: (auths ?? {}) as Record<string, DockerAuthEntry> };
}

function entryCredentials(e: DockerAuthEntry): Credentials | undefined {
  if (e.username !== undefined && e.password !== undefined)
    return { username: e.username, password: e.password };
  if (e.auth) {
    const decoded = Buffer.from(e.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (e.identitytoken) return { username: '<token>', password: e.identitytoken };
  return undefined;
}

const hubAliases = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** Splits a config key (`https://host:port/path/`, `host`, `*.example.com`) into host and path. */
function splitKey(key: string): { host: string; path: string } {
  let k = key.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  if (k.endsWith('/v1') || k.endsWith('/v2')) k = k.slice(0, -3);
  const slash = k.indexOf('/');
  const host = (slash < 0 ? k : k.slice(0, slash)).toLowerCase();
  return {
    host: hubAliases.has(host) ? 'docker.io' : host,
    path: slash < 0 ? '' : k.slice(slash + 1),
  };
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === host) return true;
  if (!pattern.includes('*')) return false;
  const [pp, hp] = [pattern.split('.'), host.split('.')];
  if (pp.length !== hp.length) return false;
  return pp.every((p, i) => p === '*' || p === hp[i]);
}

/**
 * Credentials for `host/repository` from the configs, first config with a match wins; inside a
 * config the most specific key (longest path prefix) wins.
 */
export function findCredentials(
  configs: DockerConfigJSON[],
  host: string,
  repository: string,
): Credentials | undefined {
  const h = hubAliases.has(host.toLowerCase()) ? 'docker.io' : host.toLowerCase();
  for (const config of configs) {
    let best: { len: number; creds: Credentials } | undefined;
    for (const [key, entry] of Object.entries(config.auths ?? {})) {
      const k = splitKey(key);
      if (!hostMatches(k.host, h)) continue;
      if (k.path && repository !== k.path && !repository.startsWith(k.path + '/')) continue;
      const creds = entryCredentials(entry);
      if (creds && (!best || k.path.length > best.len)) best = { len: k.path.length, creds };
    }
    if (best) return best.creds;
  }
  return undefined;
}
