// Time bounds and faults end to end: the real controller pulls through a fault proxy in front
// of the real registry. Each fault ends the attempt with a clear status within --pull-timeout,
// the previous revision stays (objects and served content), nothing is half written, and the
// catalog recovers once the fault clears. With --workers 2, two trickling catalogs do not delay
// a good one; deleting or changing a trickling catalog stops its attempt at once.
import { expect } from 'chai';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pushCatalog } from '../../src/source/index.js';
import { applyCatalog, condition, getCatalog, sampleDir, waitSynced } from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../support/fault-proxy.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import { revisionInCluster, type Revision } from '../support/revisions.js';

const PULL_TIMEOUT_S = 20;

interface TestImage {
  /** Through the proxy, by tag. */
  tagRef: string;
  /** Through the proxy, by digest. */
  digestRef: string;
  /** Directly from the registry, by tag. */
  directRef: string;
  /** The manifest's digest. */
  digest: string;
  layerDigest: string;
}

describe('fault proxy e2e: time bounds, faults and fairness', function () {
  this.timeout(300_000);
  let controller: RunningController;
  let proxy: FaultProxy;
  let work: string;
  let registry: string;
  const created: string[] = [];

  /** A catalog image of its own (one unique package more than the sample): its own digests. */
  async function pushImage(label: string): Promise<TestImage> {
    const dir = path.join(work, uniqueName(label));
    await cp(sampleDir, dir, { recursive: true });
    await mkdir(path.join(dir, 'marker'));
    await writeFile(
      path.join(dir, 'marker', 'catalog.json'),
      JSON.stringify({ schema: 'olm.package', name: uniqueName(`marker-${label}`) }) + '\n',
    );
    const repo = `e2e/faults-${uniqueName(label)}`;
    const pushed = await pushCatalog(dir, `${registry}/${repo}:v1`);
    const res = await fetch(`http://${registry}/v2/${repo}/manifests/${pushed.digest}`, {
      headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
    });
    const manifest = (await res.json()) as { layers: { digest: string }[] };
    return {
      tagRef: `${proxy.host}/${repo}:v1`,
      digestRef: `${proxy.host}/${repo}@${pushed.digest}`,
      directRef: `${registry}/${repo}:v1`,
      digest: pushed.digest,
      layerDigest: manifest.layers[0]!.digest,
    };
  }

  async function apply(name: string, ref: string): Promise<void> {
    if (!created.includes(name)) created.push(name);
    await applyCatalog(name, ref);
  }

  /** What a catalog serves now: its objects, its content over HTTP and its status' revision. */
  async function served(name: string) {
    const c = await getCatalog(name);
    const res = await fetch(`${c.status?.urls?.base}/api/v1/all`);
    return {
      objects: await revisionInCluster(name),
      content: res.status === 200 ? await res.text() : `HTTP ${res.status}`,
      contentHash: c.status?.contentHash,
      resolved: c.status?.resolvedSource?.image?.ref,
    };
  }

  /**
   * Waits until the catalog's current generation failed with `reason`; returns it. The deadline
   * is the bound under test: every fault ends within the pull timeout (and some slack).
   */
  async function waitFailed(name: string, reason: 'Retrying' | 'Blocked') {
    return pollUntil(
      async () => {
        const c = await getCatalog(name);
        const p = condition(c, 'Progressing');
        return p?.reason === reason && p.observedGeneration === c.metadata.generation
          ? { catalog: c, message: p.message }
          : undefined;
      },
      {
        timeoutMs: (PULL_TIMEOUT_S + 30) * 1000,
        what: `ClusterCatalog ${name} to be ${reason} within the pull timeout`,
      },
    );
  }

  /** Asks for a resync now (an annotation change is reconciled at once, past any backoff). */
  async function resyncNow(name: string): Promise<void> {
    await kubectlOk([
      'annotate',
      'clustercatalog',
      name,
      `e2e-resync=${uniqueName('r')}`,
      '--overwrite',
    ]);
  }

  function expectSameRevision(
    now: Awaited<ReturnType<typeof served>>,
    before: Awaited<ReturnType<typeof served>>,
  ) {
    expect(now.contentHash, 'status.contentHash').to.equal(before.contentHash);
    expect(now.resolved, 'status.resolvedSource').to.equal(before.resolved);
    expect(sorted(now.objects), 'the objects (no partial writes)').to.deep.equal(
      sorted(before.objects),
    );
    expect(now.content, 'the served content').to.equal(before.content);
  }

  before(async () => {
    ({ tmp: work } = await setUpE2e({ tmpPrefix: 'catalogd-faults-' }));
    registry = process.env.REGISTRY ?? '';
    proxy = await startFaultProxy(registry);
    controller = await startController({
      args: ['--workers=2', `--pull-timeout=${PULL_TIMEOUT_S}s`],
    });
  });

  after(async () => {
    await tearDownE2e({ controllers: [controller], catalogs: created });
    await proxy?.close();
    await rm(work, { recursive: true, force: true });
  });

  const cases: Array<{
    fault: Fault;
    by: 'tag' | 'digest';
    reason: 'Retrying' | 'Blocked';
    message: (img: TestImage) => RegExp;
  }> = [
    {
      fault: { kind: 'status500' },
      by: 'tag',
      reason: 'Retrying',
      message: () => /layer 1 of .*: registry returned HTTP 500/,
    },
    {
      fault: { kind: 'reset' },
      by: 'tag',
      reason: 'Retrying',
      message: () => /layer 1 of .*: registry unreachable \(ECONNRESET\)/,
    },
    {
      fault: { kind: 'truncate' },
      by: 'tag',
      reason: 'Retrying',
      message: () => /layer 1 of .*: (ECONNRESET|ECONNABORTED|network error)/,
    },
    {
      fault: { kind: 'corrupt' },
      by: 'digest',
      reason: 'Blocked',
      message: (img) =>
        new RegExp(`digest mismatch: content is sha256:[0-9a-f]{64}, expected ${img.layerDigest}`),
    },
    {
      fault: { kind: 'stall' },
      by: 'tag',
      reason: 'Retrying',
      message: () =>
        new RegExp(
          `timed out after ${PULL_TIMEOUT_S}s fetching layer 1 of .*: [0-9.]+ k?B of [0-9.]+ k?B`,
        ),
    },
    {
      fault: { kind: 'trickle', intervalMs: 1000 },
      by: 'tag',
      reason: 'Retrying',
      message: () =>
        new RegExp(`timed out after ${PULL_TIMEOUT_S}s fetching layer 1 of .*: \\d+ B of`),
    },
  ];

  describe('each fault: a clear status within the deadline, the previous revision kept, recovery', () => {
    const name = uniqueName('faults');
    before(async () => {
      const first = await pushImage('first');
      await apply(name, first.directRef);
      await waitSynced(name);
    });

    for (const tc of cases) {
      it(`${tc.fault.kind} (${tc.by} ref): ${tc.reason}`, async () => {
        const img = await pushImage(tc.fault.kind);
        const before = await served(name);
        proxy.setFault(img.layerDigest, tc.fault);
        const started = Date.now();
        await apply(name, tc.by === 'tag' ? img.tagRef : img.digestRef);
        const failed = await waitFailed(name, tc.reason);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `      ${tc.fault.kind}: ${tc.reason} after ${seconds.toFixed(1)} s: ${failed.message}`,
        );
        expect(failed.message).to.match(tc.message(img));
        expect(failed.catalog.status?.syncingTo, 'no sync started').to.equal(undefined);
        expectSameRevision(await served(name), before);

        proxy.setFault(img.layerDigest, undefined);
        // Blocked waits for a spec change: the same image by tag; Retrying retries by itself
        // (asked now, past the backoff of the failures so far).
        if (tc.reason === 'Blocked') await apply(name, img.tagRef);
        else await resyncNow(name);
        const synced = await waitSynced(name, before.contentHash);
        expect(synced.status?.resolvedSource?.image?.ref).to.contain(img.digest);
      });
    }
  });

  // After the faults (mocha runs a suite's own tests before its nested suites): this one swaps
  // the controller for one whose trickling attempts never time out by themselves.
  describe('fairness and interrupts', () => {
    before(async () => {
      // No pull timeout within the test and no minimum rate: only the interrupt of a delete or
      // a spec change can end a trickling attempt, so the deadlines of the waits below are what
      // fails without it, not a comparison of times.
      await controller.stop();
      controller = await startController({
        args: ['--workers=2', '--pull-timeout=1h', '--pull-min-rate=0'],
      });
    });

    it('fairness: with --workers 2 a good catalog syncs while two catalogs trickle; deleting or changing one stops its attempt', async () => {
      // The good catalog's usual time, alone.
      const alone = await pushImage('alone');
      let t = Date.now();
      await apply(uniqueName('alone'), alone.directRef);
      await waitSynced(created.at(-1)!);
      const aloneSeconds = (Date.now() - t) / 1000;

      const slow = [await pushImage('slow-a'), await pushImage('slow-b')];
      const slowNames = [uniqueName('slow-a'), uniqueName('slow-b')];
      for (const img of slow)
        proxy.setFault(img.layerDigest, { kind: 'trickle', intervalMs: 1000 });
      for (const [i, img] of slow.entries()) await apply(slowNames[i]!, img.tagRef);
      // Both attempts are in their blob downloads: under one worker per attempt they would hold
      // both --workers.
      await pollUntil(async () => slow.every((img) => proxy.arrivals(img.layerDigest).length > 0), {
        timeoutMs: 30_000,
        what: 'both trickling downloads to start',
      });

      const good = await pushImage('good');
      const goodName = uniqueName('good');
      t = Date.now();
      await apply(goodName, good.directRef);
      await waitSynced(goodName);
      const besideSeconds = (Date.now() - t) / 1000;
      console.log(
        `      good catalog synced in ${aloneSeconds.toFixed(1)} s alone, ` +
          `${besideSeconds.toFixed(1)} s beside two trickling catalogs`,
      );
      for (const n of slowNames) {
        const p = condition(await getCatalog(n), 'Progressing');
        expect(p?.reason, `${n} is still in its first attempt`).to.not.equal('Retrying');
      }

      // Delete one trickling catalog: its attempt in flight stops, so the finalizer runs (the
      // attempt itself would go on for the hour).
      const deleted = Date.now();
      await kubectlOk(['delete', 'clustercatalog', slowNames[0]!, '--wait=false']);
      await pollUntil(
        async () =>
          (await kubectl(['get', 'clustercatalog', slowNames[0]!])).code !== 0 ? true : undefined,
        { timeoutMs: 60_000, what: `${slowNames[0]} to be gone` },
      );
      const gone = Date.now();
      console.log(
        `      deleted trickling catalog gone after ${((gone - deleted) / 1000).toFixed(1)} s`,
      );

      // Change the other one's spec to a good image: its attempt in flight stops, and the new
      // spec syncs (waitSynced's deadline; the old attempt would go on for the hour).
      const replacement = await pushImage('replacement');
      const changed = Date.now();
      await apply(slowNames[1]!, replacement.directRef);
      const synced = await waitSynced(slowNames[1]!);
      const syncedAt = Date.now();
      console.log(
        `      changed trickling catalog synced to its new spec after ${((syncedAt - changed) / 1000).toFixed(1)} s`,
      );
      expect(synced.status?.resolvedSource?.image?.ref).to.contain(replacement.digest);
    });
  });
});

function sorted(rev: Revision): Array<[string, string]> {
  return [...rev].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}
