// A registries.conf-style file (containers-registries.conf(5), the v2 `[[registry]]` tables):
// prefix / location / insecure / blocked, and `[[registry.mirror]]` location / insecure, plus
// `mirror-by-digest-only`. endpointsFor() turns a reference into the ordered list of places to
// try: the mirrors first, then the (possibly rewritten) location.
import { parse as parseToml } from 'smol-toml';
import { terminal } from './errors.js';
import { isLoopbackHost, referenceName, type ImageReference } from './reference.js';

export interface MirrorConfig {
  location: string;
  insecure: boolean;
}

export interface RegistryConfig {
  prefix: string;
  location: string;
  insecure: boolean;
  blocked: boolean;
  mirrorByDigestOnly: boolean;
  mirrors: MirrorConfig[];
}

export interface RegistriesConfig {
  registries: RegistryConfig[];
}

/** One place to fetch a repository from. */
export interface Endpoint {
  /** `https` unless insecure or loopback. */
  scheme: 'http' | 'https';
  host: string;
  repository: string;
  mirror: boolean;
}

export const emptyRegistriesConfig: RegistriesConfig = { registries: [] };

function str(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '')
    throw terminal('InvalidConfig', `registries config: ${what} must be a non-empty string`);
  return v.replace(/\/+$/, '');
}

function bool(v: unknown, what: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean')
    throw terminal('InvalidConfig', `registries config: ${what} must be a boolean`);
  return v;
}

export function parseRegistriesConfig(text: string): RegistriesConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (err) {
    throw terminal('InvalidConfig', 'registries config: invalid TOML', err);
  }
  const raw = doc.registry ?? [];
  if (!Array.isArray(raw))
    throw terminal('InvalidConfig', 'registries config: registry must be an array of tables');
  const registries = raw.map((r: Record<string, unknown>, i): RegistryConfig => {
    const at = `registry[${i}]`;
    const location = r.location === undefined ? undefined : str(r.location, `${at}.location`);
    const prefix = r.prefix === undefined ? location : str(r.prefix, `${at}.prefix`);
    if (prefix === undefined)
      throw terminal('InvalidConfig', `registries config: ${at} needs a prefix or a location`);
    const mirrorsRaw = r.mirror ?? [];
    if (!Array.isArray(mirrorsRaw))
      throw terminal('InvalidConfig', `registries config: ${at}.mirror must be an array`);
    return {
      prefix,
      location: location ?? prefix,
      insecure: bool(r.insecure, `${at}.insecure`),
      blocked: bool(r.blocked, `${at}.blocked`),
      mirrorByDigestOnly: bool(r['mirror-by-digest-only'], `${at}.mirror-by-digest-only`),
      mirrors: mirrorsRaw.map((m: Record<string, unknown>, j) => ({
        location: str(m.location, `${at}.mirror[${j}].location`),
        insecure: bool(m.insecure, `${at}.mirror[${j}].insecure`),
      })),
    };
  });
  return { registries };
}

/** How well prefix matches name: its length, or -1. `*.example.com` matches subdomains' names. */
function matchLength(prefix: string, name: string): number {
  if (prefix.startsWith('*.')) {
    const host = name.slice(0, name.indexOf('/'));
    return host.endsWith(prefix.slice(1)) ? prefix.length : -1;
  }
  if (name === prefix || name.startsWith(prefix + '/')) return prefix.length;
  return -1;
}

function findRegistryConfig(
  conf: RegistriesConfig,
  ref: ImageReference,
): RegistryConfig | undefined {
  const name = referenceName(ref);
  let best: RegistryConfig | undefined;
  let bestLen = -1;
  for (const r of conf.registries) {
    const len = matchLength(r.prefix, name);
    if (len > bestLen) [best, bestLen] = [r, len];
  }
  return best;
}

function endpoint(location: string, insecure: boolean, mirror: boolean): Endpoint {
  const slash = location.indexOf('/');
  const host = slash < 0 ? location : location.slice(0, slash);
  let repository = slash < 0 ? '' : location.slice(slash + 1);
  const apiHost = host === 'docker.io' ? 'registry-1.docker.io' : host;
  if (host === 'docker.io' && repository !== '' && !repository.includes('/'))
    repository = `library/${repository}`;
  return {
    scheme: insecure || isLoopbackHost(host) ? 'http' : 'https',
    host: apiHost,
    repository,
    mirror,
  };
}

/** Where to fetch ref from, in order. Throws a terminal error when the registry is blocked. */
export function endpointsFor(conf: RegistriesConfig, ref: ImageReference): Endpoint[] {
  const name = referenceName(ref);
  const r = findRegistryConfig(conf, ref);
  if (!r) return [endpoint(name, false, false)];
  if (r.blocked)
    throw terminal('InvalidReference', `registry of "${name}" is blocked by the registries config`);
  // The part of the name after the prefix is appended to each location.
  const suffix = r.prefix.startsWith('*.') ? '' : name.slice(r.prefix.length);
  const rewrite = (loc: string) => (r.prefix.startsWith('*.') ? name : loc + suffix);
  const out: Endpoint[] = [];
  if (!r.mirrorByDigestOnly || ref.digest) {
    for (const m of r.mirrors) out.push(endpoint(rewrite(m.location), m.insecure, true));
  }
  out.push(endpoint(rewrite(r.location), r.insecure, false));
  return out;
}
