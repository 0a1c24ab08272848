// Time from `kubectl apply` of a ClusterCatalog to Serving=True, and to its objects synced
// (Progressing=Succeeded), for a generated catalog, against the running local cluster
// (`make cluster-up`; KUBECONFIG and REGISTRY from .local/env). The measurement behind issue 39
// point 2, one cold sync per tree:
//   npx tsx bench/serving-timing.ts [--size-mb 50] [--base-tree DIR]
// --base-tree: another revision's source tree to compare with, in one run (e.g.
// `git archive main src | tar -x -C .local/base`: its imports resolve from this tree's
// node_modules). Each controller runs from source under tsx and pulls cold (its own cache).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  applyCatalog,
  condition,
  getCatalog,
  installCrds,
  push,
} from '../test/support/catalogs.js';
import { startController } from '../test/support/controller.js';
import { generateCatalog } from '../test/support/fbcgen.js';
import { kubectl, kubectlOk } from '../test/support/kubectl.js';
import { uniqueName } from '../test/support/names.js';
import { pollUntil } from '../test/support/poll.js';

const { values } = parseArgs({
  options: { 'size-mb': { type: 'string', default: '50' }, 'base-tree': { type: 'string' } },
});
const sizeMB = Number(values['size-mb']);

async function objectCount(catalog: string): Promise<number> {
  const out = await kubectlOk(['get', 'catalogmetadata', '-l', `catalog=${catalog}`, '-o', 'name']);
  return out.split('\n').filter(Boolean).length;
}

/** One cold sync by a controller running `sourceRoot` (default this tree); prints its times. */
async function timeOne(label: string, ref: string, sourceRoot: string | undefined): Promise<void> {
  const controller = await startController(sourceRoot ? { sourceRoot } : {});
  const name = uniqueName('timing');
  try {
    const start = Date.now();
    await applyCatalog(name, ref);
    let servingMs = 0;
    const synced = await pollUntil(
      async () => {
        const c = await getCatalog(name);
        const current = (type: string) => {
          const cond = condition(c, type);
          return cond?.observedGeneration === c.metadata.generation ? cond : undefined;
        };
        if (!servingMs && current('Serving')?.status === 'True') servingMs = Date.now() - start;
        return current('Progressing')?.reason === 'Succeeded' &&
          current('ObjectsSynced')?.status === 'True' &&
          !c.status?.syncingTo
          ? c
          : undefined;
      },
      { timeoutMs: 1_800_000, intervalMs: 100, what: `${name} to sync` },
    );
    const syncedMs = Date.now() - start;
    console.log(
      `${label}: ${synced.status?.objectCount} objects; apply → Serving ${(servingMs / 1000).toFixed(2)} s, apply → objects synced ${(syncedMs / 1000).toFixed(2)} s; load average ${os.loadavg()[0]!.toFixed(2)}`,
    );
  } finally {
    // Deleted while the controller runs: it removes the finalizer.
    await kubectl(['delete', 'clustercatalog', name, '--timeout=300s']);
    await controller.stop();
    // The next controller writes alone: the garbage collector deletes these objects first.
    await pollUntil(async () => (await objectCount(name)) === 0, {
      timeoutMs: 900_000,
      intervalMs: 2000,
      what: `${name}'s objects to be deleted`,
    });
  }
}

await installCrds();
const tmp = await mkdtemp(path.join(os.tmpdir(), 'serving-timing-'));
try {
  const dir = path.join(tmp, 'catalog');
  await generateCatalog(dir, { seed: 1, sizeMB });
  const ref = await push(dir, `serving-timing:${uniqueName('v')}`);
  if (values['base-tree']) await timeOne('base', ref, path.resolve(values['base-tree']));
  await timeOne('this tree', ref, undefined);
} finally {
  await rm(tmp, { recursive: true, force: true });
}
