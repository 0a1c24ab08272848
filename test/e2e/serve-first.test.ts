// Serving as soon as the content is (issue 39 point 2; docs/api.md "Two views of a catalog"): a
// new revision is served over HTTP, and named by status.urls.base with Serving=True, once it is
// pulled, parsed and published; its CatalogMetadata objects follow. The object view (contentHash,
// syncingTo) keeps the consistent-list protocol of SPEC §2.1 exact meanwhile. Two real ways to
// hold the objects back: a first sync of a 3 MB catalog written one object at a time, and a
// ValidatingAdmissionPolicy that refuses every CatalogMetadata write of the catalog.
import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterCatalog } from '../../src/api/v1/index.js';
import { revisionKey, revisionKeyOf } from '../../src/api/v1/index.js';
import { CatalogClient } from '../../src/client/index.js';
import {
  applyCatalog,
  condition,
  getCatalog,
  push,
  sampleDir,
  waitSynced,
  writeSampleV2,
} from '../support/catalogs.js';
import { refusingPolicy, waitUntilRefused } from '../support/admission-policy.js';
import type { RunningController } from '../support/controller.js';
import { setUpE2e } from '../support/e2e-setup.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';
import type { Revision } from '../support/revisions.js';
import {
  catalogContentHash,
  matchRevision,
  revisionInCluster,
  revisionOf,
} from '../support/revisions.js';

/** The lines /api/v1/all of urls.base answers, with its status. */
async function fetchAll(c: ClusterCatalog): Promise<{ status: number; lines: number }> {
  const res = await fetch(`${c.status?.urls?.base}/api/v1/all`);
  const body = await res.text();
  return { status: res.status, lines: body.split('\n').filter(Boolean).length };
}

/** A policy that refuses every CatalogMetadata create and update of one catalog. */
function refuseAll(name: string, catalog: string): string {
  return refusingPolicy(
    name,
    `!(has(object.metadata.labels) && object.metadata.labels['catalog'] == '${catalog}')`,
    `the e2e policy holds the objects of ${catalog}`,
  );
}

