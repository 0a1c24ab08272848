// ClusterCatalogs and their objects as the bench drives them: create, watch until synced,
// count, delete; the render output the raw client and kubectl apply send; an incremental change.
import { spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { GROUP, VERSION } from '../../src/api/v1/index.js';
import { mapBounded } from '../../src/util/limits.js';
import type { Api } from './api.js';
import { CC, CM } from './api.js';
import { apiserverPostSeconds } from './cluster.js';
import { ROOT, round } from './config.js';

// ---------- catalogs ----------

export function catalogObject(name: string, ref: string) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref } } },
  };
}

/**
 * A ClusterCatalog for a baseline's objects to be owned by, as the controller's are. No
 * controller runs during the baselines, so nothing reconciles it.
 */
export async function ownerCatalog(
  api: Api,
  name: string,
  ref: string,
): Promise<{ name: string; uid: string }> {
  const o = await api.json<{ metadata: { uid: string } }>('POST', CC, catalogObject(name, ref));
  return { name, uid: o.metadata.uid };
}

export interface CatalogState {
  generation?: number;
  conditions: Array<{
    type: string;
    status?: string;
    reason?: string;
    observedGeneration?: number;
    message?: string;
  }>;
  syncingTo?: string;
  contentHash?: string;
  objectCount?: number;
  resolvedRef?: string;
}

export function stateOf(o: { metadata: { generation?: number }; status?: unknown }): CatalogState {
  const st = (o.status ?? {}) as {
    conditions?: CatalogState['conditions'];
    syncingTo?: string;
    contentHash?: string;
    objectCount?: number;
    resolvedSource?: { image?: { ref?: string } };
  };
  return {
    ...(o.metadata.generation !== undefined && { generation: o.metadata.generation }),
    conditions: st.conditions ?? [],
    ...(st.syncingTo && { syncingTo: st.syncingTo }),
    ...(st.contentHash && { contentHash: st.contentHash }),
    ...(st.objectCount !== undefined && { objectCount: st.objectCount }),
    ...(st.resolvedSource?.image?.ref && { resolvedRef: st.resolvedSource.image.ref }),
  };
}

export function succeeded(s: CatalogState, wantRef?: string): boolean {
  const p = s.conditions.find((c) => c.type === 'Progressing');
  // The objects' view (ours): the revision is served (Progressing) and its objects written.
  const objects = s.conditions.find((c) => c.type === 'ObjectsSynced');
  return (
    p?.reason === 'Succeeded' &&
    p.observedGeneration === s.generation &&
    objects?.status === 'True' &&
    objects.observedGeneration === s.generation &&
    s.contentHash !== undefined &&
    !s.syncingTo &&
    (wantRef === undefined || s.resolvedRef === wantRef)
  );
}

/** Watches one ClusterCatalog, remembering when the write phase started and when it succeeded. */
export function catalogWatch(api: Api, name: string) {
  let state: CatalogState | undefined;
  let writingAt: number | undefined;
  const waiters: Array<() => void> = [];
  const w = api.watch(`${CC}?fieldSelector=metadata.name%3D${name}`, (e, at) => {
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
    state = stateOf(e.object);
    if (state.syncingTo && writingAt === undefined) writingAt = at;
    for (const f of waiters.splice(0)) f();
  });
  return {
    get writingAt() {
      return writingAt;
    },
    resetWriting() {
      writingAt = undefined;
    },
    async until(pred: (s: CatalogState) => boolean, timeoutMs: number): Promise<number> {
      const deadline = performance.now() + timeoutMs;
      while (!state || !pred(state)) {
        if (performance.now() > deadline) throw new Error(`timed out waiting for ${name}`);
        await Promise.race([new Promise<void>((r) => waiters.push(r)), delay(1000)]);
      }
      return performance.now();
    },
    get state() {
      return state;
    },
    stop: () => w.stop(),
  };
}

/** How many of `catalog`'s objects a list of `collection` (the CRD's by default) returns. */
export async function countObjects(api: Api, catalog: string, collection = CM): Promise<number> {
  let n = 0;
  let cont = '';
  do {
    const r = await api.json<{ items: unknown[]; metadata: { continue?: string } }>(
      'GET',
      `${collection}?labelSelector=catalog%3D${catalog}&limit=2000${cont ? `&continue=${cont}` : ''}`,
      undefined,
      undefined,
    );
    n += r.items.length;
    cont = r.metadata.continue ? encodeURIComponent(r.metadata.continue) : '';
  } while (cont);
  return n;
}

/** Deletes a catalog's objects with one deletecollection and waits until none is left. */
export async function deleteObjects(api: Api, catalog: string): Promise<void> {
  const r = await api.request('DELETE', `${CM}?labelSelector=catalog%3D${catalog}`);
  // 504: the apiserver gave up waiting, but keeps deleting; the count below tells when it is done.
  if (r.status >= 300 && r.status !== 404 && r.status !== 504)
    throw new Error(`deletecollection: ${r.status} ${r.body}`);
  const deadline = Date.now() + 900_000;
  while ((await countObjects(api, catalog)) > 0) {
    if (Date.now() > deadline) throw new Error(`objects of ${catalog} not deleted`);
    await delay(1000);
  }
}

export async function deleteCatalog(api: Api, name: string): Promise<void> {
  await api.request('DELETE', `${CC}/${name}`, JSON.stringify({ propagationPolicy: 'Background' }));
  const deadline = Date.now() + 120_000;
  while ((await api.request('GET', `${CC}/${name}`)).status !== 404) {
    if (Date.now() > deadline) throw new Error(`ClusterCatalog ${name} not deleted`);
    await delay(500);
  }
  await deleteObjects(api, name); // faster than waiting for the garbage collector
}

