// How a client's content fetches reach the content server, and which servers it trusts (SPEC §4: "our clients trust a CA given by flag"). The
// content server serves HTTPS with a certificate of a private CA (cert-manager's, the OpenShift
// service CA, hack/serving-cert.sh's), which the system roots do not hold: a client is given
// that CA, and its fetches of content verify the server against it (and nothing else).
//
// With a CA, requests go through undici (the library node's own fetch is built on) with an Agent
// whose TLS connections trust only that CA: node's global fetch takes no CA per call. undici is
// loaded on the first such request only, so clients without a CA never load it.
import { readFileSync } from 'node:fs';
import type { KubeClient } from '../kube/client.js';

/** A fetch whose HTTPS connections trust `ca` (PEM, one or more certificates) instead of the system roots. */
export function fetchTrusting(ca: string | Buffer): typeof fetch {
  let loaded: Promise<typeof fetch> | undefined;
  const load = async (): Promise<typeof fetch> => {
    const { Agent, fetch: undiciFetch } = await import('undici');
    const dispatcher = new Agent({ connect: { ca } });
    return (input: string | URL | Request, init?: RequestInit) =>
      undiciFetch(input as Parameters<typeof undiciFetch>[0], {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher,
      });
  };
  return async (input, init) => {
    loaded ??= load();
    return (await loaded)(input, init);
  };
}

/** Reads a CA file given by a flag; a missing or empty file is a one-line Error naming the flag. */
export function readCertificateAuthority(file: string, flag = '--certificate-authority'): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new Error(
      `${flag} ${file}: cannot read it${typeof code === 'string' ? ` (${code})` : ''}`,
      { cause: err },
    );
  }
  if (!pem.toString('latin1').includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`${flag} ${file}: no PEM certificate in it`);
  return pem;
}

/** Error codes of node's TLS verification that mean "the server's certificate is not trusted". */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The reason of a failed TLS verification, in one line, or undefined when the error is not one:
 * e.g. `the server's certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN: self-signed
 * certificate in certificate chain); give its CA with --certificate-authority`.
 */
export function untrustedReason(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e;) {
    if (typeof e.code === 'string' && UNTRUSTED.has(e.code)) {
      const msg = typeof e.message === 'string' ? e.message.split('\n')[0] : '';
      return `the server's certificate is not trusted (${e.code}${msg ? `: ${msg}` : ''}); give its CA with --certificate-authority FILE (the client library's ca option)`;
    }
    e = e.cause as typeof e;
  }
  return undefined;
}

/**
 * The reason of a failed fetch (a blob's, a GraphQL query's): an untrusted certificate said as
 * such (untrustedReason), a timeout as such, else the network error's code (ECONNREFUSED...)
 * when there is one.
 */
export function fetchFailureReason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'no answer in time';
  const untrusted = untrustedReason(err);
  if (untrusted) return untrusted;
  const why = e.cause?.code ?? e.cause?.message;
  return why ? `${e.message} (${why})` : (e.message ?? String(err));
}

// Content reached through the apiserver's service proxy (`kubectl catalog --server-url
// https://APISERVER/api/v1/namespaces/catalogd-system/services/https:catalogd-ts:443/proxy`):
// such a URL is the apiserver's, so it is fetched as the kubeconfig says to reach the apiserver,
// with its CA (certificate-authority(-data)) and its credentials, through the client's
// KubeClient; other URLs go to the content server directly. The apiserver itself dials the
// Service (it does not verify a service's certificate: the kubeconfig's CA is what the client
// trusts on this path).
/** A fetch that sends URLs under the apiserver's URL through `kube`, and others to `direct`. */
export function viaApiserverProxy(
  kube: Pick<KubeClient, 'getResponse'> & { readonly server?: URL },
  direct: typeof fetch,
): typeof fetch {
  return (input, init) => {
    // Read per call: a KubeClient fake of a test may have no server.
    const root = kube.server?.href.replace(/\/+$/, '');
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (root === undefined || !url.startsWith(`${root}/`)) return direct(input, init);
    // The transport reads (GET) through the proxy; anything else must not go out as a GET.
    const method = init?.method ?? 'GET';
    if (method !== 'GET')
      return Promise.reject(
        new Error(
          `the apiserver's service proxy is read with GET only here, not ${method} (a GraphQL query longer than a GET's 8 KiB): port-forward the content server instead`,
        ),
      );
    return kube.getResponse(url.slice(root.length), {
      resource: 'services/proxy',
      ...(init?.signal && { signal: init.signal }),
    });
  };
}
