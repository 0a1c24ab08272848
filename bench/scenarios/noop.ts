// The steady-state scenario: a no-op resync, the same content under a new digest and an
// incremental change, on the catalog a cold sync left.
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pushCatalog } from '../../src/source/index.js';
import type { Api } from '../lib/api.js';
import { CC, CM } from '../lib/api.js';
import type { CatalogState, catalogWatch } from '../lib/catalogs.js';
import { addBundleChangeChannel, succeeded } from '../lib/catalogs.js';
import { log, round } from '../lib/config.js';
import type { Controller } from '../lib/controller-process.js';

/** No-op resync, same content under a new digest and an incremental change, on one catalog. */
export async function noopAndIncremental(
  api: Api,
  controller: Controller,
  watch: ReturnType<typeof catalogWatch>,
  name: string,
  dir: string,
  registry: string,
  results: Record<string, unknown>,
): Promise<unknown> {
  const writesNow = () => controller.metric('catalogd_catalogmetadata_writes_total');
  // LISTs of CatalogMetadata (every page counts): a no-op must make none (issue 25, point 5).
  const listsNow = () =>
    controller.metric('catalogd_apiserver_requests_total', {
      verb: 'list',
      resource: 'catalogmetadata',
    });
  const reconcile = async () => ({
    count: await controller.metric('controller_runtime_reconcile_total', {
      controller: 'clustercatalog',
    }),
    sum: await controller.metric('controller_runtime_reconcile_time_seconds_sum', {
      controller: 'clustercatalog',
    }),
  });
  // Object events of this catalog, as an informer sees them.
  const objEvents: Array<{ type: string; name: string; marker?: string }> = [];
  const list = await api.json<{
    metadata: { resourceVersion: string };
    items: Array<{ metadata: { name: string } }>;
  }>('GET', `${CM}?labelSelector=catalog%3D${name}&limit=1`);
  const sentinelObj = list.items[0]!.metadata.name;
  const ow = api.watch(
    `${CM}?labelSelector=catalog%3D${name}&resourceVersion=${list.metadata.resourceVersion}`,
    (e) => {
      objEvents.push({
        type: e.type,
        name: e.object.metadata.name,
        ...(e.object.metadata.annotations?.['bench-sentinel'] && {
          marker: e.object.metadata.annotations['bench-sentinel'],
        }),
      });
    },
  );
  let markerN = 0;
  /** Annotates one object and waits for its event: every earlier event has then arrived. */
  const flush = async (): Promise<Array<{ type: string; name: string }>> => {
    const marker = `m${++markerN}-${Date.now()}`;
    await api.json(
      'PATCH',
      `${CM}/${sentinelObj}`,
      { metadata: { annotations: { 'bench-sentinel': marker } } },
      'application/merge-patch+json',
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const i = objEvents.findIndex((e) => e.marker === marker);
      if (i >= 0) {
        const taken = objEvents.splice(0, i + 1);
        return taken.filter((e) => !(e.name === sentinelObj && e.type === 'MODIFIED' && e.marker));
      }
      if (Date.now() > deadline) throw new Error('sentinel event not seen');
      await delay(100);
    }
  };
  await flush();
  const measure = async (
    what: string,
    act: () => Promise<void>,
    done: (s: CatalogState) => boolean,
  ) => {
    const w0 = await writesNow();
    const l0 = await listsNow();
    const r0 = await reconcile();
    const t0 = performance.now();
    await act();
    const t1 = await watch.until(done, 600_000);
    // The reconcile that did it has finished once its metrics are observed.
    const deadline = Date.now() + 60_000;
    let r1 = await reconcile();
    while (r1.count === r0.count && Date.now() < deadline) {
      await delay(50);
      r1 = await reconcile();
    }
    const t2 = performance.now();
    const events = await flush();
    const out = {
      writes: (await writesNow()) - w0,
      watchEvents: events.length,
      events: events.map((e) => `${e.type} ${e.name}`),
      seconds: round((Math.max(t1, t2) - t0) / 1000),
      reconciles: r1.count - r0.count,
      reconcileSeconds: round((r1.sum - r0.sum) / Math.max(1, r1.count - r0.count)),
      listCalls: (await listsNow()) - l0,
    };
    log(`${what}: ${JSON.stringify(out)}`);
    return out;
  };
  const patchRef = (ref: string) =>
    api.json(
      'PATCH',
      `${CC}/${name}`,
      { spec: { source: { image: { ref } } } },
      'application/merge-patch+json',
    );
  const cur = watch.state!;
  try {
    // No-op resync: an unchanged digest reconciled again (as a poll does), triggered by an annotation.
    const noop = await measure(
      'no-op resync',
      async () => {
        await api.json(
          'PATCH',
          `${CC}/${name}`,
          { metadata: { annotations: { 'bench-poke': String(Date.now()) } } },
          'application/merge-patch+json',
        );
      },
      () => true,
    );
    // Same content, new digest: an ignored file added.
    await appendFile(path.join(dir, '.indexignore'), 'NOTES.txt\n');
    await writeFile(path.join(dir, 'NOTES.txt'), 'not part of the catalog\n');
    const v2 = (await pushCatalog(dir, `${registry}/bench/catalog-noop:v2`)).ref;
    const sameContentNewDigest = await measure(
      'same content, new digest',
      () => patchRef(v2).then(() => undefined),
      (s) => succeeded(s, v2),
    );
    // Incremental: one bundle added, one channel changed.
    await addBundleChangeChannel(dir);
    const v3 = (await pushCatalog(dir, `${registry}/bench/catalog-incr:v3`)).ref;
    const incremental = await measure(
      'incremental',
      () => patchRef(v3).then(() => undefined),
      (s) => succeeded(s, v3) && s.contentHash !== cur.contentHash,
    );
    results.sameContentNewDigest = sameContentNewDigest;
    results.incremental = incremental;
    return noop;
  } finally {
    ow.stop();
  }
}
