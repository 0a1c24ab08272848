// Where a registry may send the controller's requests. A redirect's target and a Bearer token
// realm are chosen by the registry: followed blindly, they point our GETs at loopback, link-local
// addresses (a cloud's metadata service), the cluster's private network or the apiserver, and
// the kind of error that comes back says what listens there. The rule (docs/source.md,
// "Redirects and token realms"): http or https only, never from https to http, and never to an
// address of a more private class than the registry's own, so that a local registry on
// 127.0.0.1 keeps working while a registry on the internet cannot reach inside. A name is
// resolved before it is judged, and the request then connects to the address judged (DNS cannot
// answer differently in between). Pure but for the resolver, which is injected.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Classes of addresses, from the least private to the most. */
export type AddressClass =
  'public' | 'private' | 'link-local' | 'loopback' | 'unspecified' | 'apiserver';

const RANK: Record<AddressClass, number> = {
  public: 0,
  private: 1,
  'link-local': 2,
  loopback: 3,
  unspecified: 4,
  apiserver: 5,
};

/** Whether a registry on an address of class `registry` may send us to one of class `target`. */
export function mayReach(registry: AddressClass, target: AddressClass): boolean {
  return RANK[target] <= RANK[registry];
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A host name's addresses (dns.lookup: what a connection to it would use). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** An IPv4 address as a 32-bit number; undefined when s is not one. */
function ipv4(s: string): number | undefined {
  if (isIP(s) !== 4) return undefined;
  return s.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** An IPv6 address as its 8 groups (a zone id dropped); undefined when s is not one. */
function ipv6(s: string): number[] | undefined {
  let rest = s.replace(/%.*$/, '');
  if (isIP(rest) !== 6) return undefined;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(rest)?.[1];
  if (dotted !== undefined) {
    const n = ipv4(dotted)!;
    tail.push(n >>> 16, n & 0xffff);
    rest = rest.slice(0, -dotted.length);
    if (!rest.endsWith('::')) rest = rest.slice(0, -1);
  }
  const words = (p: string) => (p === '' ? [] : p.split(':').map((g) => parseInt(g, 16)));
  const gap = rest.indexOf('::');
  if (gap < 0) return [...words(rest), ...tail];
  const left = words(rest.slice(0, gap));
  const right = words(rest.slice(gap + 2));
  const zeros = 8 - left.length - right.length - tail.length;
  return [...left, ...new Array<number>(zeros).fill(0), ...right, ...tail];
}

/** An address in one spelling (an IPv4-mapped IPv6 address as its IPv4); undefined for a name. */
function canonical(host: string): string | undefined {
  const h = bare(host);
  if (ipv4(h) !== undefined) return h;
  const g = ipv6(h);
  if (!g) return undefined;
  const v4 = embeddedIPv4(g);
  if (v4 !== undefined)
    return [v4 >>> 24, (v4 >>> 16) & 0xff, (v4 >>> 8) & 0xff, v4 & 0xff].join('.');
  return g.map((x) => x.toString(16)).join(':');
}

/** The IPv4 address an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) address carries. */
function embeddedIPv4(g: number[]): number | undefined {
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  return mapped || nat64 ? ((g[6]! << 16) | g[7]!) >>> 0 : undefined;
}

function ipv4Class(n: number): AddressClass {
  const a = n >>> 24;
  const b = (n >>> 16) & 0xff;
  if (a === 0) return 'unspecified'; // 0.0.0.0/8: a connection to it reaches this host
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (
    a === 10 ||
    (a === 172 && b >= 16 && b < 32) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b < 128) // shared address space (carrier-grade NAT, some pod networks)
  )
    return 'private';
  return 'public';
}

function ipv6Class(g: number[]): AddressClass {
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  const v4 = embeddedIPv4(g);
  if (v4 !== undefined) return ipv4Class(v4);
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfec0) return 'private'; // ULA, site-local
  return 'public';
}