/**
 * `catalogd render DIR --catalog NAME -o json` → the List's items, each pre-serialized, with the
 * owner reference the controller sets (to `owner`, a ClusterCatalog of that name), so the
 * baselines write the same objects as the controller. `outFile` is rewritten with them.
 */
export function render(
  dir: string,
  catalog: string,
  owner: { name: string; uid: string },
  outFile: string,
): Buffer[] {
  const fd = openSync(outFile, 'w');
  try {
    const r = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'dist/src/cmd/catalogd.js'),
        'render',
        dir,
        '--catalog',
        catalog,
        '-o',
        'json',
      ],
      { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`render failed: ${r.stderr}`);
  } finally {
    closeSync(fd);
  }
  const list = JSON.parse(readFileSync(outFile, 'utf8')) as {
    items: Array<{ metadata: Record<string, unknown> }>;
  };
  const ownerReferences = [
    {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'ClusterCatalog',
      name: owner.name,
      uid: owner.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  for (const o of list.items) o.metadata.ownerReferences = ownerReferences;
  writeFileSync(outFile, JSON.stringify(list));
  return list.items.map((o) => Buffer.from(JSON.stringify(o)));
}

/** (a) The raw limit: POST every object at `concurrency`, keep-alive, nothing else. */
export async function rawPosts(
  api: Api,
  bodies: Buffer[],
  concurrency: number,
  accept: string,
): Promise<{ seconds: number; meanInFlight: number }> {
  const client = api.withSockets(concurrency);
  // Warm the connections so TLS handshakes are not timed (the controller's are warm too).
  await Promise.all(Array.from({ length: concurrency }, () => client.request('GET', '/version')));
  const served0 = await apiserverPostSeconds(api);
  const t0 = performance.now();
  await mapBounded(bodies, concurrency, async (b) => {
    const r = await client.request('POST', CM, b, 'application/json', accept);
    // 409: a POST retried after a reset connection had been applied (names are fresh).
    if (r.status !== 201 && r.status !== 409)
      throw new Error(`POST: ${r.status} ${r.body.slice(0, 300)}`);
  });
  const s = (performance.now() - t0) / 1000;
  client.close();
  return { seconds: s, meanInFlight: round(((await apiserverPostSeconds(api)) - served0) / s, 1) };
}

/**
 * rawPosts over the controller's write transport (src/kube/http1.ts) instead of node:https: the
 * same bodies, concurrency and responses, one connection per request in flight.
 */
export async function rawPostsHttp1(
  api: Api,
  bodies: Buffer[],
  concurrency: number,
  accept: string,
): Promise<{ seconds: number }> {
  const { pool, headers } = api.http1Pool(concurrency);
  const post = (body: Buffer) =>
    pool.request({
      method: 'POST',
      path: CM,
      headers: { ...headers, accept, 'content-type': 'application/json' },
      body,
    });
  try {
    // Warm the connections, as rawPosts does.
    await Promise.all(
      Array.from({ length: concurrency }, () =>
        pool.request({ method: 'GET', path: '/version', headers }),
      ),
    );
    const t0 = performance.now();
    await mapBounded(bodies, concurrency, async (b) => {
      const r = await post(b);
      if (r.status !== 201 && r.status !== 409)
        throw new Error(`POST: ${r.status} ${r.body.toString().slice(0, 300)}`);
    });
    return { seconds: (performance.now() - t0) / 1000 };
  } finally {
    pool.close();
  }
}

/** (b) kubectl apply --server-side of the render output. */
export function kubectlApply(file: string): number {
  const t0 = performance.now();
  const r = spawnSync(
    'kubectl',
    ['apply', '--server-side', '--field-manager=bench', '-f', file, '-o', 'name'],
    { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  if (r.status !== 0) throw new Error(`kubectl apply failed: ${r.stderr.slice(0, 1000)}`);
  return (performance.now() - t0) / 1000;
}

// ---------- incremental change ----------

/** Copies nothing: edits `dir` in place. Adds one bundle and changes one channel of a package. */
export async function addBundleChangeChannel(dir: string): Promise<void> {
  const { readdir } = await import('node:fs/promises');
  for (const pkg of (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory())) {
    const file = path.join(dir, pkg.name, 'catalog.json');
    if (!existsSync(file)) continue;
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const ci = lines.findIndex((l) => l.includes('"schema":"olm.channel"'));
    const bi = lines.findIndex((l) => l.includes('"schema":"olm.bundle"'));
    if (ci < 0 || bi < 0) continue;
    const channel = JSON.parse(lines[ci]!) as {
      package: string;
      entries: Array<{ name: string; replaces?: string }>;
    };
    const bundle = JSON.parse(lines[bi]!) as {
      name: string;
      properties?: Array<{ type: string; value: Record<string, unknown> }>;
    };
    const name = `${channel.package}.v99.0.0`;
    const last = channel.entries[channel.entries.length - 1]?.name;
    channel.entries.push({ name, ...(last && { replaces: last }) });
    bundle.name = name;
    for (const p of bundle.properties ?? [])
      if (p.type === 'olm.package') p.value = { ...p.value, version: '99.0.0' };
    lines[ci] = JSON.stringify(channel);
    lines.push(JSON.stringify(bundle));
    await writeFile(file, lines.join('\n') + '\n');
    return;
  }
  throw new Error('no package with a catalog.json holding a channel and a bundle');
}
