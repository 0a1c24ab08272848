// Crash consistency at scale (issue 7): the controller is SIGKILLed at random points while a
// catalog of >= 10k blobs flips between two revisions, again and again. After every restart
// the catalog's objects must settle to exactly one of the two revisions, checked by hashing the
// whole set (object name → content hash) against each.
//
// The two revisions share most objects, as real catalog updates do: v2 changes every blob of a
// fifth of the packages (updates), drops a twentieth of them (deletes) and adds a blob to
// another twentieth (creates): about 2,000 writes per flip.
import { expect } from 'chai';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pushCatalog } from '../../src/source/index.js';
import { applyCatalog, condition, getCatalog, waitSynced } from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { CUSTOM_SCHEMA, generateCatalog, prng } from '../support/fbcgen.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { Revision } from '../support/revisions.js';
import { matchRevision, revisionInCluster, revisionOf } from '../support/revisions.js';

const SIZE_MB = 46; // 10,021 blobs at seed 1
const KILLS = 10;
const SEED = 20261122;

/** v2 of a generated catalog: updates, deletes and creates in a few packages. */
async function deriveV2(v1: string, v2: string): Promise<void> {
  await cp(v1, v2, { recursive: true });
  const packages = (await readdir(v2, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  for (const [i, pkg] of packages.entries()) {
    const file = path.join(v2, pkg, 'catalog.json');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // a YAML package: left as it is
    if (i % 20 === 3) {
      await rm(path.join(v2, pkg), { recursive: true });
    } else if (i % 5 === 0) {
      await writeFile(file, text.replaceAll('{"schema":', '{"x-revision":2,"schema":'));
    } else if (i % 20 === 7) {
      const extra = { schema: CUSTOM_SCHEMA, package: pkg, name: `${pkg}-v2-notes`, notes: 'v2' };
      await writeFile(file, `${text}${JSON.stringify(extra)}\n`);
    }
  }
}

describe('resilience e2e: SIGKILL at random points while a 10k-blob catalog syncs', function () {
  this.timeout(1_500_000);
  const name = uniqueName('crashloop');
  const lease = uniqueName('lease');
  let tmp = '';
  let controller: RunningController | undefined;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'catalog-crashloop-' }));
  });

  after(async () => {
    await tearDownE2e({ controllers: [controller], signal: 'SIGKILL', catalogs: [name], tmp });
  });

  it(`settles to exactly one revision after each of ${KILLS} kills`, async () => {
    const v1Dir = path.join(tmp, 'v1');
    const v2Dir = path.join(tmp, 'v2');
    await generateCatalog(v1Dir, { seed: 1, sizeMB: SIZE_MB });
    await deriveV2(v1Dir, v2Dir);
    const revisions: Record<string, Revision> = {
      v1: await revisionOf(v1Dir, name),
      v2: await revisionOf(v2Dir, name),
    };
    expect(revisions.v1?.size).to.be.greaterThanOrEqual(10_000);
    const refs: Record<string, string> = {};
    for (const [label, dir] of [
      ['v1', v1Dir],
      ['v2', v2Dir],
    ] as const) {
      refs[label] = (
        await pushCatalog(dir, `${process.env.REGISTRY}/e2e/crashloop:${uniqueName(label)}`)
      ).ref;
    }

    // One image cache for every incarnation, as a pod's emptyDir outlives its container.
    const cacheDir = path.join(tmp, 'cache');
    controller = await startController({ leaseId: lease, cacheDir });
    await applyCatalog(name, refs.v1 ?? '');
    let synced = await waitSynced(name);
    const hashOf: Record<string, string> = { v1: synced.status?.contentHash ?? '' };

    const random = prng(SEED);
    let target = 'v1';
    const log: string[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      target = target === 'v1' ? 'v2' : 'v1';
      await applyCatalog(name, refs[target] ?? '');
      // Odd kills land at a random point from resolving and scanning (first seconds) deep into
      // the writes. Even kills wait for the sync journal and land a random moment later, so some
      // kills hit the writes on any machine: a fast one finishes a flip's ~2,000 writes in a few
      // seconds, before most purely random points.
      const started = Date.now();
      let point: string;
      if (kill % 2 === 1) {
        const delayMs = Math.floor(500 + random() * 14_000);
        point = `${delayMs} ms`;
        await pollUntil(async () => Date.now() - started >= delayMs, {
          timeoutMs: delayMs + 1000,
          intervalMs: 50,
          what: `${delayMs} ms into the sync`,
        });
      } else {
        const afterJournalMs = Math.floor(random() * 1000);
        point = `${afterJournalMs} ms after the journal`;
        await pollUntil(async () => Boolean((await getCatalog(name)).status?.syncingTo), {
          timeoutMs: 300_000,
          intervalMs: 50,
          what: `the sync journal towards ${target}`,
        });
        const journalAt = Date.now();
        await pollUntil(async () => Date.now() - journalAt >= afterJournalMs, {
          timeoutMs: afterJournalMs + 1000,
          intervalMs: 20,
          what: `${afterJournalMs} ms into the writes`,
        });
      }
      await controller.stop('SIGKILL');
      const atKill = await getCatalog(name);
      log.push(
        `kill ${kill} at ${point} (${Date.now() - started} ms) towards ${target}: ${
          atKill.status?.syncingTo ? 'mid-write (journal set)' : 'before or after the writes'
        }, ${condition(atKill, 'Progressing')?.message ?? ''}`,
      );

      controller = await startController({ leaseId: lease, cacheDir });
      synced = await waitSynced(name);
      const got = await revisionInCluster(name);
      const { match, detail } = matchRevision(got, revisions);
      expect(match, `after kill ${kill}: ${detail}`).to.not.equal(undefined);
      // Recovery goes forward: the new revision is available, so the catalog ends there.
      expect(match, `after kill ${kill}`).to.equal(target);
      hashOf[target] ??= synced.status?.contentHash ?? '';
      expect(synced.status?.contentHash).to.equal(hashOf[target]);
      expect(synced.status?.objectCount).to.equal(revisions[target]?.size);
    }
    console.log(`      ${log.join('\n      ')}`);
    const mid = log.filter((l) => l.includes('mid-write')).length;
    expect(mid, 'kills that landed while objects were being written').to.be.greaterThan(0);
  });
});
