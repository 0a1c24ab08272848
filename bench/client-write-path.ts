// The client side of a cold sync's writes alone: the controller's write path (plan, then apply
// through the real KubeClient, catalogMetadataWriter and catalogSyncer, with the drift watch
// open) and the bench's raw POST loop, both against bench/fake-apiserver.mjs on loopback over
// TLS with a client certificate, which answers at once. Reports CPU per write by thread, so a
// change to the client's per-write cost is measured without the apiserver's noise.
//   npx tsx bench/client-write-path.ts [--size-mb 30] [--rounds 3]
// Run it with the Deployment's V8 flags to measure as deployed:
//   NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=2" npx tsx bench/client-write-path.ts
// --no-drift-watch leaves the controller's drift watch closed: what the write path costs alone.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { apiserverCatalogMetadataWriter } from '../src/cmd/kube-ports.js';
import { catalogMetadataRefs } from '../src/controllers/clustercatalog/setup/kube-adapters.js';
import { KubeClient } from '../src/kube/index.js';
import { catalogSyncer } from '../src/sync/index.js';
import { mapBounded } from '../src/util/limits.js';
import { generateCatalog } from '../test/support/fbcgen.js';
import { freePort } from '../test/support/ports.js';
import { makeTestPki } from '../test/support/test-pki.js';
import { Api, METADATA_ONLY } from './lib/api.js';
import { ROOT } from './lib/config.js';
import { procThreadCpu, threadCpuMsPer } from './lib/controller-process.js';

const { values } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
    'latency-ms': { type: 'string', default: '0' },
    'no-drift-watch': { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const work = await mkdtemp(path.join(os.tmpdir(), 'catalogd-client-write-path-'));

await makeTestPki(work, ['admin']);
const port = await freePort();
const kubeconfig = path.join(work, 'kubeconfig');
await writeFile(
  kubeconfig,
  `apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", certificate-authority: ${work}/ca.crt}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {client-certificate: ${work}/admin.crt, client-key: ${work}/admin.key}}]
`,
);
const fake = spawn(
  process.execPath,
  [path.join(ROOT, 'bench', 'fake-apiserver.mjs'), work, String(port), values['latency-ms']],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '' },
  },
);
await new Promise<void>((resolve) => fake.stdout.once('data', () => resolve()));

const dir = path.join(work, 'catalog');
await generateCatalog(dir, { seed: 1, sizeMB: Number(values['size-mb']) });
const client = new KubeClient({ kubeconfig });
const syncer = catalogSyncer({
  writer: apiserverCatalogMetadataWriter(client),
  spoolDir: work,
  writeConcurrency: 32,
  counters: { writes: { inc() {} }, dryRunWrites: { inc() {} } },
});
// The drift watch as the controller keeps it: every event reduced to its ref and stored. Open
// during the controller's writes only: the bench's raw-32m loop runs with no watch.
const refs = catalogMetadataRefs(client);
async function driftWatch(): Promise<{ stop: () => Promise<number> }> {
  const store = new Map<string, unknown>();
  const watching = new AbortController();
  const { resourceVersion } = await refs.list({ limit: 1 }, watching.signal);
  let failure: Error | undefined;
  const done = refs
    .watch(
      { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 3600 },
      (_type, ref) => void store.set(ref.metadata.name, ref),
      watching.signal,
    )
    .catch((err: unknown) => {
      failure = err instanceof Error ? err : new Error(String(err));
    });
  return {
    // The events stored; throws if the watch failed.
    async stop() {
      watching.abort();
      await done;
      if (failure) throw failure;
      return store.size;
    },
  };
}

try {
  for (let round = 0; round < rounds; round++) {
    const target = {
      catalog: { name: `bench-${round}`, uid: `uid-${round}` },
      dir,
      maxObjectBytes: 1048576,
      contentUrl: () => 'http://127.0.0.1/',
    };
    const planned = await syncer.plan(target);
    const n = planned.plan.create.length;
    const watch = values['no-drift-watch']
      ? { stop: () => Promise.resolve(0) }
      : await driftWatch();
    let t = procThreadCpu(process.pid);
    let t0 = performance.now();
    await syncer.apply(planned, () => {});
    const controller = {
      writesPerSecond: Math.round(n / ((performance.now() - t0) / 1000)),
      cpuMsPerWrite: threadCpuMsPer(t, procThreadCpu(process.pid), n),
      watchEvents: await watch.stop(),
    };
    // The raw loop of the bench's raw-32m, the same bodies.
    const bodies: Buffer[] = [];
    for await (const w of planned.writes!.read()) bodies.push(Buffer.from(w.body));
    await planned.dispose();
    const api = Api.fromKubeconfig(kubeconfig, 32);
    t = procThreadCpu(process.pid);
    t0 = performance.now();
    await mapBounded(bodies, 32, async (b) => {
      await api.request(
        'POST',
        '/apis/olm.operatorframework.io/v1/catalogmetadata',
        b,
        'application/json',
        METADATA_ONLY,
      );
    });
    const raw = {
      writesPerSecond: Math.round(n / ((performance.now() - t0) / 1000)),
      cpuMsPerWrite: threadCpuMsPer(t, procThreadCpu(process.pid), n),
    };
    api.close();
    console.log(JSON.stringify({ round, writes: n, controller, raw }));
  }
} finally {
  client.close();
  fake.kill();
  await rm(work, { recursive: true, force: true });
}
