// Oversized blobs (issue 7, SPEC §2.2): an object over --max-object-bytes is created with
// spec.contentOmitted {bytes, url} instead of its content; with the flag raised above etcd's
// real request limit (1.5 MiB), the apiserver refuses the whole object, and the controller
// writes it again without content. Either way every blob has its object, the content is on
// the HTTP server at the url, and Progressing counts the omitted ones.
import { expect } from 'chai';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalize } from '../../src/fbc/index.js';
import {
  applyCatalog,
  condition,
  listObjects,
  push,
  sampleDir,
  waitSynced,
  writtenBytes,
} from '../support/catalogs.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { setUpE2e } from '../support/e2e-setup.js';
import { kubectl, kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

const MEDIUM = 'utility-operator.v0.1.5'; // ~40 KB: over a 16 KiB flag, far under etcd's limit
const HUGE = 'utility-operator.v0.1.9'; // ~1.8 MB: over etcd's 1.5 MiB request limit

function bundle(name: string, payloadBytes: number): Record<string, unknown> {
  return {
    schema: 'olm.bundle',
    package: 'utility-operator',
    name,
    image: `quay.io/example/utility-operator-bundle:${name}`,
    properties: [
      { type: 'olm.package', value: { packageName: 'utility-operator', version: name.slice(18) } },
      { type: 'olm.bundle.object', value: { data: 'A'.repeat(payloadBytes) } },
    ],
  };
}

describe('resilience e2e: oversized blobs', function () {
  this.timeout(300_000);
  let dir = '';
  let ref = '';
  const controllers: RunningController[] = [];
  const catalogs: string[] = [];

  before(async () => {
    ({ tmp: dir } = await setUpE2e({ tmpPrefix: 'catalog-oversized-' }));
    await cp(sampleDir, dir, { recursive: true });
    const file = path.join(dir, 'utility-operator', 'catalog.json');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      `${text.trimEnd()}\n${JSON.stringify(bundle(MEDIUM, 40_000))}\n${JSON.stringify(bundle(HUGE, 1_800_000))}\n`,
    );
    ref = await push(dir, `oversized:${uniqueName('v')}`);
  });

  after(async () => {
    for (const c of controllers) await c.stop();
    for (const name of catalogs) await kubectl(['delete', 'clustercatalog', name, '--wait=false']);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function syncWith(maxObjectBytes: number) {
    // One controller at a time: two with different flags would each rewrite the other's objects.
    for (const c of controllers.splice(0)) await c.stop();
    const controller = await startController({ args: [`--max-object-bytes=${maxObjectBytes}`] });
    controllers.push(controller);
    const name = uniqueName('oversized');
    catalogs.push(name);
    await applyCatalog(name, ref);
    const synced = await waitSynced(name);
    const objects = (await listObjects(`catalog=${name}`)).items;
    const byName = (bundleName: string) => {
      const o = objects.find((x) => x.metadata.labels?.name === bundleName);
      if (!o) throw new Error(`no object for ${bundleName}`);
      return o;
    };
    return { controller, synced, objects, byName };
  }

  /** The blob behind a contentOmitted url, as canonical JSON. */
  async function fetchOmitted(url: string): Promise<string> {
    const res = await fetch(url);
    expect(res.status, url).to.equal(200);
    const lines = (await res.text()).trim().split('\n');
    expect(lines).to.have.length(1);
    return lines[0] ?? '';
  }

  it('omits the content of objects over --max-object-bytes, and nothing else', async () => {
    const { synced, objects, byName } = await syncWith(16 * 1024);
    expect(objects).to.have.length(11);
    expect(synced.status?.objectCount).to.equal(11);
    expect(condition(synced, 'Progressing')?.message).to.contain(
      '; 2 too large for the apiserver carry contentOmitted',
    );
    for (const bundleName of [MEDIUM, HUGE]) {
      const o = byName(bundleName);
      const omitted = o.spec.contentOmitted as { bytes: number; url: string };
      expect(o.spec.content).to.equal(undefined);
      expect(o.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
        'max-object-bytes',
      );
      const blob = await fetchOmitted(omitted.url);
      expect(blob).to.equal(
        canonicalize(bundle(bundleName, bundleName === MEDIUM ? 40_000 : 1_800_000)),
      );
      expect(Buffer.byteLength(blob)).to.equal(omitted.bytes);
    }
    const withContent = objects.filter((o) => o.spec.content !== undefined);
    expect(withContent).to.have.length(9);
  });

  it('with the flag above etcd’s limit, writes what the apiserver refuses without content', async () => {
    const { controller, synced, objects, byName } = await syncWith(8 * 1024 * 1024);
    expect(objects).to.have.length(11);
    expect(condition(synced, 'Progressing')?.message).to.contain(
      '; 1 too large for the apiserver carry contentOmitted',
    );
    expect(byName(MEDIUM).spec.content).to.not.equal(undefined);
    const huge = byName(HUGE);
    expect(huge.spec.content).to.equal(undefined);
    expect(huge.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
      'apiserver-limit',
    );
    // status.storedBytes counts the refused object at its stored size, without its content.
    expect(synced.status?.storedBytes).to.equal(writtenBytes(objects));
    const omitted = huge.spec.contentOmitted as { bytes: number; url: string };
    expect(await fetchOmitted(omitted.url)).to.equal(canonicalize(bundle(HUGE, 1_800_000)));

    // Stable: a resync writes nothing (the refused object is not tried again with content).
    const name = synced.metadata.name;
    const writes = await controller.metric('catalogd_catalogmetadata_writes_total');
    const reconciles = await controller.metric('controller_runtime_reconcile_total', {
      controller: 'clustercatalog',
    });
    await kubectlOk(['annotate', 'clustercatalog', name, `resync=${uniqueName('now')}`]);
    await pollUntil(
      async () =>
        (await controller.metric('controller_runtime_reconcile_total', {
          controller: 'clustercatalog',
        })) > reconciles,
      { timeoutMs: 60_000, what: 'the resync' },
    );
    expect(await controller.metric('catalogd_catalogmetadata_writes_total')).to.equal(writes);
  });
});
