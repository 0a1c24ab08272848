// Requestheader authentication, as Kubernetes' aggregated apiservers do it
// (k8s.io/apiserver pkg/authentication/request/headerrequest, x509): the kube-apiserver's front
// proxy connects with a client certificate signed by the front-proxy client CA and names the
// user in request headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-*). The headers are
// trusted only when that certificate verifies against the CA and its CN is one of the allowed
// names (any CN when the list is empty); else the request has no user (401). The CA, names and
// header names come from kube-system/extension-apiserver-authentication (requestheader-config.ts)
// and are replaced when it changes (setConfig).
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '../ports.js';

export interface RequestHeaderConfig {
  /** The front-proxy client CA bundle (PEM): requestheader-client-ca-file. */
  clientCA: string;
  /** CNs the front proxy's certificate may have; empty: any (requestheader-allowed-names). */
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export class RequestHeaderConfigError extends Error {
  override name = 'RequestHeaderConfigError';
}

/** Why a request has no user, for the log (the client gets 401 Unauthorized only). */
export type Unauthenticated = { user?: undefined; reason: string };
export type Authentication = { user: UserInfo; reason?: undefined } | Unauthenticated;

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';

/** The certificates of a PEM bundle; a bundle with none is a RequestHeaderConfigError. */
export function parseCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      certs.push(new X509Certificate(block));
    } catch {
      throw new RequestHeaderConfigError(
        'the front-proxy client CA bundle holds a certificate that cannot be read',
      );
    }
  }
  if (certs.length === 0)
    throw new RequestHeaderConfigError('the front-proxy client CA bundle holds no certificate');
  return certs;
}

/** Each TLS connection's presented chain, read once: it does not change for the connection. */
const chains = new WeakMap<TLSSocket, X509Certificate[]>();

/**
 * The certificate chain a TLS client presented, leaf first (empty without one); read once per
 * connection (the same array for each of its requests).
 */
export function peerChain(socket: TLSSocket): X509Certificate[] {
  let chain = chains.get(socket);
  if (!chain) chains.set(socket, (chain = readPeerChain(socket)));
  return chain;
}

function readPeerChain(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  let cert = socket.getPeerCertificate(true);
  const seen = new Set<object>();
  while (cert?.raw && !seen.has(cert) && chain.length < 10) {
    seen.add(cert);
    chain.push(new X509Certificate(cert.raw));
    cert = cert.issuerCertificate;
  }
  return chain;
}

/** The subject's common name (its last CN, as Go's pkix.Name.CommonName). */
export function commonName(cert: X509Certificate): string {
  const cns = cert.subject
    .split('\n')
    .filter((l) => l.startsWith('CN='))
    .map((l) => l.slice(3));
  return cns[cns.length - 1] ?? '';
}

function validAt(cert: X509Certificate, now: Date): boolean {
  return new Date(cert.validFrom) <= now && now <= new Date(cert.validTo);
}

const signedBy = (cert: X509Certificate, issuer: X509Certificate): boolean =>
  cert.checkIssued(issuer) && cert.verify(issuer.publicKey);

/**
 * What of verifying a chain does not depend on the time: the leaf's usage, and the path the
 * signatures take from the leaf (each certificate signed by the next presented CA) to the root
 * of the bundle that signed the path's last, if any.
 */
interface ChainWalk {
  refused?: string;
  path: X509Certificate[];
  root?: X509Certificate;
}

function walkChain(chain: X509Certificate[], roots: X509Certificate[]): ChainWalk {
  const leaf = chain[0];
  if (!leaf) return { refused: 'no client certificate', path: [] };
  const usages = leaf.keyUsage as string[] | undefined;
  if (usages && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_EXTENDED_KEY_USAGE))
    return { refused: 'the client certificate is not for client authentication', path: [] };
  const path: X509Certificate[] = [];
  let current = leaf;
  for (let depth = 0; depth < chain.length; depth++) {
    path.push(current);
    const root = roots.find((r) => signedBy(current, r));
    if (root) return { path, root };
    const next = chain.find((c, i) => i > depth && c.ca && signedBy(current, c));
    if (!next) break;
    current = next;
  }
  return { path };
}

/** A walked chain at `now`: each certificate on the path and the root must be valid then. */
function verifyWalk(walk: ChainWalk, now: Date): string | undefined {
  if (walk.refused) return walk.refused;
  for (const cert of walk.path)
    if (!validAt(cert, now))
      return `certificate ${JSON.stringify(commonName(cert))} is not valid now`;
  if (!walk.root) return 'the client certificate is not signed by the front-proxy client CA';
  return validAt(walk.root, now) ? undefined : 'the front-proxy client CA is not valid now';
}

/**
 * Verifies a presented chain (leaf first) against the CA bundle at `now`: the leaf is for client
 * authentication, and each certificate is signed by the next presented CA up to one of the
 * bundle's. Returns why not, or undefined when it verifies.
 */