describe('serve-first e2e: HTTP serves a revision before its objects are written', function () {
  this.timeout(400_000);
  let controller: RunningController | undefined;
  let client: CatalogClient | undefined;
  let tmp = '';
  const catalogs: string[] = [];

  before(async () => {
    ({ tmp, controller } = await setUpE2e({
      tmpPrefix: 'serve-first-',
      // One write at a time: a 3 MB catalog's objects take seconds to write.
      controller: { args: ['--write-concurrency=1'] },
    }));
    client = new CatalogClient();
  });

  after(async () => {
    client?.close();
    await controller?.stop();
    for (const name of catalogs) await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('a new catalog is Serving, with its revision at urls.base, while its objects are written', async () => {
    const name = uniqueName('first');
    catalogs.push(name);
    const dir = path.join(tmp, 'gen');
    await generateCatalog(dir, { seed: 9, sizeMB: 3 });
    const expected = await revisionOf(dir, name);
    const hash = await catalogContentHash(dir, name);
    await applyCatalog(name, await push(dir, `serve-first:${uniqueName('v')}`));
    // The journal is written with the HTTP view: both at once, before the first object.
    const early = await pollUntil(
      async () => {
        const c = await getCatalog(name);
        return c.status?.syncingTo ? c : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 50, what: `${name} to start writing its objects` },
    );
    expect(early.status?.syncingTo).to.equal(hash);
    expect(early.status?.contentHash, 'no object revision yet').to.equal(undefined);
    expect(revisionKeyOf(early.status?.urls?.base)).to.equal(revisionKey(hash));
    expect(condition(early, 'Serving')).to.include({ status: 'True', reason: 'Available' });
    // Progressing as upstream means it (the revision is served); the objects' progress is ours.
    expect(condition(early, 'Progressing')).to.include({ status: 'True', reason: 'Succeeded' });
    expect(condition(early, 'ObjectsSynced')?.message).to.match(/^writing \d+\/\d+ objects$/);
    const written = (await revisionInCluster(name)).size;
    expect(written, 'objects written when Serving was announced').to.be.below(expected.size);
    expect(await fetchAll(early)).to.deep.equal({ status: 200, lines: expected.size });
    // The object view has no revision yet: a consistent list started now waits for the whole
    // revision (syncingTo is set), never returns part of it.
    const first = await client!.consistentList({ catalog: name }, { timeoutMs: 120_000 });
    expect(first.contentHash).to.equal(hash);
    expect(first.items).to.have.length(expected.size);

    const synced = await waitSynced(name);
    expect(synced.status?.contentHash).to.equal(hash);
    expect(synced.status?.objectSourceRef).to.equal(synced.status?.resolvedSource?.image.ref);
    expect(synced.status?.lastUnpacked, 'not bumped by the object writes').to.equal(
      early.status?.lastUnpacked,
    );
    const list = await client!.consistentList({ catalog: name });
    expect(list.contentHash).to.equal(hash);
    expect(list.items).to.have.length(expected.size);
  });

  it('an update refused for objects: HTTP serves it, the object view stays the previous revision, exactly', async () => {
    const name = uniqueName('held');
    const policyName = uniqueName('hold-objects');
    catalogs.push(name);
    const v2Dir = await writeSampleV2();
    try {
      const v1Ref = await push(sampleDir, `sample:${uniqueName('v1')}`);
      const v2Ref = await push(v2Dir, `sample:${uniqueName('v2')}`);
      const v1Rev = await revisionOf(sampleDir, name);
      const v2Rev = await revisionOf(v2Dir, name);
      const v2Hash = await catalogContentHash(v2Dir, name);
      await applyCatalog(name, v1Ref);
      const v1 = await waitSynced(name);

      await kubectlOk(['apply', '-f', '-'], refuseAll(policyName, name));
      await waitUntilRefused(name);
      await applyCatalog(name, v2Ref);
      const held = await pollUntil(
        async () => {
          const c = await getCatalog(name);
          const refused = condition(c, 'Progressing')?.message.includes('holds the objects');
          return refused && !c.status?.syncingTo ? c : undefined;
        },
        { timeoutMs: 120_000, what: `${name}'s objects to be refused and rolled back` },
      );
      // The HTTP view: the new revision, served.
      expect(held.status?.resolvedSource?.image.ref).to.match(/@sha256:/);
      expect(held.status?.resolvedSource?.image.ref).to.not.equal(v1.status?.objectSourceRef);
      expect(revisionKeyOf(held.status?.urls?.base)).to.equal(revisionKey(v2Hash));
      expect(condition(held, 'Serving')).to.include({ status: 'True', reason: 'Available' });
      expect(await fetchAll(held)).to.deep.equal({ status: 200, lines: v2Rev.size });
      // The object view: the previous revision, whole, and the protocol says so exactly.
      expect(held.status?.contentHash).to.equal(v1.status?.contentHash);
      expect(held.status?.objectSourceRef).to.equal(v1.status?.objectSourceRef);
      expect(held.status?.objectCount).to.equal(v1Rev.size);
      const list = await client!.consistentList({ catalog: name });
      expect(list.contentHash).to.equal(v1.status?.contentHash);
      const listed: Revision = new Map(
        list.items.map((o) => [
          o.metadata.name,
          o.metadata.annotations?.['olm.operatorframework.io/content-hash'] ?? '',
        ]),
      );
      expect(matchRevision(listed, { v1: v1Rev, v2: v2Rev }).match).to.equal('v1');

      await kubectlOk(['delete', '-f', '-'], refuseAll(policyName, name));
      const v2 = await waitSynced(name, v1.status?.contentHash);
      expect(v2.status?.contentHash).to.equal(v2Hash);
      expect(v2.status?.objectSourceRef).to.equal(held.status?.resolvedSource?.image.ref);
      expect(matchRevision(await revisionInCluster(name), { v1: v1Rev, v2: v2Rev }).match).to.equal(
        'v2',
      );
    } finally {
      await kubectl(['delete', '-f', '-', '--ignore-not-found'], refuseAll(policyName, name));
      await rm(v2Dir, { recursive: true, force: true });
    }
  });
});
