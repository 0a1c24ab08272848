// Time from `kubectl apply` of a ClusterCatalog to Serving=True, and to its objects synced
// (Progressing=Succeeded), for a generated catalog: the measurement behind issue 39 point 2. Not a
// test of timing (nothing is asserted on the numbers): it prints them, and runs only when asked:
//   CATALOGD_SERVING_TIMING_MB=50 [CATALOGD_BASE_TREE=DIR] npx mocha --config .mocharc.e2e.cjs \
//     test/e2e/serving-timing.test.ts
// CATALOGD_BASE_TREE: another revision's source tree to compare with, in one run (e.g.
// `git archive main src | tar -x -C .local/base`: its imports resolve from this tree's
// node_modules). Each controller pulls cold (its own cache directory).
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { applyCatalog, condition, getCatalog, installCrds, push } from '../support/catalogs.js';
import { startController } from '../support/controller.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const SIZE_MB = Number(process.env.CATALOGD_SERVING_TIMING_MB ?? '0');
const BASE_TREE = process.env.CATALOGD_BASE_TREE;

async function objectCount(catalog: string): Promise<number> {
  const out = await kubectlOk(['get', 'catalogmetadata', '-l', `catalog=${catalog}`, '-o', 'name']);
  return out.split('\n').filter(Boolean).length;
}

(SIZE_MB > 0 ? describe : describe.skip)(
  'timing: apply → Serving, apply → objects synced',
  function () {
    this.timeout(3_600_000);
    let tmp = '';

    before(async () => {
      await installCrds();
      tmp = await mkdtemp(path.join(os.tmpdir(), 'serving-timing-'));
    });

    after(async () => {
      if (tmp) await rm(tmp, { recursive: true, force: true });
    });

    it(`a ${SIZE_MB} MB generated catalog, cold`, async () => {
      const dir = path.join(tmp, 'catalog');
      await generateCatalog(dir, { seed: 1, sizeMB: SIZE_MB });
      const ref = await push(dir, `serving-timing:${uniqueName('v')}`);
      const trees: Array<[string, string | undefined]> = [
        ...(BASE_TREE ? [['base', BASE_TREE] as [string, string]] : []),
        ['this tree', undefined],
      ];
      for (const [label, sourceRoot] of trees) {
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
              if (!servingMs && current('Serving')?.status === 'True')
                servingMs = Date.now() - start;
              return current('Progressing')?.reason === 'Succeeded' && !c.status?.syncingTo
                ? c
                : undefined;
            },
            { timeoutMs: 1_800_000, intervalMs: 100, what: `${name} to sync` },
          );
          const syncedMs = Date.now() - start;
          console.log(
            `      ${label}: ${synced.status?.objectCount} objects; apply → Serving ${(servingMs / 1000).toFixed(2)} s, apply → objects synced ${(syncedMs / 1000).toFixed(2)} s; load average ${os.loadavg()[0]!.toFixed(2)}`,
          );
          expect(servingMs).to.be.greaterThan(0);
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
    });
  },
);
