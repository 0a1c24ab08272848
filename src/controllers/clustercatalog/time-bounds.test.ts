// The reconcile's time bound and interrupts, on a manual clock: a pull that never finishes ends
// Retrying with what was slow after the pull timeout; an interrupt ends it quietly; a blob that
// disagrees with its descriptor is Blocked under a digest and polled again under a tag; waiting
// for a write slot does not count against the pull timeout.
import { expect } from 'chai';
import { clusterCatalog } from '../../../test/support/cluster-catalog.js';
import type { ClusterCatalog } from '../../api/v1/index.js';
import { retryable, terminal } from '../../source/errors.js';
import type { PullOptions } from '../../source/index.js';
import { ManualClock } from '../../util/clock.js';
import { isTerminal } from '../../util/errors.js';
import type { Puller, ReconcileDeps, ReconcilePorts, Syncer } from './reconcile.js';
import { reconcileCatalog } from './reconcile.js';
import { SyncSlots } from './sync-slots.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const HASH = `sha256:${'b'.repeat(64)}`;

function catalog(ref: string, pollIntervalMinutes?: number): ClusterCatalog {
  return clusterCatalog({
    generation: 2,
    image: { ref, ...(pollIntervalMinutes && { pollIntervalMinutes }) },
    status: { contentHash: HASH, objectCount: 3 },
  });
}

/** A pull that reports a layer's progress and then waits until its signal aborts. */
const hangingPuller = (seen: PullOptions[] = []): Puller => ({
  resolve: async () => DIGEST,
  pull: async (_ref, opts = {}) => {
    seen.push(opts);
    opts.activity?.doing('fetching layer 1 of reg.example/ops:v1', () => '12.3 MB of 40.0 MB');
    return new Promise((_, reject) => {
      opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason as Error));
    });
  },
});

/** A pull that finds the image in the cache at once. */
const cachedPuller: Puller = {
  resolve: async () => DIGEST,
  pull: async (ref) => ({
    ref,
    digest: DIGEST,
    dir: '/c',
    configsDir: '/c/configs',
    cached: true,
  }),
};

const syncer: Syncer = {
  plan: async (target, signal) => {
    signal?.throwIfAborted();
    return {
      target,
      scan: {
        desired: new Map(),
        contentHash: HASH,
        blobs: 3,
        omitted: 0,
        bytes: 1,
        storedBytes: 1,
      },
      plan: { create: [], update: [], delete: [], unchanged: 3, unchangedOmitted: 0 },
      dispose: async () => {},
    };
  },
  apply: async () => ({ omitted: 0, storedBytesDelta: 0 }),
  deleteAll: async () => 0,
};

function deps(
  puller: Puller,
  clock: ManualClock,
  extra: Partial<ReconcilePorts> = {},
): ReconcileDeps {
  return {
    ports: {
      puller,
      syncer,
      content: {
        baseUrl: (c) => `http://content.example/catalogs/${c}`,
        blobUrl: () => 'http://content.example/blob',
        prepare: async () => HASH,
        publish: async () => {},
        remove: async () => {},
      },
      status: { write: async () => {} },
      ...extra,
    },
    settings: { maxObjectBytes: 1 << 20, pullTimeoutMs: 10 * 60_000 },
    clock: { date: () => clock.date(), random: () => 0, timers: clock },
  };
}

const progressing = (c: {
  status: { conditions?: { type: string; reason: string; message: string }[] };
}) => c.status.conditions?.find((x) => x.type === 'Progressing');

