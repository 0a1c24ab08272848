// Pull credentials for the image source: the global pull secret (--global-pull-secret) plus the
// imagePullSecrets of the controller's own ServiceAccount, all of type
// kubernetes.io/dockerconfigjson and read only from the controller's own namespace. Returns each
// secret's .dockerconfigjson text; src/source parses it (src/cmd wires the two).
import type { KubeClient } from './client.js';
import { isNotFound } from './errors.js';
import { Resource } from './resource.js';

interface SecretObject {
  metadata: { name: string };
  type?: string;
  data?: Record<string, string>;
}

interface ServiceAccountObject {
  metadata: { name: string };
  imagePullSecrets?: Array<{ name: string }>;
}

export interface PullSecretOptions {
  /** "namespace/name" of the global pull secret. */
  globalSecret?: string;
  /** The controller's namespace and ServiceAccount. */
  namespace?: string;
  serviceAccount?: string;
}

/** One secret's `.dockerconfigjson`, decoded but not parsed. */
export interface DockerConfigSecret {
  /** "namespace/name", for errors. */
  secret: string;
  json: string;
}

export interface PullSecretReader {
  dockerConfigSecrets(): Promise<DockerConfigSecret[]>;
}

export function pullSecretReader(client: KubeClient, opts: PullSecretOptions): PullSecretReader {
  const secretsIn = (ns: string) =>
    new Resource<SecretObject>(client, {
      group: '',
      version: 'v1',
      plural: 'secrets',
      namespace: ns,
    });
  async function read(ns: string, name: string): Promise<DockerConfigSecret | undefined> {
    try {
      const s = await secretsIn(ns).get(name);
      const data = s.data?.['.dockerconfigjson'];
      if (s.type !== 'kubernetes.io/dockerconfigjson' || !data) return undefined;
      return { secret: `${ns}/${name}`, json: Buffer.from(data, 'base64').toString('utf8') };
    } catch (err) {
      if (isNotFound(err)) return undefined; // a missing secret means anonymous, as kubelet does
      throw new Error(`read pull secret ${ns}/${name}`, { cause: err });
    }
  }
  return {
    async dockerConfigSecrets() {
      const configs: DockerConfigSecret[] = [];
      if (opts.globalSecret) {
        const [ns, name] = opts.globalSecret.split('/');
        if (ns && name) {
          const c = await read(ns, name);
          if (c) configs.push(c);
        }
      }
      if (opts.namespace && opts.serviceAccount) {
        const sas = new Resource<ServiceAccountObject>(client, {
          group: '',
          version: 'v1',
          plural: 'serviceaccounts',
          namespace: opts.namespace,
        });
        let sa: ServiceAccountObject | undefined;
        try {
          sa = await sas.get(opts.serviceAccount);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        for (const ref of sa?.imagePullSecrets ?? []) {
          const c = await read(opts.namespace, ref.name);
          if (c) configs.push(c);
        }
      }
      return configs;
    },
  };
}
