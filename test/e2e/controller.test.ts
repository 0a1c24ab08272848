// The controller end to end: a real `catalogd controller` process, the real apiserver, garbage
// collector and registry. Writes are counted twice, independently: by a watch on the catalog's
// objects (what informer clients see) and by the controller's own metrics.
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pushCatalog } from '../../src/source/index.js';
import {
  applyCatalog,
  installCrds,
  condition,
  getCatalog,
  listObjects,
  normalize,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
  writtenBytes,
} from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const goldenFile = path.join(repoRoot, 'test', 'golden', 'controller', 'sample.json');

/**
 * Counts watch events on a catalog's objects, as an informer client would see them. The watch is
 * kubectl's, on the raw API: a watch the apiserver ends (as it may at any time) is resumed from
 * the last resourceVersion seen, so no event is lost or counted twice, as an informer would.
 */
function watchEvents(catalog: string) {
  const collection = '/apis/olm.operatorframework.io/v1/catalogmetadata';
  const selector = encodeURIComponent(`catalog=${catalog}`);
  // Our own annotations, each with a unique marker: their events are told apart by it.
  const markers = new Set<string>();
  const events: Array<{ type: string; name: string; marker?: string }> = [];
  let resourceVersion: string | undefined;
  let child: ChildProcess | undefined;
  let stopped = false;
  // A watch that cannot be resumed (its resourceVersion expired, or kubectl failed) fails the
  // waits on it with kubectl's words instead of a timeout.
  let failed: string | undefined;
  const restarts: string[] = [];

  function onEvent(line: string): void {
    const doc = JSON.parse(line) as {
      type: string;
      object: {
        code?: number;
        message?: string;
        metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> };
      };
    };
    if (doc.type === 'ERROR') {
      failed = `the watch ended with ${doc.object.code}: ${doc.object.message}`;
      return;
    }
    resourceVersion = doc.object.metadata.resourceVersion;
    if (doc.type === 'BOOKMARK') return;
    const value = doc.object.metadata.annotations?.['e2e-sentinel'];
    const marker = value !== undefined && markers.delete(value) ? value : undefined;
    events.push({ type: doc.type, name: doc.object.metadata.name, ...(marker && { marker }) });
  }

  function start(): void {
    // timeoutSeconds: the apiserver ends each watch within a minute, so every run resumes some.
    const query = [
      `labelSelector=${selector}`,
      'watch=1',
      'allowWatchBookmarks=true',
      'timeoutSeconds=45',
      `resourceVersion=${resourceVersion}`,
    ].join('&');
    const proc = spawn('kubectl', ['get', '--raw', `${collection}?${query}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stderr = '';
    let buf = '';
    proc.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    proc.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      // The apiserver sends one JSON object per line per event.
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) onEvent(line);
      }
    });
    proc.on('exit', (code, signal) => {
      if (stopped || failed) return;
      if (code !== 0) {
        failed = `kubectl watch exited (code ${code}, signal ${signal}): ${stderr}`;
        return;
      }
      restarts.push(resourceVersion ?? '');
      start();
    });
  }

  const seen = (marker: string): boolean => {
    if (events.some((e) => e.marker === marker)) return true;
    if (failed) throw new Error(`${failed} (resumed ${restarts.length} times before)`);
    return false;
  };
  async function annotate(objectName: string): Promise<string> {
    const marker = uniqueName('m');
    markers.add(marker);
    await kubectlOk([
      'annotate',
      'catalogmetadata',
      objectName,
      `e2e-sentinel=${marker}`,
      '--overwrite',
    ]);
    return marker;
  }
  /** Events up to the one of `marker`, without our own; removes them from the list. */
  function takeUpTo(marker: string) {
    const i = events.findIndex((e) => e.marker === marker);
    const taken = events.splice(0, i + 1);
    return taken.filter((e) => e.marker === undefined).map(({ type, name }) => ({ type, name }));
  }
  return {
    /** Starts the watch from now and waits until it is established. */
    async ready(objectName: string): Promise<void> {
      const list = JSON.parse(
        await kubectlOk(['get', '--raw', `${collection}?labelSelector=${selector}&limit=1`]),
      ) as { metadata: { resourceVersion: string } };
      resourceVersion = list.metadata.resourceVersion;
      start();
      const marker = await pollUntil(
        async () => {
          const m = await annotate(objectName);
          await new Promise((r) => setTimeout(r, 500));
          return seen(m) ? m : undefined;
        },
        { timeoutMs: 30_000, what: 'the watch to be established', intervalMs: 0 },
      );
      takeUpTo(marker);
    },
    /** Annotates one object and waits for its event: every earlier event has then arrived. */
    async flush(objectName: string): Promise<Array<{ type: string; name: string }>> {
      const marker = await annotate(objectName);
      await pollUntil(async () => seen(marker), {
        timeoutMs: 30_000,
        what: 'the sentinel watch event',
      });
      return takeUpTo(marker);
    },
    stop: () => {
      stopped = true;
      child?.kill();
    },
  };
}

/**
 * The controller idle, with no catalog being deleted and no orphans to remove (their removal
 * lists objects): other catalogs' reconciles and LISTs are then over.
 */
async function waitIdle(controller: RunningController): Promise<void> {
  await pollUntil(
    async () => {
      const catalogs = JSON.parse(await kubectlOk(['get', 'clustercatalog', '-o', 'json'])) as {
        items: Array<{ metadata: { name: string; deletionTimestamp?: string } }>;
      };
      const live = new Set(
        catalogs.items.filter((c) => !c.metadata.deletionTimestamp).map((c) => c.metadata.name),
      );
      const orphans = (await listObjects('catalog')).items.filter(
        (o) => !live.has(o.metadata.labels?.catalog ?? ''),
      );
      return (
        live.size === catalogs.items.length &&
        orphans.length === 0 &&
        (await controller.metric('workqueue_depth', { name: 'clustercatalog' })) === 0 &&
        (await controller.metric('workqueue_unfinished_work_seconds', {
          name: 'clustercatalog',
        })) === 0
      );
    },
    { timeoutMs: 60_000, what: 'no catalog deletion under way and the controller idle' },
  );
}

/** LISTs of CatalogMetadata the controller made so far. */
function catalogMetadataLists(controller: RunningController): Promise<number> {
  return controller.metric('catalogd_apiserver_requests_total', {
    verb: 'list',
    resource: 'catalogmetadata',
  });
}

function reconcileCount(controller: RunningController): Promise<number> {
  return controller.metric('controller_runtime_reconcile_total', { controller: 'clustercatalog' });
}

/** Annotates the catalog, as a user asking for a resync does; waits for its reconcile. */
async function poke(controller: RunningController, name: string): Promise<void> {
  const before = await reconcileCount(controller);
  await kubectlOk([
    'annotate',
    'clustercatalog',
    name,
    `e2e-poke=${uniqueName('p')}`,
    '--overwrite',
  ]);
  await pollUntil(async () => (await reconcileCount(controller)) > before, {
    timeoutMs: 30_000,
    what: 'the poked reconcile',
  });
}

describe('controller e2e: ClusterCatalog → CatalogMetadata', function () {
  this.timeout(300_000);
  let controller: RunningController;
  let sampleRef: string;
  const leaseId = uniqueName('lease');

  before(async () => {
    await installCrds();
    sampleRef = await push(sampleDir, `sample:${uniqueName('v')}`);
    controller = await startController({ leaseId });
  });

  after(async () => {
    await controller?.stop();
  });

  it('materializes one labelled, owned object per blob, equal to the golden expectation', async () => {
    const name = 'e2e-golden';
    await kubectl(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=true']);
    await applyCatalog(name, sampleRef);
    const c = await waitSynced(name);
    expect(c.metadata.labels?.['olm.operatorframework.io/metadata.name']).to.equal(name);
    expect(c.status?.objectCount).to.equal(9);
    expect(condition(c, 'Serving')?.status).to.equal('True');
    expect(c.status?.resolvedSource?.image.ref).to.match(/@sha256:[0-9a-f]{64}$/);
    const got = normalize(await listObjects(`catalog=${name}`), c.metadata.uid ?? '');
    if (process.env.UPDATE_GOLDEN) await writeFile(goldenFile, JSON.stringify(got, null, 2) + '\n');
    expect(got).to.deep.equal(JSON.parse(await readFile(goldenFile, 'utf8')));

    // The HTTP content is the same revision: one canonical blob per object.
    // urls.base names the revision (docs/api.md, "status.urls.base").
    expect(c.status?.urls?.base).to.equal(
      `${controller.serverUrl}/catalogs/${name}/revisions/${c.status?.contentHash?.slice(7, 23)}`,
    );
    const all = await fetch(`${c.status?.urls?.base}/api/v1/all`);
    expect(all.status).to.equal(200);
    const blobs = (await all.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    const contents = got.map((o) => o.spec.content);
    expect(blobs).to.have.deep.members(contents);

    // Deleting it: the finalizer removes the served content and the unpacked image.
    const digest = c.status?.resolvedSource?.image.ref.split('@')[1] ?? '';
    const imageDir = path.join(
      controller.cacheDir,
      'images',
      `${digest.replace(':', '-')}_linux-amd64`,
    );
    expect(existsSync(imageDir), imageDir).to.equal(true);
    await kubectlOk(['delete', 'clustercatalog', name, '--wait=true', '--timeout=60s']);
    expect(existsSync(imageDir), 'the unpacked image after deletion').to.equal(false);
    expect((await fetch(`${c.status?.urls?.base}/api/v1/all`)).status).to.equal(404);
  });

  it('serves the content from every replica, not only the leader', async () => {
    const name = uniqueName('replicas');
    await applyCatalog(name, sampleRef);
    const c = await waitSynced(name);
    const replica = await startController({ leaseId });
    try {
      const url = `${replica.serverUrl}/catalogs/${name}/api/v1/all`;
      const body = await pollUntil(
        async () => {
          const r = await fetch(url);
          return r.status === 200 ? r.text() : undefined;
        },
        { timeoutMs: 60_000, what: 'the non-leader replica to serve the catalog' },
      );
      expect(body.trim().split('\n')).to.have.length(c.status?.objectCount ?? -1);
      expect((await fetch(url)).headers.get('etag')).to.contain(c.status?.contentHash?.slice(7));
      // It is not the leader: it wrote nothing.
      expect(await replica.metric('catalogd_catalogmetadata_writes_total')).to.equal(0);
    } finally {
      await replica.stop();
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    }
  });

  it('answers kubectl label queries per package, keeping two catalogs with the same package apart', async () => {
    const a = uniqueName('cat-a');
    const b = uniqueName('cat-b');
    await applyCatalog(a, sampleRef);
    await applyCatalog(b, sampleRef);
    await waitSynced(a);
    await waitSynced(b);
    const out = await kubectlOk([
      'get',
      'catalogmetadata',
      '-l',
      `catalog=${a},package=example-operator`,
      '-o',
      'name',
    ]);
    expect(out.trim().split('\n')).to.have.length(5); // 2 channels + 3 bundles
    const both = await listObjects('packageOrName=utility-operator');
    const mine = both.items.filter(
      (o) => o.metadata.labels?.catalog === a || o.metadata.labels?.catalog === b,
    );
    expect(mine).to.have.length(6); // 3 blobs per catalog
    expect(new Set(mine.map((o) => o.metadata.name)).size).to.equal(6);
    await kubectlOk(['delete', 'clustercatalog', b, '--wait=false']);
    await pollUntil(async () => (await listObjects(`catalog=${b}`)).items.length === 0, {
      timeoutMs: 120_000,
      what: `the garbage collector to delete catalog ${b}'s objects`,
    });
    expect((await listObjects(`catalog=${a}`)).items).to.have.length(9);
    await kubectlOk(['delete', 'clustercatalog', a, '--wait=false']);
  });

  it('writes only what changed: 2 writes for a bundle added and a channel changed, 0 for the same content', async () => {
    const name = uniqueName('incr');
    await applyCatalog(name, sampleRef);
    const v1 = await waitSynced(name);
    const anObject = (await listObjects(`catalog=${name}`)).items[0]?.metadata.name ?? '';
    // Writes of this catalog only: other catalogs' orphans may be removed meanwhile.
    const writes = () =>
      controller.metric('catalogd_catalogmetadata_writes_total', { catalog: name });
    const watch = watchEvents(name);
    try {
      await watch.ready(anObject);

      // v2: one bundle added to the utility-operator's alpha channel.
      const v2Dir = await writeSampleV2();
      const v2Ref = await push(v2Dir, `sample:${uniqueName('v2')}`);
      const writesBefore = await writes();
      await applyCatalog(name, v2Ref);
      const v2 = await waitSynced(name, v1.status?.contentHash);
      expect(v2.status?.objectCount).to.equal(10);
      const seen = await watch.flush(anObject);
      expect(seen.map((e) => e.type).sort()).to.deep.equal(['ADDED', 'MODIFIED']);
      expect((await writes()) - writesBefore).to.equal(2);

      // The same content under a new digest (an ignored file added): no object writes.
      await writeFile(path.join(v2Dir, '.indexignore'), 'NOTES.txt\n');
      await writeFile(path.join(v2Dir, 'NOTES.txt'), 'not part of the catalog\n');
      const v3Ref = await push(v2Dir, `sample:${uniqueName('v3')}`);
      expect(v3Ref).to.not.equal(v2Ref);
      const writes2 = await writes();
      await applyCatalog(name, v3Ref);
      const v3 = await pollUntil(
        async () => {
          const c = await waitSynced(name);
          return c.status?.resolvedSource?.image.ref === v3Ref ? c : undefined;
        },
        { timeoutMs: 60_000, what: 'the new digest to be resolved' },
      );
      expect(v3.status?.contentHash).to.equal(v2.status?.contentHash);
      expect(await watch.flush(anObject)).to.deep.equal([]);
      expect(await writes()).to.equal(writes2);

      // A poll of an unchanged tag (pollIntervalMinutes: 1, the least there is): one manifest
      // request to resolve it, no blob pulls, no writes.
      const v3Tag = `${process.env.REGISTRY}/e2e/sample:${uniqueName('v3tag')}`;
      await pushCatalog(v2Dir, v3Tag);
      await applyCatalog(name, v3Tag, {}, 1);
      await waitSynced(name);
      const writes3 = await writes();
      const blobsBefore = await controller.metric('catalogd_source_requests_total', {
        kind: 'blob',
      });
      const manifestsBefore = await controller.metric('catalogd_source_requests_total', {
        kind: 'manifest',
      });
      const reconciles = () => reconcileCount(controller);
      const reconcilesBefore = await reconciles();
      await pollUntil(
        async () =>
          (await controller.metric('catalogd_source_requests_total', { kind: 'manifest' })) >
            manifestsBefore && (await reconciles()) > reconcilesBefore,
        { timeoutMs: 120_000, intervalMs: 2000, what: 'the poll to resolve the tag again' },
      );
      expect(await controller.metric('catalogd_source_requests_total', { kind: 'blob' })).to.equal(
        blobsBefore,
      );
      expect(await writes()).to.equal(writes3);
      expect(await watch.flush(anObject)).to.deep.equal([]);
      await rm(v2Dir, { recursive: true, force: true });
    } finally {
      watch.stop();
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    }
  });

  it('steady state: a poke of an unchanged catalog lists no objects and writes nothing; drift is still restored', async () => {
    const name = uniqueName('steady');
    await applyCatalog(name, sampleRef);
    const synced = await waitSynced(name);
    const objects = await listObjects(`catalog=${name}`);
    // status.storedBytes: the objects' JSON as the controller wrote them (server fields aside).
    expect(synced.status?.storedBytes).to.equal(writtenBytes(objects.items));

    try {
      const lists = () => catalogMetadataLists(controller);
      const writes = () =>
        controller.metric('catalogd_catalogmetadata_writes_total', { catalog: name });
      // The controller idle, with no catalog being deleted and no orphans to remove (their
      // removal lists objects): other catalogs, synced, then cost no LIST either.
      await waitIdle(controller);
      const [lists0, writes0] = [await lists(), await writes()];
      for (let i = 1; i <= 3; i++) await poke(controller, name);
      expect((await lists()) - lists0, 'LISTs of CatalogMetadata').to.equal(0);
      expect(await writes()).to.equal(writes0);
      const after = await getCatalog(name);
      expect(after.status).to.deep.equal(synced.status);

      // Drift still reaches the catalog: a deleted object comes back, an edited one is restored.
      const victim = objects.items[0]!;
      await kubectlOk(['delete', 'catalogmetadata', victim.metadata.name, '--wait=true']);
      await pollUntil(
        async () =>
          (await listObjects(`catalog=${name}`)).items.some(
            (o) => o.metadata.name === victim.metadata.name,
          ),
        { timeoutMs: 60_000, what: 'the deleted object to be restored' },
      );
      const edited = objects.items[1]!;
      await kubectlOk([
        'patch',
        'catalogmetadata',
        edited.metadata.name,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { content: { tampered: true } } }),
      ]);
      await pollUntil(
        async () => {
          const o = (await listObjects(`catalog=${name}`)).items.find(
            (x) => x.metadata.name === edited.metadata.name,
          );
          return JSON.stringify(o?.spec.content) === JSON.stringify(edited.spec.content);
        },
        { timeoutMs: 60_000, what: 'the edited object to be restored' },
      );
    } finally {
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    }
  });

  it('a sync that deletes objects costs one plan: its own deletions are not drift', async () => {
    const name = uniqueName('own-del');
    const lists = () => catalogMetadataLists(controller);
    const reconciles = () => reconcileCount(controller);
    const v2Dir = await writeSampleV2();
    try {
      // v2 (10 objects), then the sample (9): the second sync deletes the bundle v2 added.
      const v2Ref = await push(v2Dir, `sample:${uniqueName('v2')}`);
      await waitIdle(controller);
      const lists0 = await lists();
      await applyCatalog(name, v2Ref);
      const v2 = await waitSynced(name);
      await waitIdle(controller);
      await poke(controller, name);
      // A first sync lists the catalog's objects once to plan (then its finalizer's update
      // queues an O(1) reconcile that the memo answers).
      const createLists = (await lists()) - lists0;

      const [lists1, reconciles1] = [await lists(), await reconciles()];
      await applyCatalog(name, sampleRef);
      const v1 = await waitSynced(name, v2.status?.contentHash);
      expect(v1.status?.objectCount).to.equal(9);
      await waitIdle(controller);
      await poke(controller, name);
      // Its deletions came back as watch events: had they voided the memo (or queued another
      // reconcile), the catalog would be listed and parsed again after the sync.
      expect((await reconciles()) - reconciles1, 'reconciles: the sync and the poke').to.equal(2);
      expect((await lists()) - lists1, 'LISTs of the deleting sync').to.equal(createLists);
    } finally {
      await rm(v2Dir, { recursive: true, force: true });
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    }
  });

  it('removes the objects when availabilityMode is Unavailable, and brings them back', async () => {
    const name = uniqueName('avail');
    await applyCatalog(name, sampleRef);
    await waitSynced(name);
    await applyCatalog(name, sampleRef, { availabilityMode: 'Unavailable' });
    const c = await pollUntil(
      async () => {
        const c = await getCatalog(name);
        const s = condition(c, 'Serving');
        return s?.reason === 'UserSpecifiedUnavailable' &&
          s.observedGeneration === c.metadata.generation
          ? c
          : undefined;
      },
      { timeoutMs: 60_000, what: 'Serving=False/UserSpecifiedUnavailable' },
    );
    expect(condition(c, 'Serving')?.status).to.equal('False');
    expect((await listObjects(`catalog=${name}`)).items).to.have.length(0);
    await applyCatalog(name, sampleRef, { availabilityMode: 'Available' });
    await waitSynced(name);
    expect((await listObjects(`catalog=${name}`)).items).to.have.length(9);
    await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
  });
});
