// Finding the cluster and its credentials, the way kubectl does, without importing
// @kubernetes/client-node: its generated API models cost a process about 80 MB of RSS
// (42 → 125 MB on Node 24), more than the controller's whole sync of a 50 MB catalog, and the
// controller needs only a server URL, a CA and a client certificate or token.
//
// Handled here: $KUBECONFIG (a list of files, merged as kubectl merges them), ~/.kube/config,
// the in-cluster ServiceAccount, client certificates and keys (file or inline data), bearer
// tokens (inline or tokenFile), basic auth, certificate-authority(-data),
// insecure-skip-tls-verify and tls-server-name. Users with an `exec` plugin or an
// `auth-provider` are handed to client-node, imported only then.
import { load as loadYaml } from 'js-yaml';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What reading a kubeconfig needs from the machine; injected so tests use no files. */
export interface KubeconfigEnv {
  /** Environment variables (KUBECONFIG, KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT). */
  env: Record<string, string | undefined>;
  home: string;
  /** Reads a file; undefined when it does not exist. */
  readFile(file: string): Buffer | undefined;
  /** Directory of the in-cluster ServiceAccount files (token, ca.crt, namespace). */
  serviceAccountDir?: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface ClientCredentials {
  cert?: Buffer;
  key?: Buffer;
  headers: Record<string, string>;
}

/** The selected cluster and user, ready to dial. */
export interface ClusterConnection {
  server: URL;
  /** The context's namespace (or the ServiceAccount's, in a cluster). */
  namespace?: string;
  ca?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
  /** Where the user came from, for errors: `kubeconfig <files> context <name>` or `in-cluster`. */
  source: string;
  /**
   * The user's credentials now. Token files are re-read on every call (rotated ServiceAccount
   * tokens); callers cache for a while.
   */
  credentials(): Promise<ClientCredentials>;
}

export interface NamedEntry<T> {
  name: string;
  value: T;
  /** Directory of the file that defined it: relative paths are relative to it. */
  dir: string;
}

interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

export interface UserEntry {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: unknown;
  'auth-provider'?: unknown;
}

interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** Several kubeconfig files merged: the first file to define a name or current-context wins. */
export interface Kubeconfig {
  files: string[];
  currentContext?: string;
  clusters: Map<string, NamedEntry<ClusterEntry>>;
  users: Map<string, NamedEntry<UserEntry>>;
  contexts: Map<string, NamedEntry<ContextEntry>>;
}

export class KubeconfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeconfigError';
  }
}

/** Parses and merges kubeconfig files (kubectl's rules: first definition wins). */
export function mergeKubeconfigs(files: Array<{ file: string; text: string }>): Kubeconfig {
  const merged: Kubeconfig = {
    files: files.map((f) => f.file),
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const { file, text } of files) {
    let doc: unknown;
    try {
      doc = loadYaml(text);
    } catch (cause) {
      throw new KubeconfigError(`kubeconfig ${file}: not valid YAML`, { cause });
    }
    if (doc === undefined || doc === null) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) {
      throw new KubeconfigError(`kubeconfig ${file}: not a mapping`);
    }
    const d = doc as Record<string, unknown>;
    const dir = path.dirname(path.resolve(file));
    if (merged.currentContext === undefined && typeof d['current-context'] === 'string') {
      if (d['current-context'] !== '') merged.currentContext = d['current-context'];
    }
    addNamed(merged.clusters, d.clusters, 'cluster', file, dir);
    addNamed(merged.users, d.users, 'user', file, dir);
    addNamed(merged.contexts, d.contexts, 'context', file, dir);
  }
  return merged;
}

function addNamed<T>(
  into: Map<string, NamedEntry<T>>,
  list: unknown,
  field: string,
  file: string,
  dir: string,
): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list))
    throw new KubeconfigError(`kubeconfig ${file}: ${field}s is not a list`);
  for (const item of list as Array<Record<string, unknown>>) {
    const name = item?.name;
    if (typeof name !== 'string') {
      throw new KubeconfigError(`kubeconfig ${file}: a ${field} has no name`);
    }
    if (into.has(name)) continue;
    const value = (item[field] ?? {}) as T;
    if (typeof value !== 'object') {
      throw new KubeconfigError(`kubeconfig ${file}: ${field} ${name} is not a mapping`);
    }
    into.set(name, { name, value, dir });
  }
}

