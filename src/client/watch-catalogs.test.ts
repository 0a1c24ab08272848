// CatalogClient.watchCatalogs over a fake KubeClient: the watch is re-opened after it ends or
// fails, with a delay that grows while watches deliver nothing and starts over once one does.
import { expect } from 'chai';
import type { ClusterCatalog } from '../api/v1/index.js';
import type { KubeClient, RequestOptions } from '../kube/index.js';
import { CatalogClient } from './client.js';

const catalog = (name: string) =>
  ({ metadata: { name }, spec: { source: { type: 'Image' } } }) as unknown as ClusterCatalog;

/** Each watch plays the next script entry: events then a clean end, or a failure. */
function fakeWatches(script: Array<Array<{ type: string; object: unknown }> | Error>) {
  let i = 0;
  const kube = {
    watchEvents(_path: string, opts: RequestOptions, onLine: (line: unknown) => void) {
      expect(opts.verb).to.equal('watch');
      expect(opts.resource).to.equal('clustercatalogs');
      const step = script[Math.min(i++, script.length - 1)]!;
      if (step instanceof Error) return Promise.reject(step);
      for (const ev of step) onLine(ev);
      return Promise.resolve();
    },
    close() {},
  };
  return new CatalogClient({ kube: kube as unknown as KubeClient });
}

describe('client/CatalogClient: watchCatalogs', () => {
  it('re-opens a failing watch ever more slowly, and starts over after an event', async () => {
    const down = new Error('connection refused');
    const client = fakeWatches([
      down,
      down,
      down,
      [{ type: 'ADDED', object: catalog('a') }],
      down,
      [{ type: 'BOOKMARK', object: catalog('') }],
      down,
    ]);
    const abort = new AbortController();
    const delays: number[] = [];
    const events: string[] = [];
    await client.watchCatalogs(
      (type, c) => events.push(`${type} ${c.metadata.name}`),
      abort.signal,
      {
        backoff: { initialMs: 100, maxMs: 1000 },
        sleep: (ms) => {
          delays.push(ms);
          if (delays.length === 7) abort.abort();
          return Promise.resolve();
        },
      },
    );
    // Three failures: 100, 200, 400; an event resets (100 after its clean end), the next
    // failure grows again (200); a bookmark also resets (100), the next failure 200.
    expect(delays).to.deep.equal([100, 200, 400, 100, 200, 100, 200]);
    expect(events, 'bookmarks are not reported').to.deep.equal(['ADDED a']);
  });

  it('resolves without waiting once the signal aborts', async () => {
    const abort = new AbortController();
    const client = fakeWatches([[{ type: 'MODIFIED', object: catalog('b') }]]);
    let sleeps = 0;
    await client.watchCatalogs(() => abort.abort(), abort.signal, {
      sleep: () => {
        sleeps++;
        return Promise.resolve();
      },
    });
    expect(sleeps).to.equal(0);
  });
});