describe('reconcile time bounds', () => {
  it('a pull that does not finish ends Retrying after the pull timeout, saying what was slow', async () => {
    const clock = new ManualClock();
    const out = reconcileCatalog(catalog('reg.example/ops:v1'), deps(hangingPuller(), clock));
    await clock.advance(10 * 60_000);
    const o = await out;
    expect(progressing(o)?.reason).to.equal('Retrying');
    expect(progressing(o)?.message).to.contain(
      'timed out after 10m0s fetching layer 1 of reg.example/ops:v1: 12.3 MB of 40.0 MB',
    );
    // The previous revision stays in status.
    expect(o.status.contentHash).to.equal(HASH);
    expect(isTerminal(o.error?.cause)).to.equal(false);
  });

  it('the parse is inside the bound: a scan that does not finish ends Retrying too', async () => {
    const clock = new ManualClock();
    const slowScan: Syncer = {
      ...syncer,
      plan: (_target, signal) =>
        new Promise((_, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('scan aborted'))),
        ),
    };
    const out = reconcileCatalog(
      catalog('reg.example/ops:v1'),
      deps(cachedPuller, clock, { syncer: slowScan }),
    );
    await clock.advance(10 * 60_000);
    const o = await out;
    expect(progressing(o)?.reason).to.equal('Retrying');
    expect(progressing(o)?.message).to.equal(
      'timed out after 10m0s parsing the catalog of reg.example/ops:v1',
    );
  });

  it('an interrupt (catalog deleted or changed) ends the attempt at once, reporting nothing', async () => {
    const clock = new ManualClock();
    const interrupt = new AbortController();
    const written: unknown[] = [];
    const d = deps(hangingPuller(), clock, {
      status: { write: async (s) => void written.push(s) },
    });
    const out = reconcileCatalog(catalog('reg.example/ops:v1'), d, undefined, interrupt.signal);
    await clock.advance(1000);
    interrupt.abort(new Error('deleted'));
    const err = await out.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.equal('deleted');
    expect(written).to.deep.equal([]);
  });

  it('a blob that disagrees with its descriptor is Blocked under a digest', async () => {
    const clock = new ManualClock();
    const mismatch = retryable(
      'SizeMismatch',
      'layer 1: size mismatch: got 10 bytes, descriptor says 20',
    );
    const puller: Puller = {
      resolve: async () => DIGEST,
      pull: async () => Promise.reject(mismatch),
    };
    const o = await reconcileCatalog(catalog(`reg.example/ops@${DIGEST}`), deps(puller, clock));
    expect(progressing(o)?.reason).to.equal('Blocked');
    expect(progressing(o)?.message).to.contain('got 10 bytes, descriptor says 20');
    expect(isTerminal(o.error?.cause)).to.equal(true);
  });

  it('under a tag it is Retrying, looked at again on the poll interval', async () => {
    const clock = new ManualClock();
    const mismatch = retryable('DigestMismatch', 'layer 1: digest mismatch');
    const puller: Puller = {
      resolve: async () => DIGEST,
      pull: async () => Promise.reject(mismatch),
    };
    const o = await reconcileCatalog(catalog('reg.example/ops:v1', 5), deps(puller, clock));
    expect(progressing(o)?.reason).to.equal('Retrying');
    expect(o.requeueAfterMs).to.equal(5 * 60_000);
  });

  it('an invalid layer is Blocked under a digest, and Retrying on the poll interval under a tag', async () => {
    const clock = new ManualClock();
    // As the puller reports it: pulled by digest, so final for that digest.
    const invalid = new Error(
      'pull catalog image reg.example/ops@x: layer 1: invalid tar archive',
      {
        cause: terminal('InvalidLayer', 'layer 1: invalid tar archive at the first entry'),
      },
    );
    const puller: Puller = {
      resolve: async () => DIGEST,
      pull: async () => Promise.reject(invalid),
    };
    const pinned = await reconcileCatalog(
      catalog(`reg.example/ops@${DIGEST}`),
      deps(puller, clock),
    );
    expect(progressing(pinned)?.reason).to.equal('Blocked');
    const tagged = await reconcileCatalog(catalog('reg.example/ops:v1', 5), deps(puller, clock));
    expect(progressing(tagged)?.reason).to.equal('Retrying');
    expect(progressing(tagged)?.message).to.equal(progressing(pinned)?.message);
    expect(isTerminal(tagged.error?.cause)).to.equal(false);
    expect(tagged.requeueAfterMs).to.equal(5 * 60_000);
  });

  it('waiting for a write slot does not count against the pull timeout', async () => {
    const clock = new ManualClock();
    const slots = new SyncSlots(1);
    const release = await slots.acquire();
    const out = reconcileCatalog(
      catalog('reg.example/ops:v1'),
      deps(cachedPuller, clock, { syncSlots: slots }),
    );
    await clock.advance(30 * 60_000); // three pull timeouts, all spent waiting for the slot
    release();
    const o = await out;
    expect(progressing(o)?.reason).to.equal('Succeeded');
  });
});
