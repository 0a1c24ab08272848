// `make bench` (SPEC §7, issue 9): sync cost and scale, measured side by side in one run against
// one apiserver. See bench/README.md for the method and the JSON fields.
//
//   npx tsx bench/run.ts            (after `make build`; `make bench` does both)
//
// Environment:
//   BENCH_REUSE_CLUSTER=1   use the running cluster of $CATALOGD_LOCAL (default .local) instead of
//                           starting an own one under .local/bench (and stopping it at the end)
//   BENCH_SIZES=5,30,50     catalog sizes in MB (generator, seed 1)
//   BENCH_CONCURRENCY=8,16,32,32m   raw-client levels (`m`, `w` flags: see CONCURRENCY)
//   BENCH_MERGE=a.json,b.json   no run: merge results of several runs into BENCH_OUT
//   BENCH_OUT=NAME          write bench/results/NAME.{json,md} and leave README.md alone
//   BENCH_SKIP_KUBECTL=1, BENCH_SKIP_PARSE=1, BENCH_SKIP_ENTRIES=1, BENCH_SKIP_HTTP=1   skip those
//   BENCH_SERVE=1           also run bench/serve.ts (the content server against upstream's way of
//                           serving; alone: `make bench-serve`)
//   BENCH_ONLY=controlPlane only the control-plane section (bench/control-plane.ts), on the
//                           largest of BENCH_SIZES and BENCH_REAL_CATALOGS (default /tmp/real/v4.20)
//   BENCH_ONLY=peer         only catalogd-ts beside upstream catalogd v1.5.1 (scenarios/peer.ts;
//                           `make bench-peer`)
//   BENCH_ONLY=graphql      only GraphQL query latency and memory (bench/graphql.ts) on the
//                           largest of BENCH_SIZES and BENCH_REAL_CATALOGS, beside /api/v1/metas,
//                           and beside upstream catalogd v1.11 unless BENCH_GRAPHQL_UPSTREAM=0,
//                           and the whole controller's RSS unless BENCH_GRAPHQL_CONTROLLER=0;
//                           BENCH_GRAPHQL_RUNS (default 30) requests per query
//   BENCH_ONLY=watchCache   only the apiserver's price per content profile with its CatalogMetadata
//                           watch cache on and off (scenarios/watch-cache.ts; docs/deploy.md)
//   BENCH_ONLY=served       only the object view's price in the CRD mode (full, lean) and the
//                           served mode, side by side (scenarios/served.ts; docs/deploy.md), on
//                           the largest of BENCH_SIZES and the first of BENCH_REAL_CATALOGS;
//                           BENCH_SERVED_MODES=served,... a subset, BENCH_SERVED_QUERIES (30)
//   BENCH_SKIP_CONTROL_PLANE=1   skip that section in a full run
//   BENCH_ONLY=pacing       only the write-pacing scenario (bench/scenarios/pacing.ts) on the
//                           largest of BENCH_SIZES; BENCH_PACING=1 adds it to a full run;
//                           BENCH_OTHER_RATE (default 40) is its other client's requests a second
//   BENCH_PPROF=DIR         save a 10-s apiserver CPU profile of each write phase (controller
//                           rounds, raw levels) in DIR, for `go tool pprof`
//
// Writes bench/results/latest.json and bench/results/latest.md, replaces the table between the
// markers in bench/README.md, and prints the table.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { controlPlaneMarkdown, measureControlPlane } from './control-plane.js';
import type { BenchHooks } from './control-plane.js';
import { Api } from './lib/api.js';
import { deleteCatalog } from './lib/catalogs.js';
import {
  Etcd,
  clusterScript,
  readEnvFile,
  restartControlPlane,
  waitForGarbageCollector,
  waitForQuietControlPlane,
} from './lib/cluster.js';
import {
  LOCAL,
  MALLOC_ARENA_MAX,
  NODE_OPTIONS,
  ONLY,
  ROOT,
  SIZES,
  log,
  reuse,
} from './lib/config.js';
import { running, startController } from './lib/controller-process.js';
import { finish, merge, rssGrowth, writeResults } from './lib/report.js';
import { graphqlMarkdown } from './graphql.js';
import { childBench } from './scenarios/child-bench.js';
import type { ColdResult, ColdSyncContext } from './scenarios/cold-sync.js';
import { coldSync } from './scenarios/cold-sync.js';
import { runPeer } from './scenarios/peer.js';
import { measureWatchCache, watchCacheMarkdown } from './scenarios/watch-cache.js';
import { measurePacing, pacingMarkdown } from './scenarios/pacing.js';
import { measureServed, servedMarkdown } from './scenarios/served.js';

