import { expect } from 'chai';
import type { CatalogMetadata } from '../api/v1/index.js';
import type { CatalogMetadataObjects, ListedMetadata } from './catalogmetadata-writer.js';
import { catalogMetadataWriter, toExisting } from './catalogmetadata-writer.js';
import { specDigest } from './drift.js';
import { ObjectTooLargeError } from './writer-port.js';
import { KubeApiError } from '../kube/index.js';

/** The apiserver's error for a status and reason (413 is its refusal of a body's size). */
const apiError = (status: number, reason: string) =>
  new KubeApiError(status, reason, reason, 'write', 'catalogmetadatas');

const body = (name: string, resourceVersion?: string) =>
  JSON.stringify({
    metadata: { name, ...(resourceVersion !== undefined && { resourceVersion }) },
    spec: {},
  });

/** A fake of the apiserver's CatalogMetadata requests: answers from `fail`, records the rest. */
function fakeObjects(fail: Array<(verb: string) => Error | undefined>, currentVersion?: string) {
  const calls: string[] = [];
  const next = (verb: string) => {
    const err = fail.shift()?.(verb);
    if (err) throw err;
  };
  const rv = (obj: CatalogMetadata | Buffer | string) =>
    (typeof obj === 'string' || Buffer.isBuffer(obj)
      ? (JSON.parse(obj.toString()) as CatalogMetadata)
      : obj
    ).metadata.resourceVersion ?? '-';
  const objects: CatalogMetadataObjects = {
    async get(name) {
      calls.push(`get ${name}`);
      if (currentVersion === undefined) throw apiError(404, 'NotFound');
      return { metadata: { resourceVersion: currentVersion } };
    },
    async createQuietly(obj, _signal, opts) {
      calls.push(`create rv=${rv(obj)}${opts?.dryRun ? ' dryRun' : ''}`);
      next('create');
    },
    async updateQuietly(name, obj, _signal, opts) {
      calls.push(`update ${name} rv=${rv(obj)}${opts?.dryRun ? ' dryRun' : ''}`);
      next('update');
    },
    async delete(name, pre) {
      calls.push(`delete ${name} uid=${pre?.uid}`);
      next('delete');
    },
  };
  return { objects, calls };
}

const writerOver = (objects: CatalogMetadataObjects) =>
  catalogMetadataWriter({
    objects,
    metadata: { listAll: async function* () {} },
    fieldManager: 'catalogd-ts',
  });

describe('sync/catalogmetadata-writer: the CatalogMetadata policy over the apiserver', () => {
  it('takes over an object of that name that exists unlisted (AlreadyExists)', async () => {
    const { objects, calls } = fakeObjects([() => apiError(409, 'AlreadyExists')], '7');
    await writerOver(objects).create({ name: 'a', body: body('a') });
    expect(calls).to.deep.equal(['create rv=-', 'get a', 'update a rv=7']);
  });

  it('an update refused as Conflict is retried once on the current version', async () => {
    const { objects, calls } = fakeObjects([() => apiError(409, 'Conflict')], '9');
    await writerOver(objects).update({ name: 'a', body: body('a', '3') });
    expect(calls).to.deep.equal(['update a rv=3', 'get a', 'update a rv=9']);
  });

  it('an update of an object deleted meanwhile creates it, without a resourceVersion', async () => {
    const { objects, calls } = fakeObjects([() => apiError(404, 'NotFound')]);
    await writerOver(objects).update({ name: 'a', body: body('a', '3') });
    expect(calls).to.deep.equal(['update a rv=3', 'get a', 'create rv=-']);
  });

  it('other refusals are the caller’s; size refusals become ObjectTooLargeError', async () => {
    const refused = fakeObjects([() => apiError(422, 'Invalid')]);
    const err = await writerOver(refused.objects)
      .create({ name: 'a', body: body('a') })
      .catch((e: unknown) => e);
    expect((err as { status: number }).status).to.equal(422);
    const large = fakeObjects([() => apiError(413, 'RequestEntityTooLarge')]);
    const tooLarge = await writerOver(large.objects)
      .create({ name: 'a', body: body('a') })
      .catch((e: unknown) => e);
    expect(tooLarge).to.be.instanceOf(ObjectTooLargeError);
  });

  it('a delete of an object already gone is done; dry-runs ask for dryRun', async () => {
    const { objects, calls } = fakeObjects([() => apiError(404, 'NotFound')]);
    const writer = writerOver(objects);
    await writer.delete('a', 'u1');
    await writer.dryRun?.('create', { name: 'b', body: body('b') });
    await writer.dryRun?.('update', { name: 'b', body: body('b', '4') });
    expect(calls).to.deep.equal(['delete a uid=u1', 'create rv=- dryRun', 'update b rv=4 dryRun']);
  });

  it('a listed object: its owner, deletion, omission, generation and whether others own spec fields', () => {
    const listed: ListedMetadata = {
      metadata: {
        name: 'a',
        uid: 'u',
        resourceVersion: '5',
        generation: 3,
        annotations: { 'olm.operatorframework.io/content-omitted': 'max-object-bytes' },
        ownerReferences: [{ uid: 'owner', controller: true }],
        managedFields: [{ manager: 'kubectl-edit', fieldsV1: { 'f:spec': {} } }],
      },
    };
    const o = toExisting(listed, 'catalogd-ts');
    expect(o).to.include({
      name: 'a',
      uid: 'u',
      resourceVersion: '5',
      ownerUid: 'owner',
      deleting: false,
      omitted: true,
      generation: 3,
      specCoOwned: true,
    });
  });

  it('reads a co-owned spec once per uid and generation, and reports one gone as undefined', async () => {
    const gets: string[] = [];
    let generation = 1;
    let content: unknown = { b: 2, a: 1 };
    const objects: CatalogMetadataObjects = {
      ...fakeObjects([]).objects,
      async get(name) {
        gets.push(name);
        if (name === 'gone') throw apiError(404, 'NotFound');
        return { metadata: { uid: 'u', generation }, spec: { schema: 's', content } };
      },
    };
    const writer = writerOver(objects);
    const have = (g: number, name = 'a') => ({
      name,
      uid: name === 'a' ? 'u' : 'v',
      resourceVersion: '1',
      fingerprint: 'f',
      deleting: false,
      generation: g,
      specCoOwned: true,
    });
    const first = await writer.liveSpecDigest?.(have(1));
    expect(first).to.equal(specDigest({ schema: 's', content: { a: 1, b: 2 } }));
    expect(await writer.liveSpecDigest?.(have(1))).to.equal(first);
    expect(gets).to.deep.equal(['a']); // remembered: no second read
    generation = 2;
    content = { a: 1, b: 3 };
    const second = await writer.liveSpecDigest?.(have(2));
    expect(second).to.not.equal(first);
    expect(gets).to.deep.equal(['a', 'a']);
    expect(await writer.liveSpecDigest?.(have(1, 'gone'))).to.equal(undefined);
  });
});
