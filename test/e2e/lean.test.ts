// The lean content profile (issue 25, SPEC §2.2, docs/profiles.md) against the real control
// plane: a catalog annotated lean syncs small objects whose content-hash annotation is the full
// blob's and whose contentOmitted.url serves the full blob; `catalogd render --content-profile
// lean` diffs clean against them; switching full → lean → full writes only the objects the
// profile changes. With $CATALOGD_REAL_CATALOGS (as in gitops.test.ts), also measures real
// catalogs: their lean objects' spec bytes against the catalog's content bytes (≤ 0.3×).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CatalogMetadata, ContentProfile } from '../../src/api/v1/index.js';
import { blobHash, readCatalog, toCatalogMetadata } from '../../src/fbc/index.js';
import { scanCatalog } from '../../src/sync/index.js';
import {
  condition,
  getCatalog,
  installCrds,
  push,
  waitSynced,
  writtenBytes,
} from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const PROFILE_ANNOTATION = 'olm.operatorframework.io/content-profile';
const LEAN_NOTE = 'content profile lean';

/** Real catalogs to measure: directories in $CATALOGD_REAL_CATALOGS (colon-separated, `dir[@max]`). */
const REAL = (process.env.CATALOGD_REAL_CATALOGS ?? '')
  .split(':')
  .filter((s) => s !== '')
  .map((s) => s.split('@')[0] ?? '');

async function applyWithProfile(name: string, ref: string, profile?: ContentProfile) {
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name, ...(profile && { annotations: { [PROFILE_ANNOTATION]: profile } }) },
      spec: { source: { type: 'Image', image: { ref } } },
    }),
  );
}

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

/** `catalogd render` as a user runs it, its YAML written to `out`. */
async function renderTo(dir: string, out: string, args: string[]): Promise<void> {
  const file = createWriteStream(out);
  await new Promise<void>((resolve) => file.once('open', () => resolve()));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cmd/catalogd.ts'), 'render', dir, ...args],
    { cwd: repoRoot, stdio: ['ignore', file, 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  file.close();
  if (code !== 0) throw new Error(`catalogd render exited ${code}: ${stderr}`);
}

describe('lean content profile e2e', function () {
  this.timeout(300_000);
  let tmp = '';
  let dir = '';
  let ref = '';
  let controller: RunningController | undefined;
  const catalogs: string[] = [];

  before(async () => {
    await installCrds();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'catalog-lean-'));
    dir = path.join(tmp, 'catalog');
    // Packages with icons, bundles with olm.csv.metadata and olm.bundle.object properties.
    await generateCatalog(dir, { seed: 11, sizeMB: 0.5 });
    ref = await push(dir, `lean:${uniqueName('v')}`);
    controller = await startController();
  });

  after(async () => {
    await controller?.stop();
    for (const name of catalogs) await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('a lean catalog syncs small objects: full hashes, the full blob at contentOmitted.url, render diffs clean', async () => {
    const c = controller!;
    const name = uniqueName('lean');
    catalogs.push(name);
    await applyWithProfile(name, ref, 'lean');
    const synced = await waitSynced(name);
    expect(condition(synced, 'Progressing')?.message).to.contain(LEAN_NOTE);

    const objects = await objectsOf(name);
    const { hashes, bytes } = await blobsOf(dir, name);
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
    const rendered = path.join(tmp, 'lean.yaml');
    await renderTo(dir, rendered, [
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
    const c = controller!;
    const name = uniqueName('switch');
    catalogs.push(name);
    await applyWithProfile(name, ref);
    await waitSynced(name);
    const total = (await objectsOf(name)).length;
    let changed = 0;
    await scanCatalog(
      {
        catalog: { name, uid: '' },
        dir,
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
      await kubectlOk([
        'annotate',
        'clustercatalog',
        name,
        `${PROFILE_ANNOTATION}=${profile}`,
        '--overwrite',
      ]);
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
      const name = uniqueName('lean-real');
      catalogs.push(name);
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
