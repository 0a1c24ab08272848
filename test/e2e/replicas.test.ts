// Two controller replicas behind one round-robin endpoint, read by a client that behaves as OLM
// v1's operator-controller does (SPEC §4, docs/server.md "Revisions"): every body it keeps is the
// revision of the status it read, over many catalog updates, although the replica that is not the
// leader switches revisions later than the status says; and it gets no error at all: a replica
// holds a request for a revision it is still building until it serves it.
import { expect } from 'chai';
import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyCatalog, push, sampleDir, waitSynced, writeSampleV2 } from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { pushAndSync, setUpE2e } from '../support/e2e-setup.js';
import { kubectl } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { startOlmLikeClient } from '../support/olm-client.js';
import { pollUntil } from '../support/poll.js';
import { catalogContentHash } from '../support/revisions.js';
import { startRoundRobinProxy } from '../support/round-robin-proxy.js';
import type { RoundRobinProxy } from '../support/round-robin-proxy.js';

const UPDATES = 20;

describe('replicas e2e: every replica answers with the revision a client was pointed at', function () {
  this.timeout(600_000);
  let proxy: RoundRobinProxy;
  let leader: RunningController | undefined;
  let follower: RunningController | undefined;
  let tmp = '';
  const name = uniqueName('replicas');
  const leaseId = uniqueName('lease');
  let firstHash: string | undefined;

  before(async () => {
    ({ tmp } = await setUpE2e({ tmpPrefix: 'replicas-' }));
    proxy = await startRoundRobinProxy();
    // Both replicas put the proxy's URL in status.urls.base, as a Deployment puts its Service's.
    const args = [`--server-url=${proxy.url}`, '--content-profile=lean'];
    leader = await startController({ leaseId, args });
    const synced = await pushAndSync(name, sampleDir, `replicas:${uniqueName('v')}`);
    firstHash = synced.status?.contentHash;
    follower = await startController({ leaseId, args });
    proxy.backends.push(leader.serverUrl, follower.serverUrl);
    await pollUntil(
      async () => (await fetch(`${follower!.serverUrl}/catalogs/${name}/api/v1/all`)).ok,
      { timeoutMs: 60_000, what: 'the follower to serve the catalog' },
    );
  });

  after(async () => {
    await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    await follower?.stop();
    await leader?.stop();
    await proxy?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it(`0 stale bodies over ${UPDATES} catalog updates, through a round-robin proxy`, async () => {
    const client = startOlmLikeClient(name, process.env.KUBECONFIG ?? '');
    const expected = new Map<string, string>(); // ref → contentHash of what was pushed
    try {
      // Update 0 is the incremental bench scenario (one bundle added, one channel changed) in the
      // lean profile: 2 writes, although the revision (so urls.base) changed too.
      const writesBefore = await leader!.metric('catalogd_catalogmetadata_writes_total', {
        catalog: name,
      });
      const v2 = await writeSampleV2();
      for (let i = 0; i <= UPDATES; i++) {
        const dir = path.join(tmp, `v${i}`);
        await cp(v2, dir, { recursive: true });
        // Each update after the first changes one blob of its own schema.
        if (i > 0)
          await writeFile(
            path.join(dir, 'revision.json'),
            `${JSON.stringify({ schema: 'e2e.revision', name: 'r', update: i })}\n`,
          );
        const ref = await push(dir, `replicas:${uniqueName(`u${i}`)}`);
        expected.set(ref, await catalogContentHash(dir, name));
        await applyCatalog(name, ref);
        await pollUntil(async () => client.fetched.has(ref), {
          timeoutMs: 120_000,
          intervalMs: 50,
          what: `the client to fetch update ${i}`,
        });
        if (i === 0) {
          // HTTP serves a revision before its objects are written (serve-first): the writes are
          // counted once the object view has moved off the first revision.
          await waitSynced(name, firstHash);
          const writes =
            (await leader!.metric('catalogd_catalogmetadata_writes_total', { catalog: name })) -
            writesBefore;
          expect(writes, 'writes of the incremental update (lean profile)').to.equal(2);
        }
      }
      await rm(v2, { recursive: true, force: true });
    } finally {
      await client.stop();
    }

    const fetched = [...client.fetched.values()].filter((f) => expected.has(f.ref));
    expect(fetched).to.have.length(UPDATES + 1);
    const stale = fetched.filter((f) => f.bodyContentHash !== expected.get(f.ref));
    const retries = fetched.reduce((n, f) => n + f.retries, 0);
    const longest = Math.max(...fetched.map((f) => (f.retries > 0 ? f.msToOk : 0)));
    const statuses = [...new Set(fetched.flatMap((f) => f.retryStatuses))].sort();
    // The numbers of the closing note (docs/server.md, "Revisions"); timing is noisy here.
    console.log(
      `      replicas: ${fetched.length} refs fetched, ${stale.length} stale, ${retries} retryable answers (statuses ${statuses.join(',') || '-'}), longest retry ${Math.round(longest)} ms, requests per replica ${proxy.counts.join('/')}`,
    );
    expect(
      stale.map((f) => `${f.ref}: got ${f.bodyContentHash}, want ${expected.get(f.ref)}`),
      'bodies of another revision than the status named',
    ).to.deep.equal([]);
    // The validators are the revision's, whichever replica answered.
    for (const f of fetched)
      expect(f.etag.replace(/-gzip"$/, '"'), f.ref).to.equal(
        `"${expected.get(f.ref)!.slice('sha256:'.length)}"`,
      );
    expect(
      statuses.every((s) => s === 404 || s === 503),
      'retryable answers only',
    ).to.equal(true);
    // A replica asked for a revision it is still building holds the request until it serves it
    // (--revision-wait): the client never sees an error at a revision switch (issue 54).
    expect(retries, `non-200 answers (statuses ${statuses.join(',')})`).to.equal(0);
    expect(
      await follower!.metric('catalogd_content_revision_waits_total', { outcome: 'timeout' }),
      'requests that waited past --revision-wait',
    ).to.equal(0);
    // A conditional request with the tag one replica gave is a 304 from each (once it holds it).
    const last = fetched.at(-1)!;
    for (const backend of [leader!.serverUrl, follower!.serverUrl]) {
      const url = `${last.base.replace(proxy.url, backend)}/api/v1/all`;
      await pollUntil(
        async () => {
          const r = await fetch(url, { headers: { 'if-none-match': last.etag } });
          await r.arrayBuffer();
          if (r.status === 503) return false;
          expect(r.status, url).to.equal(304);
          return true;
        },
        { timeoutMs: 30_000, intervalMs: 20, what: `${url} to answer 304` },
      );
    }
    // Both replicas answered: the round robin reached the follower.
    expect(proxy.counts.every((n) => n > 0)).to.equal(true);
  });
});