/** A URL's hostname without IPv6 brackets or a final dot, lower case. */
function bare(host: string): string {
  return host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** The class of an IP address, or of a name by itself (`localhost`); undefined for other names. */
export function literalClass(host: string): AddressClass | undefined {
  const h = bare(host);
  const v4 = ipv4(h);
  if (v4 !== undefined) return ipv4Class(v4);
  const v6 = ipv6(h);
  if (v6) return ipv6Class(v6);
  if (h === 'localhost' || h.endsWith('.localhost')) return 'loopback';
  return undefined;
}

const more = (a: AddressClass, b: AddressClass) => (RANK[b] > RANK[a] ? b : a);
const less = (a: AddressClass, b: AddressClass) => (RANK[b] < RANK[a] ? b : a);

export interface DestinationOptions {
  /**
   * Hosts (names or addresses) of the apiserver: no redirect or token realm may send us there
   * unless the registry itself is on one of them. The controller gives KUBERNETES_SERVICE_HOST
   * and its kubeconfig's server; this layer knows nothing of Kubernetes.
   */
  forbiddenHosts?: readonly string[];
  /** Default: dns.lookup. */
  resolve?: Resolver;
}

export type Refusal = 'scheme' | 'downgrade' | 'class';

export type Verdict =
  | {
      allowed: true;
      /** Where to connect when the target is a name: the address judged. */
      pin?: ResolvedAddress;
    }
  | { allowed: false; why: Refusal };

export interface Move {
  /** The registry the request was for (its origin). */
  registry: URL;
  /** The address the registry answered from, when known (else its host is resolved). */
  registryAddress?: string | undefined;
  /** Where the request was sent: a redirect from https may not go to http. */
  from: URL;
  /** Where the registry sends us. */
  to: URL;
}

export class Destinations {
  private readonly forbidden: string[];
  private readonly resolve: Resolver;

  constructor(opts: DestinationOptions = {}) {
    this.forbidden = (opts.forbiddenHosts ?? []).map(bare).filter((h) => h !== '');
    this.resolve = opts.resolve ?? systemResolver;
  }

  /** Whether the registry may send a request to `to`, and the address to connect to. */
  async judge(move: Move): Promise<Verdict> {
    const { to } = move;
    if (to.protocol !== 'http:' && to.protocol !== 'https:')
      return { allowed: false, why: 'scheme' };
    if (move.from.protocol === 'https:' && to.protocol === 'http:')
      return { allowed: false, why: 'downgrade' };
    const forbidden = await this.forbiddenAddresses();
    const registry = await this.registryClass(move, forbidden);
    const host = bare(to.hostname);
    const literal = canonical(host);
    if (literal !== undefined) {
      const cls = forbidden.has(literal) ? 'apiserver' : literalClass(literal)!;
      return mayReach(registry, cls) ? { allowed: true } : { allowed: false, why: 'class' };
    }
    // A name: every address it resolves to is judged (which one a connection would take is not
    // ours to know), and the connection is made to the first of them.
    let cls: AddressClass = forbidden.has(host) ? 'apiserver' : (literalClass(host) ?? 'public');
    const addresses = await this.resolve(host).catch(() => []);
    if (addresses.length === 0) return { allowed: false, why: 'class' };
    for (const a of addresses) cls = more(cls, this.classOf(a.address, forbidden));
    return mayReach(registry, cls)
      ? { allowed: true, pin: addresses[0]! }
      : { allowed: false, why: 'class' };
  }

  /** The apiserver's names and addresses, its names resolved now. */
  private async forbiddenAddresses(): Promise<Set<string>> {
    const out = new Set<string>();
    for (const h of this.forbidden) {
      out.add(h);
      const c = canonical(h);
      if (c !== undefined) {
        out.add(c);
        continue;
      }
      for (const a of await this.resolve(h).catch(() => []))
        out.add(canonical(a.address) ?? a.address);
    }
    return out;
  }

  private classOf(address: string, forbidden: Set<string>): AddressClass {
    const c = canonical(address);
    if (c === undefined) return 'public';
    return forbidden.has(c) ? 'apiserver' : literalClass(c)!;
  }

  /**
   * The registry's class: of the address that answered, else of its host (its least private
   * address: the benefit of the doubt goes to the target, never to the registry).
   */
  private async registryClass(move: Move, forbidden: Set<string>): Promise<AddressClass> {
    if (move.registryAddress) return this.classOf(move.registryAddress, forbidden);
    const host = bare(move.registry.hostname);
    if (canonical(host) !== undefined) return this.classOf(host, forbidden);
    const named = forbidden.has(host) ? 'apiserver' : literalClass(host);
    const addresses = await this.resolve(host).catch(() => []);
    if (addresses.length === 0) return named ?? 'public';
    let cls: AddressClass = 'apiserver';
    for (const a of addresses) cls = less(cls, this.classOf(a.address, forbidden));
    return named ? more(cls, named) : cls;
  }
}
