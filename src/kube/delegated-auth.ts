// Users whose credentials come from an `exec` plugin or an `auth-provider` (cloud CLIs, OIDC):
// @kubernetes/client-node runs them. Imported only for such a user, because loading
// client-node costs the process about 80 MB (see kubeconfig.ts).
import type { KubeConfig } from '@kubernetes/client-node';
import type https from 'node:https';
import type { ClientCredentials } from './kubeconfig.js';

/** Credentials of context `contextName` from client-node; one KubeConfig, so its caches hold. */
export function clientNodeCredentials(
  explicit: string | undefined,
): (contextName: string) => Promise<ClientCredentials> {
  let config: Promise<KubeConfig> | undefined;
  return async (contextName) => {
    config ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      if (explicit) kc.loadFromFile(explicit);
      else kc.loadFromDefault();
      return kc;
    });
    const kc = await config;
    kc.setCurrentContext(contextName);
    const opts: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (typeof v === 'string') headers[k.toLowerCase()] = v;
    }
    return {
      ...(opts.cert !== undefined && { cert: Buffer.from(opts.cert as string | Buffer) }),
      ...(opts.key !== undefined && { key: Buffer.from(opts.key as string | Buffer) }),
      headers,
    };
  };
}
