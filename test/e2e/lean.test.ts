// The lean content profile (issue 25, SPEC §2.2, docs/profiles.md) against the real control
// plane: a catalog annotated lean syncs small objects whose content-hash annotation is the full
// blob's and whose contentOmitted.url serves the full blob; `catalogd render --content-profile
// lean` diffs clean against them; switching full → lean → full writes only the objects the
// profile changes. With $CATALOGD_REAL_CATALOGS (as in gitops.test.ts), also measures real
// catalogs: their lean objects' spec bytes against the catalog's content bytes (≤ 0.3×).
import { expect } from 'chai';
import path from 'node:path';
import type { CatalogMetadata } from '../../src/api/v1/index.js';
import { blobHash, readCatalog, toCatalogMetadata } from '../../src/fbc/index.js';
import { scanCatalog } from '../../src/sync/index.js';
import {
  condition,
  getCatalog,
  annotateProfile,
  applyWithProfile,
  push,
  waitSynced,
  writtenBytes,
} from '../support/catalogs.js';
import { renderTo } from '../support/render.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { generatedFixture } from '../support/generated-fixture.js';
import { pollUntil } from '../support/poll.js';

const LEAN_NOTE = 'content profile lean';

/** Real catalogs to measure: directories in $CATALOGD_REAL_CATALOGS (colon-separated, `dir[@max]`). */
const REAL = (process.env.CATALOGD_REAL_CATALOGS ?? '')
  .split(':')
  .filter((s) => s !== '')
  .map((s) => s.split('@')[0] ?? '');

async function objectsOf(catalog: string): Promise<CatalogMetadata[]> {
  const list = JSON.parse(
    await kubectlOk(['get', 'catalogmetadata', '-l', `catalog=${catalog}`, '-o', 'json']),
  ) as { items: CatalogMetadata[] };
  return list.items;
}

const specBytes = (objects: CatalogMetadata[]) =>
  objects.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o.spec)), 0);

/** Name → content hash of the blobs of a catalog directory, and their canonical bytes. */
async function blobsOf(dir: string, catalog: string) {
  const hashes = new Map<string, string>();
  let bytes = 0;
  for await (const b of readCatalog(dir, { catalog })) {
    hashes.set(toCatalogMetadata(b).metadata.name, b.hash);
    bytes += b.bytes;
  }
  return { hashes, bytes };
}

describe('lean content profile e2e', function () {
  this.timeout(300_000);
  // Packages with icons, bundles with olm.csv.metadata and olm.bundle.object properties.
  const f = generatedFixture('lean', 11, 0.5);

  it('a lean catalog syncs small objects: full hashes, the full blob at contentOmitted.url, render diffs clean', async () => {
    const c = f.controller;
    const name = f.track('lean');
    await applyWithProfile(name, f.ref, 'lean');
    const synced = await waitSynced(name);
    expect(condition(synced, 'Progressing')?.message).to.contain(LEAN_NOTE);

    const objects = await objectsOf(name);
    const { hashes, bytes } = await blobsOf(f.dir, name);
    expect(objects).to.have.length(hashes.size);
    for (const o of objects) {
      expect(o.metadata.annotations?.['olm.operatorframework.io/content-hash']).to.equal(
        hashes.get(o.metadata.name),
      );
    }
    const lean = objects.filter((o) => o.spec.contentOmitted?.parts);
    expect(new Set(lean.map((o) => o.spec.schema))).to.deep.equal(
      new Set(['olm.package', 'olm.bundle']),
    );
    const ratio = specBytes(objects) / bytes;
    console.log(
      `      ${objects.length} objects (${lean.length} lean): spec ${specBytes(objects)} bytes for ${bytes} content bytes (${ratio.toFixed(3)}x)`,
    );
    expect(ratio).to.be.below(0.5);
    // status.storedBytes counts the lean objects at their stored (partial) size.
    expect(synced.status?.storedBytes).to.equal(writtenBytes(objects));

    // The URL serves the whole blob: its hash is the annotation's.
    for (const o of lean) {
      const res = await fetch(o.spec.contentOmitted!.url);
      expect(res.status).to.equal(200);
      const line = (await res.text()).trim();
      expect(blobHash(line)).to.equal(
        o.metadata.annotations?.['olm.operatorframework.io/content-hash'],
      );
      expect(Buffer.byteLength(line)).to.equal(o.spec.contentOmitted!.bytes);
    }

    // render --content-profile lean is what the controller stores.
    const rendered = path.join(f.tmp, 'lean.yaml');
    await renderTo(f.dir, rendered, [
      '--catalog',
      name,
      '--server-url',
      c.serverUrl,
      '--content-profile',
      'lean',
    ]);
    const diff = await kubectl(['diff', '--server-side', '-f', rendered]);
    expect([diff.code, diff.stdout, diff.stderr]).to.deep.equal([0, '', '']);
  });

  it('switching a catalog full → lean → full writes only the objects the profile changes', async () => {
    const c = f.controller;
    const name = f.track('switch');
    await applyWithProfile(name, f.ref);
    await waitSynced(name);
    const total = (await objectsOf(name)).length;
    let changed = 0;
    await scanCatalog(
      {
        catalog: { name, uid: '' },
        dir: f.dir,
        maxObjectBytes: 1 << 20,
        contentUrl: () => 'u',
        contentProfile: 'lean',
      },
      undefined,
      (obj) => void (obj.spec.contentOmitted?.parts && changed++),
    );
    expect(changed).to.be.greaterThan(0).and.below(total);

    for (const profile of ['lean', 'full'] as const) {
      const writes = (verb: string) =>
        c.metric('catalogd_catalogmetadata_writes_total', { catalog: name, verb });
      const before = {
        update: await writes('update'),
        other: (await writes('create')) + (await writes('delete')),
      };
      await annotateProfile(name, profile);
      await pollUntil(
        async () => {
          const cat = await getCatalog(name);
          const message = condition(cat, 'Progressing')?.message ?? '';
          return !cat.status?.syncingTo && message.includes(LEAN_NOTE) === (profile === 'lean');
        },
        { timeoutMs: 120_000, what: `${name} to sync with the ${profile} profile` },
      );
      expect((await writes('update')) - before.update, `updates to ${profile}`).to.equal(changed);
      expect((await writes('create')) + (await writes('delete'))).to.equal(before.other);
      const objects = await objectsOf(name);
      const leanNow = objects.filter((o) => o.spec.contentOmitted?.parts).length;
      expect(leanNow).to.equal(profile === 'lean' ? changed : 0);
    }
  });

  for (const realDir of REAL) {
    it(`real catalog ${realDir}: lean spec bytes ≤ 0.3× the catalog's content bytes`, async () => {
      const name = f.track('lean-real');
      const realRef = await push(realDir, `lean-real:${uniqueName('v')}`);
      await applyWithProfile(name, realRef, 'lean');
      await waitSynced(name, undefined, 600_000);
      const objects = await objectsOf(name);
      const { bytes } = await blobsOf(realDir, name);
      const lean = specBytes(objects);
      let full = 0;
      for await (const b of readCatalog(realDir, { catalog: name }))
        full += Buffer.byteLength(JSON.stringify(toCatalogMetadata(b).spec));
      console.log(
        `      ${realDir}: ${objects.length} objects; content ${bytes} bytes; spec bytes full ${full}, lean ${lean} (${(lean / bytes).toFixed(3)}x content, ${(lean / full).toFixed(3)}x full)`,
      );
      expect(lean / bytes).to.be.at.most(0.3);
      await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    });
  }
});
