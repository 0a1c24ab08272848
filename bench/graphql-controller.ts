// The graphql bench's controller part (bench/graphql.ts --controller): the whole controller, as
// the Deployment runs it (built dist/, its NODE_OPTIONS and malloc settings,
// bench/lib/controller-process.ts), syncing each catalog pushed to the local registry until its
// objects are written, then the same 16 clients as against the content server alone, sent to
// each catalog's status.urls.base: the controller's peak RSS, the SPEC's 150 MB bound's subject.
import { Agent as HttpAgent } from 'node:http';
import { pushCatalog } from '../src/source/index.js';
import { applyCatalog, getCatalog, objectsSynced } from '../test/support/catalogs.js';
import { kubectlOk } from '../test/support/kubectl.js';
import { pollUntil } from '../test/support/poll.js';
import { useLocalCluster } from './lib/cluster.js';
import { log } from './lib/config.js';
import { startController } from './lib/controller-process.js';
import type { ClientsResult, Target } from './lib/graphql-clients.js';
import { onePackage, peakRssUnderClients, post, rssBytes } from './lib/graphql-clients.js';
import type { NamedQuery } from '../test/support/upstream-graphql-queries.js';

async function settledRss(pid: number): Promise<number> {
  const deadline = Date.now() + 90_000;
  let last = rssBytes(pid);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const now = rssBytes(pid);
    if (Math.abs(now - last) < 2 ** 20 || Date.now() > deadline) return now;
    last = now;
  }
}

export interface ControllerClients {
  catalog: string;
  package: string;
  /** The 16 clients on the settled controller (rssBeforeMB: its VmRSS once every catalog synced). */
  clients: ClientsResult;
}

/**
 * Starts the controller, syncs `catalogs` (name, FBC directory), and runs the 16 clients with
 * the one-package query and `queries` against each catalog in turn; the catalogs are deleted
 * and the controller stopped at the end.
 */
export async function controllerUnderClients(
  catalogs: Array<{ name: string; dir: string }>,
  queries: readonly NamedQuery[],
  each: number,
  logDir: string,
): Promise<ControllerClients[]> {
  const { kubeconfig, registry } = useLocalCluster();
  const controller = await startController(kubeconfig, logDir);
  const out: ControllerClients[] = [];
  try {
    for (const { name, dir } of catalogs)
      await applyCatalog(
        name,
        (await pushCatalog(dir, `${registry}/graphql-bench/${name}:latest`)).ref,
      );
    const bases = new Map<string, string>();
    for (const { name } of catalogs)
      bases.set(
        name,
        // Its objects written (the current revision's): its base.
        await pollUntil(
          async () => {
            const c = await getCatalog(name);
            return objectsSynced(c) && c.status?.urls?.base;
          },
          { timeoutMs: 900_000, intervalMs: 1000, what: `${name} synced by the controller` },
        ),
      );
    log(`graphql bench: the controller synced ${catalogs.map((c) => c.name).join(', ')}`);
    // The clients start on a settled controller (SPEC §7: ≤ 100 MB settled, ≤ 150 MB while 16
    // clients are served): the sync's burst is given back by its memory reclaim once the process
    // is quiet; what the clients then add is GraphQL's. Settled: two samples 5 s apart within
    // 1 MB, or 90 s.
    const settled = await settledRss(controller.pid);
    log(`graphql bench: the controller settled at ${(settled / 2 ** 20).toFixed(1)} MB`);
    for (const { name } of catalogs) {
      const base = bases.get(name)!;
      const t: Target = {
        id: 'controller',
        pid: controller.pid,
        graphql: () => `${base}/api/v1/graphql`,
        metas: () => `${base}/api/v1/metas`,
        agent: new HttpAgent({ keepAlive: true, maxSockets: 1 }),
      };
      const one = await onePackage(t, name);
      const mix = [one.query, one.everyFieldQuery, ...queries.map((q) => q.query)].map((q) => ({
        url: t.graphql(name),
        body: post(q),
      }));
      out.push({
        catalog: name,
        package: one.pkg,
        clients: await peakRssUnderClients(t, mix, each),
      });
      t.agent.destroy();
    }
  } finally {
    for (const { name } of catalogs)
      await kubectlOk(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=true']);
    await controller.stop();
  }
  return out;
}
