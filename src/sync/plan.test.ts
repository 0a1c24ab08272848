import { expect } from 'chai';
import { metadataFingerprint, objectFingerprint, planSync, planWrites } from './plan.js';
import type { ExistingObject } from './plan.js';

const owner = 'uid-owner';
const want = (hash: string, labels: Record<string, string> = { catalog: 'c' }) =>
  objectFingerprint(hash, labels);
const have = (
  name: string,
  hash: string,
  over: Partial<ExistingObject> & { labels?: Record<string, string> } = {},
): ExistingObject => {
  const { labels = { catalog: 'c' }, ...rest } = over;
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: `rv-${name}`,
    fingerprint: objectFingerprint(hash, labels),
    ownerUid: owner,
    deleting: false,
    ...rest,
  };
};

describe('objectFingerprint', () => {
  it('is short, ignores label order and changes with the hash or any label', () => {
    const f = objectFingerprint('sha256:a', { catalog: 'c', package: 'p' });
    expect(f).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(objectFingerprint('sha256:a', { package: 'p', catalog: 'c' })).to.equal(f);
    expect(objectFingerprint('sha256:b', { catalog: 'c', package: 'p' })).to.not.equal(f);
    expect(objectFingerprint('sha256:a', { catalog: 'c', package: 'q' })).to.not.equal(f);
    expect(objectFingerprint('sha256:a', { catalog: 'c' })).to.not.equal(f);
    expect(objectFingerprint('sha256:a', { catalog: 'c', 'package=p': '' })).to.not.equal(f);
  });
});

describe('metadataFingerprint', () => {
  const meta = (omitted?: string) => ({
    labels: { catalog: 'c' },
    annotations: {
      'olm.operatorframework.io/content-hash': 'sha256:a',
      ...(omitted && { 'olm.operatorframework.io/content-omitted': omitted }),
    },
  });

  it('tells content omitted by --max-object-bytes apart, not content the apiserver refused', () => {
    expect(metadataFingerprint(meta())).to.equal(objectFingerprint('sha256:a', { catalog: 'c' }));
    expect(metadataFingerprint(meta('max-object-bytes'))).to.not.equal(metadataFingerprint(meta()));
    expect(metadataFingerprint(meta('apiserver-limit'))).to.equal(metadataFingerprint(meta()));
  });

  it('tells a lean object apart from the full one and from one omitted by --max-object-bytes', () => {
    const lean = metadataFingerprint(meta('lean'));
    expect(lean).to.not.equal(metadataFingerprint(meta()));
    expect(lean).to.not.equal(metadataFingerprint(meta('max-object-bytes')));
    expect(lean).to.equal(objectFingerprint('sha256:a', { catalog: 'c' }, 'lean'));
  });
});

describe('planSync', () => {
  it('writes nothing when every object is up to date', () => {
    const plan = planSync(
      new Map([
        ['a', want('h1')],
        ['b', want('h2')],
      ]),
      [have('a', 'h1'), have('b', 'h2')],
      owner,
    );
    expect(planWrites(plan)).to.equal(0);
    expect(plan.unchanged).to.equal(2);
  });

  it('creates missing, updates changed and deletes gone objects, sorted by name', () => {
    const desired = new Map([
      ['z-new', want('h9')],
      ['a-new', want('h8')],
      ['changed', want('h2')],
      ['same', want('h3')],
    ]);
    const plan = planSync(
      desired,
      [have('changed', 'h1'), have('same', 'h3'), have('gone', 'h4')],
      owner,
    );
    expect(plan.create).to.deep.equal(['a-new', 'z-new']);
    expect(plan.update).to.deep.equal([{ name: 'changed', resourceVersion: 'rv-changed' }]);
    expect(plan.delete).to.deep.equal([{ name: 'gone', uid: 'uid-gone' }]);
    expect(plan.unchanged).to.equal(1);
    expect(plan.unchangedOmitted).to.equal(0);
  });

  it('counts unchanged objects that carry contentOmitted', () => {
    const plan = planSync(
      new Map([['a', want('h1')]]),
      [have('a', 'h1', { omitted: true })],
      owner,
    );
    expect(plan.unchanged).to.equal(1);
    expect(plan.unchangedOmitted).to.equal(1);
  });

  it('restores labels edited by hand', () => {
    const plan = planSync(
      new Map([['a', want('h1')]]),
      [have('a', 'h1', { labels: { catalog: 'other' } })],
      owner,
    );
    expect(plan.update.map((u) => u.name)).to.deep.equal(['a']);
  });

  it('restores a spec another field manager co-owns unless its content was read equal', () => {
    const plan = planSync(
      new Map([
        ['a', want('h1')],
        ['b', want('h1')],
        ['c', want('h1')],
      ]),
      [
        have('a', 'h1', { specCoOwned: true }),
        have('b', 'h1', { specCoOwned: true, liveSpecDigest: 'd', specMatches: false }),
        have('c', 'h1', { specCoOwned: true, liveSpecDigest: 'd', specMatches: true }),
      ],
      owner,
    );
    expect(plan.update.map((u) => u.name)).to.deep.equal(['a', 'b']);
    expect(plan.unchanged).to.equal(1);
  });

  it('takes over an object owned by another (e.g. re-created) catalog of the same name', () => {
    const plan = planSync(
      new Map([['a', want('h1')]]),
      [have('a', 'h1', { ownerUid: 'old' })],
      owner,
    );
    expect(plan.update).to.have.length(1);
  });

  it('does not delete again what is already being deleted', () => {
    const plan = planSync(new Map(), [have('a', 'h1', { deleting: true })], owner);
    expect(plan.delete).to.deep.equal([]);
  });
});