/** The files to read: $KUBECONFIG's list, else ~/.kube/config; explicit path wins over both. */
function kubeconfigFiles(explicit: string | undefined, env: KubeconfigEnv): string[] {
  if (explicit) return [explicit];
  const list = (env.env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
  if (list.length > 0) return [...new Set(list)];
  return [path.join(env.home, '.kube', 'config')];
}

/**
 * Loads the connection: the explicit file, else $KUBECONFIG, else ~/.kube/config, else the
 * in-cluster ServiceAccount. Throws KubeconfigError naming what is missing.
 */
export function loadConnection(
  explicit: string | undefined,
  env: KubeconfigEnv,
  delegate: (user: NamedEntry<UserEntry>, context: string) => Promise<ClientCredentials>,
): ClusterConnection {
  const files = kubeconfigFiles(explicit, env);
  const found: Array<{ file: string; text: string }> = [];
  for (const file of files) {
    const data = env.readFile(file);
    if (data === undefined) {
      // kubectl skips missing files of $KUBECONFIG, but a file named by the flag must exist.
      if (explicit) throw new KubeconfigError(`kubeconfig ${file}: no such file`);
      continue;
    }
    found.push({ file, text: data.toString('utf8') });
  }
  if (found.length === 0) {
    const inCluster = inClusterConnection(env);
    if (inCluster) return inCluster;
    throw new KubeconfigError(
      `no kubeconfig (looked for ${files.join(', ')}) and not running in a cluster ` +
        '(KUBERNETES_SERVICE_HOST is not set): pass --kubeconfig or set KUBECONFIG',
    );
  }
  return connectionFromKubeconfig(mergeKubeconfigs(found), env, delegate);
}

/** The connection of the merged kubeconfig's current context. */
function connectionFromKubeconfig(
  config: Kubeconfig,
  env: KubeconfigEnv,
  delegate: (user: NamedEntry<UserEntry>, context: string) => Promise<ClientCredentials>,
): ClusterConnection {
  const where = `kubeconfig ${config.files.join(path.delimiter)}`;
  const contextName = config.currentContext;
  if (contextName === undefined) throw new KubeconfigError(`${where}: current-context is not set`);
  const context = config.contexts.get(contextName);
  if (!context) throw new KubeconfigError(`${where}: context ${contextName} not found`);
  const clusterName = context.value.cluster ?? '';
  const cluster = config.clusters.get(clusterName);
  if (!cluster) {
    throw new KubeconfigError(
      `${where}: cluster ${clusterName} of context ${contextName} not found`,
    );
  }
  const c = cluster.value;
  if (!c.server) throw new KubeconfigError(`${where}: cluster ${clusterName} has no server`);
  let server: URL;
  try {
    server = new URL(c.server);
  } catch (cause) {
    throw new KubeconfigError(`${where}: cluster ${clusterName}: server is not a URL`, { cause });
  }
  const userName = context.value.user;
  const user = userName === undefined ? undefined : config.users.get(userName);
  if (userName !== undefined && userName !== '' && !user) {
    throw new KubeconfigError(`${where}: user ${userName} of context ${contextName} not found`);
  }
  const source = `${where} context ${contextName}`;
  const ca = c['certificate-authority-data']
    ? Buffer.from(c['certificate-authority-data'], 'base64')
    : c['certificate-authority']
      ? mustRead(env, cluster.dir, c['certificate-authority'], `${source}: certificate-authority`)
      : undefined;
  return {
    server,
    ...(context.value.namespace && { namespace: context.value.namespace }),
    ...(ca && { ca }),
    rejectUnauthorized: c['insecure-skip-tls-verify'] !== true,
    ...(c['tls-server-name'] && { servername: c['tls-server-name'] }),
    source,
    credentials: () =>
      user ? userCredentials(user, env, source, () => delegate(user, contextName)) : none(),
  };
}

const none = async (): Promise<ClientCredentials> => ({ headers: {} });

/** A user's credentials from its fields; exec and auth-provider go to the delegate. */
async function userCredentials(
  user: NamedEntry<UserEntry>,
  env: KubeconfigEnv,
  source: string,
  delegate: () => Promise<ClientCredentials>,
): Promise<ClientCredentials> {
  const u = user.value;
  if (u.exec !== undefined || u['auth-provider'] !== undefined) return delegate();
  const what = `${source}: user ${user.name}`;
  const cert = u['client-certificate-data']
    ? Buffer.from(u['client-certificate-data'], 'base64')
    : u['client-certificate']
      ? mustRead(env, user.dir, u['client-certificate'], `${what}: client-certificate`)
      : undefined;
  const key = u['client-key-data']
    ? Buffer.from(u['client-key-data'], 'base64')
    : u['client-key']
      ? mustRead(env, user.dir, u['client-key'], `${what}: client-key`)
      : undefined;
  if ((cert === undefined) !== (key === undefined)) {
    throw new KubeconfigError(`${what}: a client certificate needs both certificate and key`);
  }
  const headers: Record<string, string> = {};
  const token = u.token
    ? u.token
    : u.tokenFile
      ? mustRead(env, user.dir, u.tokenFile, `${what}: tokenFile`).toString('utf8').trim()
      : undefined;
  if (token) headers.authorization = `Bearer ${token}`;
  else if (u.username !== undefined || u.password !== undefined) {
    const basic = Buffer.from(`${u.username ?? ''}:${u.password ?? ''}`).toString('base64');
    headers.authorization = `Basic ${basic}`;
  }
  return { ...(cert && { cert }), ...(key && { key }), headers };
}

/** The in-cluster connection (ServiceAccount token and CA), or undefined outside a cluster. */
function inClusterConnection(env: KubeconfigEnv): ClusterConnection | undefined {
  const host = env.env.KUBERNETES_SERVICE_HOST;
  const port = env.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const dir = env.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const source = 'in-cluster ServiceAccount';
  const ca = env.readFile(path.join(dir, 'ca.crt'));
  const namespace = env.readFile(path.join(dir, 'namespace'))?.toString('utf8').trim();
  return {
    server: new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`),
    ...(namespace && { namespace }),
    ...(ca && { ca }),
    rejectUnauthorized: true,
    source,
    credentials: async () => {
      const token = mustRead(env, dir, 'token', `${source}: token`).toString('utf8').trim();
      return { headers: { authorization: `Bearer ${token}` } };
    },
  };
}

function mustRead(env: KubeconfigEnv, dir: string, file: string, what: string): Buffer {
  const full = path.resolve(dir, file);
  const data = env.readFile(full);
  if (data === undefined) throw new KubeconfigError(`${what}: ${full}: no such file`);
  return data;
}

/** The real machine: process.env, the home directory, files read synchronously. */
export function machineKubeconfigEnv(): KubeconfigEnv {
  return {
    env: process.env,
    home: os.homedir(),
    readFile: (file) => {
      try {
        return fs.readFileSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
  };
}
