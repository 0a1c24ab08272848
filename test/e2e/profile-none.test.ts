// The content profile none (issue 39 point 7, docs/profiles.md): a catalog served over HTTP only.
// Switching a catalog to none removes its CatalogMetadata objects (through the sync journal, as
// any revision change), switching back recreates them, with no stale ones, and HTTP answers 200
// with the same content throughout: full → none → full and lean → none → lean.
import { expect } from 'chai';
import type { ContentProfile } from '../../src/api/v1/index.js';
import {
  annotateProfile,
  applyWithProfile,
  condition,
  getCatalog,
  waitSynced,
  objectsSynced,
} from '../support/catalogs.js';
import { generatedFixture } from '../support/generated-fixture.js';
import { pollUntil } from '../support/poll.js';
import type { Revision } from '../support/revisions.js';
import { matchRevision, revisionInCluster, revisionOf } from '../support/revisions.js';

const NONE_NOTE = 'content profile none';

/** Fetches the catalog's /all until stopped; every answer's status and line count. */
function watchHttp(url: string) {
  const answers: string[] = [];
  let stop = false;
  const done = (async () => {
    while (!stop) {
      const res = await fetch(url).catch((err: Error) => ({ status: err.message, text: () => '' }));
      const body = await res.text();
      answers.push(`${res.status} ${body.split('\n').filter(Boolean).length}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    answers,
    stop: async () => {
      stop = true;
      await done;
      return answers;
    },
  };
}

describe('content profile none e2e', function () {
  this.timeout(300_000);
  const f = generatedFixture('none', 12, 0.5);

  /** Annotates the catalog with `profile` and waits for the sync to be over. */
  async function switchTo(name: string, profile: ContentProfile) {
    await annotateProfile(name, profile);
    return pollUntil(
      async () => {
        const c = await getCatalog(name);
        const p = condition(c, 'Progressing');
        const none = p?.message.includes(NONE_NOTE) === true;
        return objectsSynced(c) && none === (profile === 'none') ? c : undefined;
      },
      { timeoutMs: 120_000, what: `${name} to sync with the ${profile} profile` },
    );
  }

  for (const from of ['full', 'lean'] as const) {
    it(`switches ${from} → none → ${from}: objects removed, then recreated; HTTP serves throughout`, async () => {
      const name = f.track(`none-${from}`);
      const expected: Revision = await revisionOf(f.dir, name);
      await applyWithProfile(name, f.ref, from);
      const synced = await waitSynced(name);
      const hash = synced.status?.contentHash;
      expect(matchRevision(await revisionInCluster(name), { [from]: expected }).match).to.equal(
        from,
      );
      const http = watchHttp(`${f.controller.serverUrl}/catalogs/${name}/api/v1/all`);
      try {
        const none = await switchTo(name, 'none');
        expect(none.status).to.include({ contentHash: hash, objectCount: 0, storedBytes: 0 });
        expect(condition(none, 'Serving')).to.include({ status: 'True', reason: 'Available' });
        expect(condition(none, 'Progressing')?.message).to.equal(
          `synced content ${hash}; content profile none: no CatalogMetadata objects (content on the HTTP server only)`,
        );
        expect((await revisionInCluster(name)).size, 'objects left under none').to.equal(0);
        expect(none.status?.urls?.base).to.equal(synced.status?.urls?.base);

        const back = await switchTo(name, from);
        expect(back.status).to.include({ contentHash: hash, objectCount: expected.size });
        const got = await revisionInCluster(name);
        expect(
          matchRevision(got, { [from]: expected }).match,
          'no stale or missing objects',
        ).to.equal(from);
      } finally {
        const answers = await http.stop();
        expect(answers.length).to.be.greaterThan(0);
        expect([...new Set(answers)], 'every HTTP answer during the switches').to.deep.equal([
          `200 ${expected.size}`,
        ]);
      }
    });
  }

  it('a catalog created with profile none writes no objects and serves over HTTP', async () => {
    const name = f.track('none-new');
    await applyWithProfile(name, f.ref, 'none');
    const synced = await waitSynced(name);
    expect(synced.status?.objectCount).to.equal(0);
    expect((await revisionInCluster(name)).size).to.equal(0);
    const res = await fetch(`${synced.status?.urls?.base}/api/v1/all`);
    expect(res.status).to.equal(200);
    const lines = (await res.text()).split('\n').filter(Boolean).length;
    expect(lines).to.equal((await revisionOf(f.dir, name)).size);
    const writes = await f.controller.metric('catalogd_catalogmetadata_writes_total', {
      catalog: name,
    });
    expect(writes).to.equal(0);
  });
});
