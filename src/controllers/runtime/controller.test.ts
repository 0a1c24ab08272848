import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import { Controller, watch } from './controller.js';
import type { ListWatch, WatchEventType } from './informer.js';
import { Informer } from './informer.js';
import { createMetricsRegistry, RuntimeMetrics } from './metrics.js';

interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
}

/** A ListWatch whose list the test releases and whose watch the test feeds. */
function controllable(items: Obj[]) {
  let releaseList: () => void = () => undefined;
  const listed = new Promise<void>((r) => (releaseList = r));
  let emit: (type: WatchEventType, obj: Obj) => void = () => undefined;
  const lw: ListWatch<Obj> = {
    list: async () => {
      await listed;
      return { items, resourceVersion: '10' };
    },
    watch: (_opts, onEvent, signal) => {
      emit = onEvent;
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    },
  };
  return { lw, releaseList, emit: (t: WatchEventType, o: Obj) => emit(t, o) };
}

const obj = (name: string, rv: string, owner?: string): Obj => ({
  metadata: { name, resourceVersion: rv, ...(owner ? { labels: { catalog: owner } } : {}) },
});

describe('Controller', () => {
  it('waits for every informer to sync, then reconciles mapped keys once each', async () => {
    const clock = new ManualClock(0);
    const catalogs = controllable([obj('c1', '1'), obj('c2', '2')]);
    const children = controllable([obj('m1', '3', 'c1'), obj('m2', '4', 'c1')]);
    const catalogInformer = new Informer<Obj>({ name: 'catalogs', listWatch: catalogs.lw, clock });
    const childInformer = new Informer<Obj>({ name: 'metadata', listWatch: children.lw, clock });
    const reconciled: string[] = [];
    const metrics = new RuntimeMetrics(createMetricsRegistry({ processMetrics: false }));
    const controller = new Controller({
      name: 'clustercatalog',
      clock,
      concurrency: 2,
      metrics,
      watches: [
        watch(catalogInformer, (o) => o.metadata.name),
        watch(childInformer, (o) => o.metadata.labels?.['catalog']),
      ],
      reconcile: async (key) => {
        reconciled.push(key);
      },
    });
    const ac = new AbortController();
    const informersRun = [catalogInformer.run(ac.signal), childInformer.run(ac.signal)];
    const run = controller.run(ac.signal);
    catalogs.releaseList();
    await settle();
    expect(reconciled).to.deep.equal([]); // the metadata informer has not synced yet
    children.releaseList();
    await settle();
    expect(reconciled.sort()).to.deep.equal(['c1', 'c2']);

    reconciled.length = 0;
    children.emit('DELETED', obj('m1', '11', 'c1')); // drift on a child → its owner
    await settle();
    expect(reconciled).to.deep.equal(['c1']);

    ac.abort();
    await run;
    await Promise.all(informersRun);
    const text = await metrics.registry.metrics();
    expect(text).to.include(
      'controller_runtime_reconcile_total{controller="clustercatalog",result="success"} 3',
    );
    expect(controller.queue?.shuttingDown).to.equal(true);
  });

  it('returns without reconciling when stopped before the informers synced', async () => {
    const clock = new ManualClock(0);
    const never = controllable([]);
    const informer = new Informer<Obj>({ name: 'x', listWatch: never.lw, clock });
    let calls = 0;
    const controller = new Controller({
      name: 'x',
      clock,
      watches: [watch(informer, (o) => o.metadata.name)],
      reconcile: async () => {
        calls++;
      },
    });
    const ac = new AbortController();
    const run = controller.run(ac.signal);
    ac.abort();
    await run;
    expect(calls).to.equal(0);
  });
});
