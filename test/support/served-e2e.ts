// What the served view's e2e suites (served-view, served-packages, served-front,
// kubectl-catalog-served) share: a controller started with --object-view=served, its API on
// --api-listen with a serving certificate from hack/serving-cert.sh, and (unless told not to)
// registered behind the served group's APIService (served-api.ts); a list of a served collection
// through the apiserver, a watch of it from a resourceVersion, a request to the API without the
// apiserver, and the sample catalog's update.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { getCatalog, writeSampleV2 } from './catalogs.js';
import { repoRoot } from './cluster.js';
import type { RunningController } from './controller.js';
import { startController } from './controller.js';
import { pushAndSync } from './e2e-setup.js';
import { kubectlOk } from './kubectl.js';
import { freePort } from './ports.js';
import { registerServedApi } from './served-api.js';
import type { ServedApiRegistration } from './served-api.js';

const run = promisify(execFile);
/** The namespace of the suites' selector-less Services (served-api.ts). */
const NAMESPACE = 'default';

export interface ServedController {
  controller: RunningController;
  /** PEM of the CA that signed the API's certificate. */
  ca: string;
  /** The API without the aggregation layer: https://127.0.0.1:<port> (the certificate names it). */
  directUrl: string;
  /**
   * Deletes the APIService, its Service and EndpointSlice (when registered), then stops the
   * controller, also when the deletion failed.
   */
  stop(): Promise<void>;
}

/**
 * A serving certificate in `tmp`/certs for the Service `service` of the default namespace (and
 * 127.0.0.1, localhost), a controller serving its API with it on a free port, and, unless
 * `register` is false, that port of this host registered as the served group's backend under
 * `service` (the API then listens on every address: the apiserver connects to a non-loopback one).
 */
export async function startServedController(opts: {
  tmp: string;
  service: string;
  register?: boolean;
}): Promise<ServedController> {
  const register = opts.register ?? true;
  const certs = path.join(opts.tmp, 'certs');
  await run(path.join(repoRoot, 'hack', 'serving-cert.sh'), [
    ...['--out', certs, '--namespace', NAMESPACE, '--service', opts.service, '--no-secret'],
    ...['--days', '2', '--ip', '127.0.0.1', '--dns', 'localhost'],
  ]);
  const ca = await readFile(path.join(certs, 'ca.crt'), 'utf8');
  const port = await freePort();
  const controller = await startController({
    args: [
      '--object-view=served',
      `--api-listen=${register ? '0.0.0.0' : '127.0.0.1'}:${port}`,
      `--tls-cert-file=${certs}/tls.crt`,
      `--tls-key-file=${certs}/tls.key`,
      '--no-metrics-secure',
    ],
  });
  let registration: ServedApiRegistration | undefined;
  if (register) {
    try {
      registration = await registerServedApi({
        port,
        caBundle: ca,
        namespace: NAMESPACE,
        service: opts.service,
      });
    } catch (err) {
      await controller.stop(); // the caller gets nothing to stop
      throw err;
    }
  }
  return {
    controller,
    ca,
    directUrl: `https://127.0.0.1:${port}`,
    async stop() {
      try {
        await registration?.unregister();
      } finally {
        await controller.stop();
      }
    },
  };
}

/**
 * One GET over a new connection trusting `ca` (e.g. ServedController's): its status and body. With
 * `servername`, the certificate is checked for that name (and it is sent as SNI) instead of the
 * URL's host: a pod's IP, say, which a Service's serving certificate does not name.
 */
export function httpsGet(
  url: string,
  ca: string,
  headers: Record<string, string> = {},
  servername?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers, agent: false, ...(servername && { servername }) }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

export interface ServedList<T> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

/** GET of the served collection path `collection` (/apis/...) through the apiserver, with `query`. */
export async function listServed<T>(
  collection: string,
  query: Record<string, string>,
): Promise<ServedList<T>> {
  const q = new URLSearchParams(query).toString();
  return JSON.parse(await kubectlOk(['get', '--raw', `${collection}?${q}`])) as ServedList<T>;
}

/**
 * A watch of `collection` with `labelSelector` from `resourceVersion`, through the apiserver: the
 * events it replays (what changed since), bookmarks left out, in order. The server ends the watch
 * (timeoutSeconds) after the replay.
 */
async function watchFrom<T>(
  collection: string,
  labelSelector: string,
  resourceVersion: string,
): Promise<Array<{ type: string; object: T }>> {
  const q = new URLSearchParams({
    watch: '1',
    labelSelector,
    resourceVersion,
    timeoutSeconds: '3',
  });
  const stream = await kubectlOk(['get', '--raw', `${collection}?${q.toString()}`]);
  return stream
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; object: T })
    .filter((e) => e.type !== 'BOOKMARK');
}

/**
 * The sample catalog's update (writeSampleV2: utility-operator.v0.2.0 added, its channel alpha
 * changed) pushed as catalog `name`'s image; resolves once the catalog serves it.
 */
export async function syncSampleV2(name: string): Promise<ClusterCatalog> {
  const dir = await writeSampleV2();
  try {
    const old = (await getCatalog(name)).status?.contentHash;
    return await pushAndSync(name, dir, `sample-v2:${name}`, { notHash: old });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Catalog `name`'s objects in the served collection `collection` listed (labelSelector
 * catalog=`name`), the sample update synced (syncSampleV2), and a watch from that list's
 * resourceVersion (watchFrom): the list before, the events the watch replays, the list after.
 */
export async function watchSampleV2FromList<T>(
  collection: string,
  name: string,
): Promise<{
  before: ServedList<T>;
  events: Array<{ type: string; object: T }>;
  after: ServedList<T>;
}> {
  const list = () => listServed<T>(collection, { labelSelector: `catalog=${name}` });
  const before = await list();
  const rv = before.metadata.resourceVersion ?? '';
  expect(rv).to.not.equal('');
  await syncSampleV2(name);
  // A watch from the old list's resourceVersion replays what changed since, then ends.
  const events = await watchFrom<T>(collection, `catalog=${name}`, rv);
  return { before, events, after: await list() };
}
