// The two servers hack/graphql-compare.ts asks: catalogd-ts's content server with its GraphQL
// endpoint, in this process, over each catalog's revision built from its FBC directory (as the
// controller builds it); and upstream catalogd v1.11 (GraphQLCatalogQueries on) beside the local
// cluster, syncing the same directories pushed as images to the local registry.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Api } from '../../bench/lib/api.js';
import {
  UPSTREAM_GRAPHQL_CRD,
  allowInsecureRegistry,
  selfSignedCert,
  serviceAccountFiles,
  startUpstream,
  upstreamGraphqlBinary,
} from '../../bench/lib/upstream.js';
import { CatalogHasher, readCatalog } from '../../src/fbc/index.js';
import { createGraphqlEndpoint } from '../../src/graphql/index.js';
import { ContentStore, startContentServer } from '../../src/server/index.js';
import { pushCatalog } from '../../src/source/index.js';
import { readClusterEnv, repoRoot } from '../../test/support/cluster.js';
import { pollUntil } from '../../test/support/poll.js';
import type { Answer } from './compare.js';

/** A catalog to serve: its name on both sides and its FBC directory. */
export interface CatalogDir {
  name: string;
  dir: string;
}

export interface Side {
  /** The serving process, when it is not this one. */
  pid?: number;
  /** The certificate to trust for its https URLs. */
  ca?: Buffer;
  /** The GraphQL URL of catalog `name`. */
  url(name: string): string;
  send(url: string, method: 'POST' | 'GET', body: string | undefined): Promise<Answer>;
  close(): Promise<void>;
}

/** One request, the answer read whole (`ca`: trust that certificate for https). */
export function request(
  url: string,
  method: 'POST' | 'GET',
  body: string | undefined,
  ca?: Buffer,
): Promise<Answer> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      u,
      {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(ca && { ca }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** catalogd-ts's content server with the GraphQL endpoint, over revisions built here. */
export async function startOurs(catalogs: CatalogDir[]): Promise<Side> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'graphql-compare-'));
  const store = new ContentStore(path.join(root, 'store'), { graceMs: 0 });
  for (const { name, dir } of catalogs) {
    const hasher = new CatalogHasher();
    for await (const b of readCatalog(dir, { catalog: name })) hasher.add(b.hash);
    const contentHash = hasher.digest();
    await store.buildRevision(name, contentHash, readCatalog(dir, { catalog: name }));
    await store.activate(name, contentHash, new Date(0));
  }
  const server = await startContentServer({ store, graphql: createGraphqlEndpoint() });
  return {
    url: (name) => `${server.url}/catalogs/${name}/api/v1/graphql`,
    send: (url, method, body) => request(url, method, body),
    async close() {
      await server.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

const CRD = 'clustercatalogs.olm.operatorframework.io';

function kubectl(args: string[], input?: string): string {
  return execFileSync('kubectl', args, {
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * Replaces the ClusterCatalog CRD with `file`'s. Deleting the old one deletes its catalogs; a
 * finalizer left by a controller no longer running would hold that forever, so they are cleared.
 */
export function replaceCrd(file: string): void {
  const left = kubectl(['get', 'clustercatalogs', '-o', 'name', '--ignore-not-found']);
  for (const c of left.split('\n').filter(Boolean))
    kubectl(['patch', c, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  kubectl(['delete', 'crd', CRD, '--ignore-not-found', '--wait=true']);
  kubectl(['apply', '--server-side', '--force-conflicts', '-f', file]);
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${CRD}`]);
}

/**
 * The local cluster's environment (.local/env: `make cluster-up`) put in this process's, so
 * that kubectl and the pusher find the apiserver and registry.
 */
export function useLocalCluster(): { kubeconfig: string; registry: string } {
  const env = readClusterEnv();
  process.env.KUBECONFIG = env.KUBECONFIG;
  process.env.REGISTRY = env.REGISTRY;
  process.env.PATH = `${env.KUBE_BIN_DIR}:${process.env.PATH}`;
  return { kubeconfig: env.KUBECONFIG, registry: env.REGISTRY };
}

/**
 * Upstream catalogd v1.11 with GraphQLCatalogQueries (and the metas handler) on, its CRD in
 * place of ours, each directory pushed and a ClusterCatalog for it Serving. close() stops it,
 * deletes the CRD (and so the catalogs) and puts ours back.
 */
export async function startUpstreamSide(
  catalogs: CatalogDir[],
  log: (s: string) => void,
): Promise<Side> {
  const { kubeconfig, registry } = useLocalCluster();
  const binary = upstreamGraphqlBinary();
  const work = await mkdtemp(path.join(os.tmpdir(), 'graphql-compare-upstream-'));
  await allowInsecureRegistry(binary, registry);
  const tls = selfSignedCert(work);
  const ca = readFileSync(tls.cert);
  const saDir = await serviceAccountFiles(Api.fromKubeconfig(kubeconfig), work);
  replaceCrd(UPSTREAM_GRAPHQL_CRD);
  const upstream = await startUpstream({
    binDir: path.dirname(binary),
    binary,
    kubeconfig,
    logDir: work,
    serviceAccountDir: saDir,
    tls,
    featureGates: 'APIV1MetasHandler=true,GraphQLCatalogQueries=true',
    registriesConf: path.join(path.dirname(binary), 'registries.conf'),
  });
  log(`upstream catalogd v1.11 on ${upstream.contentAddr} (log ${upstream.logFile})`);
  try {
    for (const { name, dir } of catalogs) {
      const { ref } = await pushCatalog(dir, `${registry}/graphql-compare/${name}:latest`);
      kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterCatalog',
          metadata: { name },
          spec: { source: { type: 'Image', image: { ref } } },
        }),
      );
    }
    for (const { name } of catalogs)
      await pollUntil(
        () => {
          const c = JSON.parse(kubectl(['get', 'clustercatalog', name, '-o', 'json'])) as {
            status?: { conditions?: Array<{ type: string; status: string }> };
          };
          return Promise.resolve(
            c.status?.conditions?.some((x) => x.type === 'Serving' && x.status === 'True'),
          );
        },
        { timeoutMs: 600_000, intervalMs: 1000, what: `upstream serving ${name}` },
      );
  } catch (err) {
    await upstream.stop();
    throw err;
  }
  return {
    pid: upstream.pid,
    ca,
    url: (name) => `https://${upstream.contentAddr}/catalogs/${name}/api/v1/graphql`,
    send: (url, method, body) => request(url, method, body, ca),
    async close() {
      // Deleted while upstream runs: it removes its finalizers (and its files).
      for (const { name } of catalogs) kubectl(['delete', 'clustercatalog', name, '--wait=true']);
      await upstream.stop();
      replaceCrd(path.join(repoRoot, 'crds', 'olm.operatorframework.io_clustercatalogs.yaml'));
      await rm(work, { recursive: true, force: true });
    },
  };
}