export function verifyClientChain(
  chain: X509Certificate[],
  roots: X509Certificate[],
  now: Date,
): string | undefined {
  return verifyWalk(walkChain(chain, roots), now);
}

/** Values of the named headers, non-empty ones, in header order (Go's allHeaderValues). */
function allValues(headers: Partial<Record<string, string[]>>, names: string[]): string[] {
  return names.flatMap((n) => (headers[n.toLowerCase()] ?? []).filter((v) => v !== ''));
}

/** The first non-empty value of the first named header that has one (Go's headerValue). */
function firstValue(
  headers: Partial<Record<string, string[]>>,
  names: string[],
): string | undefined {
  for (const n of names) {
    const v = headers[n.toLowerCase()]?.[0];
    if (v) return v;
  }
  return undefined;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** The user the headers name (undefined without a user name), as headerrequest reads them. */
export function userFromHeaders(
  headers: Partial<Record<string, string[]>>,
  config: Pick<
    RequestHeaderConfig,
    'usernameHeaders' | 'uidHeaders' | 'groupHeaders' | 'extraHeaderPrefixes'
  >,
): UserInfo | undefined {
  const name = firstValue(headers, config.usernameHeaders);
  if (!name) return undefined;
  const uid = firstValue(headers, config.uidHeaders);
  const extra: Record<string, string[]> = {};
  for (const prefix of config.extraHeaderPrefixes) {
    const p = prefix.toLowerCase();
    for (const [header, values] of Object.entries(headers)) {
      if (!header.startsWith(p)) continue;
      const key = unescapeExtraKey(header.slice(p.length));
      (extra[key] ??= []).push(...(values ?? []));
    }
  }
  // As the apiserver's AuthenticatedGroupAdder does for every authenticated user: RBAC's
  // system:discovery and system:basic-user bind this group (the aggregator fetches /openapi as
  // system:aggregator with no group of its own).
  const groups = allValues(headers, config.groupHeaders);
  if (!groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  return { name, ...(uid && { uid }), groups, extra };
}

/** The group every authenticated user is in (k8s.io/apiserver user.AllAuthenticated). */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** The front's authenticator; setConfig replaces what the ConfigMap says. */
export class RequestHeaderAuthenticator {
  private config: (RequestHeaderConfig & { roots: X509Certificate[] }) | undefined;
  /**
   * Each chain's signature walk (peerChain gives a connection's requests the same array), for
   * the roots it was walked against: only the validity times are checked per request.
   */
  private walks = new WeakMap<X509Certificate[], { roots: X509Certificate[]; walk: ChainWalk }>();

  /** Throws a RequestHeaderConfigError for a CA bundle that cannot be read (the previous stays). */
  setConfig(config: RequestHeaderConfig | undefined): void {
    this.config = config && { ...config, roots: parseCertificates(config.clientCA) };
  }

  /** The CA bundle (PEM) the TLS handshake asks client certificates of, if any. */
  clientCA(): string | undefined {
    return this.config?.clientCA;
  }

  /**
   * The user of a request whose client presented `chain` (leaf first): the headers are read only
   * when the chain verifies and its CN is allowed.
   */
  authenticate(
    chain: X509Certificate[],
    headers: Partial<Record<string, string[]>>,
    now: Date,
  ): Authentication {
    const config = this.config;
    if (!config) return { reason: 'no front-proxy client CA (extension-apiserver-authentication)' };
    let cached = this.walks.get(chain);
    if (cached?.roots !== config.roots) {
      cached = { roots: config.roots, walk: walkChain(chain, config.roots) };
      this.walks.set(chain, cached);
    }
    const refused = verifyWalk(cached.walk, now);
    if (refused) return { reason: refused };
    const cn = commonName(chain[0] as X509Certificate);
    if (config.allowedNames.length > 0 && !config.allowedNames.includes(cn))
      return {
        reason: `the front-proxy certificate's CN ${JSON.stringify(cn)} is not an allowed name`,
      };
    const user = userFromHeaders(headers, config);
    if (!user) return { reason: 'the front proxy named no user' };
    return { user };
  }

  /** Removes the user headers before the request goes on (as ClearAuthenticationHeaders). */
  clearHeaders(req: IncomingMessage): void {
    const config = this.config;
    if (!config) return;
    const exact = [...config.usernameHeaders, ...config.uidHeaders, ...config.groupHeaders].map(
      (h) => h.toLowerCase(),
    );
    const prefixes = config.extraHeaderPrefixes.map((p) => p.toLowerCase());
    for (const headers of [req.headers, req.headersDistinct] as Array<Record<string, unknown>>)
      for (const h of Object.keys(headers))
        if (exact.includes(h) || prefixes.some((p) => h.startsWith(p))) delete headers[h];
  }
}
