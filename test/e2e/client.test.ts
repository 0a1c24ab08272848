// The client library against a real controller and apiserver: label-selected lists, watches,
// and the consistent-list protocol, which must return exactly one revision even while the
// controller is replacing every object of the catalog with a new revision.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CatalogMetadata, ClusterCatalog } from '../../src/api/v1/index.js';
import { ANNOTATION_CONTENT_HASH } from '../../src/api/v1/index.js';
import type { ConsistentList, MetadataEventType } from '../../src/client/index.js';
import {
  CatalogClient,
  CatalogNotFoundError,
  isChannelBlob,
  objectName,
} from '../../src/client/index.js';
import { readCatalog } from '../../src/fbc/index.js';
import { pushCatalog } from '../../src/source/index.js';
import { applyCatalog, objectsSynced } from '../support/catalogs.js';
import { repoRoot } from '../support/cluster.js';
import type { RunningController } from '../support/controller.js';
import { startController } from '../support/controller.js';
import { generateCatalog } from '../support/fbcgen.js';
import { kubectlOk } from '../support/kubectl.js';
import { uniqueName } from '../support/names.js';
import { pollUntil } from '../support/poll.js';

/** Object name → content hash: what a revision's objects are. */
async function expectedObjects(
  dir: string,
  catalog: string,
  packages?: Set<string>,
): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  for await (const b of readCatalog(dir, { catalog })) {
    m.set(objectName(b.identity), b.hash);
    if (b.schema === 'olm.package') packages?.add(objectName(b.identity));
  }
  return m;
}

function actualObjects(items: CatalogMetadata[]): Map<string, string> {
  return new Map(
    items.map((o) => [o.metadata.name, o.metadata.annotations?.[ANNOTATION_CONTENT_HASH] ?? '']),
  );
}

async function waitHash(client: CatalogClient, name: string, notHash?: string): Promise<string> {
  return pollUntil(
    async () => {
      const c: ClusterCatalog | undefined = await client.getCatalog(name);
      const h = c?.status?.contentHash;
      return c && objectsSynced(c) && h && h !== notHash ? h : undefined;
    },
    { timeoutMs: 180_000, what: `ClusterCatalog ${name} to sync` },
  );
}

describe('client library e2e: lists, watches, consistent lists', function () {
  this.timeout(600_000);
  let controller: RunningController;
  let client: CatalogClient;
  let tmp: string;
  const name = uniqueName('client');
  let rev1: Map<string, string>;
  let rev2: Map<string, string>;
  const packages2 = new Set<string>();
  let ref2: string;
  let hash1: string;

  before(async () => {
    await kubectlOk(['apply', '--server-side', '-f', path.join(repoRoot, 'crds')]);
    tmp = await mkdtemp(path.join(os.tmpdir(), 'client-e2e-'));
    const d1 = path.join(tmp, 'r1');
    const d2 = path.join(tmp, 'r2');
    await generateCatalog(d1, { seed: 21, sizeMB: 1 });
    await generateCatalog(d2, { seed: 22, sizeMB: 1 });
    rev1 = await expectedObjects(d1, name);
    rev2 = await expectedObjects(d2, name, packages2);
    const repo = `${process.env.REGISTRY}/e2e/client`;
    const ref1 = (await pushCatalog(d1, `${repo}:${uniqueName('r1')}`)).ref;
    ref2 = (await pushCatalog(d2, `${repo}:${uniqueName('r2')}`)).ref;
    client = new CatalogClient();
    controller = await startController();
    await applyCatalog(name, ref1);
    hash1 = await waitHash(client, name);
  });

  after(async () => {
    await kubectlOk(['delete', 'clustercatalog', name, '--ignore-not-found', '--wait=false']);
    await controller?.stop();
    client?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('consistentList returns the whole revision, with its contentHash', async () => {
    const list = await client.consistentList({ catalog: name });
    expect(list.contentHash).to.equal(hash1);
    expect(list.revisions).to.deep.equal({ [name]: hash1 });
    expect(actualObjects(list.items)).to.deep.equal(rev1);
    expect(rev1.size).to.be.greaterThan(200);
  });

  it('label-selected queries, checked exactly against spec', async () => {
    const channels: CatalogMetadata[] = [];
    for await (const o of client.listMetadata({ catalog: name, schema: 'olm.channel' }))
      channels.push(o);
    expect(channels.length).to.be.greaterThan(0);
    const pkg = channels[0]!.spec.package!;
    const view = await client.consistentList({
      catalog: name,
      packageOrName: pkg,
      schema: ['olm.package', 'olm.channel'],
    });
    expect(view.items.map((o) => o.spec.schema)).to.include.members(['olm.package', 'olm.channel']);
    for (const o of view.items) expect(o.spec.package ?? o.spec.name).to.equal(pkg);
    const blob = await client.blobOf(channels[0]!);
    expect(isChannelBlob(blob)).to.equal(true);
    try {
      await client.consistentList({ catalog: uniqueName('missing') });
      expect.fail('no error');
    } catch (err) {
      expect(err).to.be.instanceOf(CatalogNotFoundError);
    }
  });

  it('never returns a mix while every object is replaced by a new revision; watch sees the change', async () => {
    const { items, resourceVersion } = await client.listMetadataWithVersion({
      catalog: name,
      schema: 'olm.package',
    });
    const watched: Array<{ type: MetadataEventType; obj: CatalogMetadata }> = [];
    const abort = new AbortController();
    const watch = client
      .watchMetadata(
        { catalog: name, schema: 'olm.package' },
        resourceVersion,
        (type, obj) => watched.push({ type, obj }),
        abort.signal,
      )
      .catch(() => {});

    await applyCatalog(name, ref2);
    const results: ConsistentList[] = [];
    let done = false;
    const hash2Promise = waitHash(client, name, hash1).finally(() => (done = true));
    while (!done) {
      results.push(
        await client.consistentList({ catalog: name }, { timeoutMs: 120_000, backoffMs: 50 }),
      );
    }
    const hash2 = await hash2Promise;
    results.push(await client.consistentList({ catalog: name }));
    abort.abort();
    await watch;

    const expected: Record<string, Map<string, string>> = { [hash1]: rev1, [hash2]: rev2 };
    for (const r of results) {
      expect(r.contentHash).to.be.oneOf([hash1, hash2]);
      expect(actualObjects(r.items)).to.deep.equal(expected[r.contentHash!]);
    }
    expect(results[results.length - 1]!.contentHash).to.equal(hash2);
    const retried = results.reduce((n, r) => n + r.retries, 0);
    console.log(
      `      ${results.length} consistent lists during the sync (${results.filter((r) => r.contentHash === hash1).length} of the old revision), ${retried} retries`,
    );

    // The watch saw the old packages go and the new ones come (the seeds give other names).
    const oldNames = new Set(items.map((o) => o.metadata.name));
    const deleted = watched.filter((e) => e.type === 'DELETED').map((e) => e.obj.metadata.name);
    const added = watched.filter((e) => e.type === 'ADDED').map((e) => e.obj.metadata.name);
    const newPackages = [...packages2].filter((n) => !oldNames.has(n));
    expect(deleted.filter((n) => oldNames.has(n)).length).to.be.greaterThan(0);
    expect(added).to.include.members(newPackages);
  });
});