async function main(): Promise<void> {
  const started = new Date();
  const { kubeconfig, registry, etcd, api } = startCluster();
  const work = await mkdtemp(path.join(os.tmpdir(), 'catalogd-bench-'));
  const logDir = path.join(LOCAL, 'logs');
  await mkdir(logDir, { recursive: true });
  const results: Record<string, unknown> = {};
  try {
    applyCrds();
    log(`garbage collector watching CatalogMetadata after ${await waitForGarbageCollector(api)} s`);
    const machine = await machineInfo(api, etcd);
    results.machine = machine;
    log(`machine: ${JSON.stringify(machine)}`);

    /**
     * Every measured phase starts from the same control-plane state: etcd compacted and
     * defragmented (only live keys), kube-apiserver freshly started (see restartControlPlane).
     * Not on a shared cluster (BENCH_REUSE_CLUSTER=1).
     */
    const resetControlPlane = async (): Promise<void> => {
      if (reuse) return;
      await etcd.compactDefrag();
      log(
        `control plane restarted, garbage collector watching: ${await restartControlPlane(api)} s`,
      );
    };

    const largest = Math.max(...SIZES);
    const hooks: BenchHooks = {
      root: ROOT,
      api,
      kubeconfig,
      registry,
      work,
      logDir,
      reuse,
      sizeMB: largest,
      log,
      etcd,
      resetControlPlane,
      waitForQuiet: waitForQuietControlPlane,
      startController,
      deleteCatalog,
    };
    if (ONLY === 'peer') {
      await runPeer(
        { api, etcd, kubeconfig, registry, work, logDir, resetControlPlane },
        results,
        started,
      );
      return;
    }
    if (ONLY === 'graphql') {
      results.graphql = graphqlBench(largest);
      await writeResults(results, started);
      process.stdout.write(
        graphqlMarkdown(results.graphql as Parameters<typeof graphqlMarkdown>[0]),
      );
      return;
    }
    if (ONLY === 'watchCache') {
      results.watchCache = await measureWatchCache(hooks);
      await writeResults(results, started);
      process.stdout.write(
        `\n${watchCacheMarkdown(results.watchCache as Record<string, unknown>)}`,
      );
      return;
    }
    if (ONLY === 'served') {
      results.served = await measureServed(hooks);
      await writeResults(results, started);
      process.stdout.write(`\n${servedMarkdown(results.served as Record<string, unknown>)}`);
      return;
    }
    if (ONLY === 'controlPlane') {
      const controlPlane = await measureControlPlane(hooks);
      results.controlPlane = controlPlane;
      await writeResults(results, started);
      process.stdout.write(`\n${controlPlaneMarkdown(controlPlane)}\n`);
      return;
    }

    if (ONLY === 'pacing') {
      const pacing = await measurePacing(hooks);
      results.pacing = pacing;
      await writeResults(results, started);
      process.stdout.write(`\n${pacingMarkdown(pacing)}\n`);
      return;
    }

    const cold: ColdResult[] = [];
    results.cold = cold;
    const coldContext: ColdSyncContext = {
      api,
      etcd,
      kubeconfig,
      registry,
      work,
      logDir,
      largest,
      resetControlPlane,
      results,
      started,
    };
    for (const sizeMB of SIZES) {
      cold.push(await coldSync(coldContext, sizeMB));
      await writeResults(results, started);
    }
    if (process.env.BENCH_SKIP_CONTROL_PLANE !== '1') {
      results.controlPlane = await measureControlPlane(hooks);
      await writeResults(results, started);
    }
    if (process.env.BENCH_PACING === '1') {
      results.pacing = await measurePacing(hooks);
      await writeResults(results, started);
    }
    rssGrowth(results);
    childBenches(results, largest);
    await finish(results, started);
  } finally {
    for (const c of [...running]) await c.stop();
    api.close();
    await rm(work, { recursive: true, force: true });
    if (!reuse) {
      log('stopping the bench cluster');
      clusterScript('down');
    }
  }
}

