// Content reached through the apiserver's service proxy (`kubectl catalog --server-url
// https://APISERVER/api/v1/namespaces/catalogd-system/services/https:catalogd-ts:443/proxy`):
// such a URL is the apiserver's, so it is fetched as the kubeconfig says to reach the apiserver,
// with its CA (certificate-authority(-data)) and its credentials, through the client's
// KubeClient; other URLs go to the content server directly. The apiserver itself dials the
// Service (it does not verify a service's certificate: the kubeconfig's CA is what the client
// trusts on this path).
import type { KubeClient } from '../kube/index.js';

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
    return kube.getResponse(url.slice(root.length), {
      resource: 'services/proxy',
      ...(init?.signal && { signal: init.signal }),
    });
  };
}
