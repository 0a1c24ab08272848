// The drift watch pauses while a large sync writes (--drift-watch-pause-writes,
// src/controllers/runtime/watch-hold.ts) and resumes from where it stopped: drift that happens
// meanwhile is seen, and restored, after the sync's writes instead of during them. A real
// controller and apiserver; the sync is slowed by --max-write-rate so that a hand deletion lands
// inside its writes.
import { expect } from 'chai';
import {
  applyCatalog,
  getCatalog,
  listObjects,
  push,
  sampleDir,
  waitSynced,
} from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e, tearDownE2e } from '../support/e2e-setup.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

describe('drift watch pause e2e: a large sync writes with the drift watch closed', function () {
  this.timeout(240_000);
  let controller: RunningController;
  let dir: string;
  let largeRef: string;
  let sampleRef: string;

  before(async () => {
    ({ tmp: dir } = await setUpE2e({ tmpPrefix: 'catalogd-drift-pause-' }));
    // About 45 objects: at 10 writes a second its writes last about 4 s.
    await generateCatalog(dir, { seed: 44, sizeMB: 0.2 });
    largeRef = await push(dir, `drift-pause:${uniqueName('v')}`);
    sampleRef = await push(sampleDir, `sample:${uniqueName('v')}`);
    // The sample (fewer than 20 objects) syncs with the watch open; the larger catalog pauses it.
    controller = await startController({
      args: ['--drift-watch-pause-writes=20', '--max-write-rate=10'],
    });
  });

  after(async () => {
    await tearDownE2e({ controllers: [controller], tmp: dir });
  });

  it('restores drift from during the writes once they are sent, resuming the watch without a relist', async () => {
    const small = uniqueName('pause-small');
    const large = uniqueName('pause-large');
    try {
      await applyCatalog(small, sampleRef);
      await waitSynced(small);
      const watches = () =>
        controller.metric('catalogd_apiserver_requests_total', {
          verb: 'watch',
          resource: 'catalogmetadata',
        });
      const watches0 = await watches();

      await applyCatalog(large, largeRef);
      await pollUntil(async () => (await getCatalog(large)).status?.syncingTo, {
        timeoutMs: 120_000,
        intervalMs: 50,
        what: `${large} to start writing`,
      });
      const victim = (await listObjects(`catalog=${small}`)).items[0]!;
      await kubectlOk(['delete', 'catalogmetadata', victim.metadata.name, '--wait=true']);
      expect(
        (await getCatalog(large)).status?.syncingTo,
        'the deletion came while the large sync still wrote',
      ).to.be.a('string');

      // While the large sync writes, the deletion is not seen: nothing restores the object.
      const restored = async () =>
        (await listObjects(`catalog=${small}`)).items.some(
          (o) => o.metadata.name === victim.metadata.name,
        );
      let restoredWhileWriting = false;
      await pollUntil(
        async () => {
          const writing = (await getCatalog(large)).status?.syncingTo;
          if (writing && (await restored())) restoredWhileWriting = true;
          return !writing;
        },
        { timeoutMs: 120_000, intervalMs: 100, what: `${large} to end its writes` },
      );
      expect(restoredWhileWriting, 'restored while the drift watch was paused').to.equal(false);
      await waitSynced(large);
      // After the writes, the watch resumes where it stopped and the deletion is drift.
      await pollUntil(restored, { timeoutMs: 60_000, what: 'the deleted object to be restored' });
      expect(await watches(), 'the drift watch re-opened after its pause').to.be.greaterThan(
        watches0,
      );
      expect(await controller.metric('catalogd_drift_watch_pauses_total')).to.be.greaterThan(0);
    } finally {
      await kubectl(['delete', 'clustercatalog', large, small, '--wait=false']);
    }
  });
});