/** The bench's cluster (its own unless BENCH_REUSE_CLUSTER=1), its clients and environment. */
function startCluster() {
  if (!reuse) {
    log(`starting an own cluster under ${path.relative(ROOT, LOCAL)}`);
    clusterScript('up');
  }
  const env = readEnvFile(path.join(LOCAL, 'env'));
  const ports = readEnvFile(path.join(LOCAL, 'cluster', 'ports.env'));
  const kubeconfig = env.KUBECONFIG!;
  const registry = env.REGISTRY!;
  process.env.KUBECONFIG = kubeconfig;
  process.env.PATH = `${env.KUBE_BIN_DIR}:${process.env.PATH ?? ''}`;
  const etcd = new Etcd(`http://127.0.0.1:${ports.ETCD_PORT}`);
  const api = Api.fromKubeconfig(kubeconfig);
  return { kubeconfig, registry, etcd, api };
}

/** The CRDs, applied and established. */
function applyCrds(): void {
  execFileSync('kubectl', ['apply', '--server-side', '-f', path.join(ROOT, 'crds')], {
    stdio: 'ignore',
  });
  execFileSync(
    'kubectl',
    ['wait', '--for=condition=Established', '--timeout=60s', '-f', path.join(ROOT, 'crds')],
    {
      stdio: 'ignore',
    },
  );
}

/**
 * bench/graphql.ts as its own process, upstream's side and the controller on this run's cluster
 * (its .local/env) unless BENCH_GRAPHQL_UPSTREAM=0 / BENCH_GRAPHQL_CONTROLLER=0.
 */
function graphqlBench(largest: number): unknown {
  process.env.CATALOGD_LOCAL = LOCAL;
  const args = ['--size-mb', String(largest), '--runs', process.env.BENCH_GRAPHQL_RUNS ?? '30'];
  args.push('--real', process.env.BENCH_REAL_CATALOGS ?? '/tmp/real/v4.20');
  if (process.env.BENCH_GRAPHQL_UPSTREAM !== '0') args.push('--upstream');
  if (process.env.BENCH_GRAPHQL_CONTROLLER !== '0') args.push('--controller');
  return childBench('graphql', args, 1_800_000);
}

/** The benches that run as their own processes, unless skipped. */
function childBenches(results: Record<string, unknown>, largest: number): void {
  if (process.env.BENCH_SKIP_PARSE !== '1')
    results.fbcParse = childBench('fbc-parse', ['--size-mb', String(largest), '--runs', '3']);
  if (process.env.BENCH_SKIP_ENTRIES !== '1')
    results.unpackEntries = childBench('unpack-entries', ['--entries', '100000']);
  if (process.env.BENCH_SKIP_HTTP !== '1' && existsSync(path.join(ROOT, 'bench', 'http.ts')))
    results.http = childBench('http', ['--size-mb', String(largest)]);
  if (process.env.BENCH_SERVE === '1')
    results.serve = childBench('serve', ['--size-mb', String(largest)], 900_000);
}

/** The machine, the control plane's versions and the controller's process settings. */
async function machineInfo(api: Api, etcd: Etcd) {
  const kubeVersion = (await api.json<{ gitVersion: string }>('GET', '/version')).gitVersion;
  const kubectlVersion = spawnSync('kubectl', ['version', '--client', '-o', 'json'], {
    encoding: 'utf8',
  });
  const machine = {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? '',
    memoryBytes: os.totalmem(),
    node: process.version,
    kubernetes: kubeVersion,
    kubectl:
      (JSON.parse(kubectlVersion.stdout || '{}') as { clientVersion?: { gitVersion?: string } })
        .clientVersion?.gitVersion ?? '',
    etcd: await etcd.version(),
    sharedCluster: reuse,
    controllerNodeOptions: NODE_OPTIONS,
    controllerMallocArenaMax: MALLOC_ARENA_MAX ?? null,
  };
  return machine;
}

if (process.env.BENCH_MERGE) await merge(process.env.BENCH_MERGE.split(','));
else await main();
