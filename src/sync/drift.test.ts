import { expect } from 'chai';
import { toCatalogMetadata } from '../fbc/index.js';
import type { Blob } from '../fbc/index.js';
import { blobHash, canonicalize } from '../fbc/index.js';
import type { SpecLike } from './drift.js';
import { isUpToDate, noteSpecAgreement, specCoOwned, specDigest } from './drift.js';
import type { ExistingObject } from './plan.js';
import { metadataFingerprint } from './plan.js';

describe('sync/drift: what counts as drift', () => {
  const have: ExistingObject = {
    name: 'a',
    uid: 'u',
    resourceVersion: '1',
    fingerprint: 'f',
    ownerUid: 'owner',
    deleting: false,
  };

  it('an owned object with the desired fingerprint and a spec only the controller owns is up to date', () => {
    expect(isUpToDate('f', have, 'owner')).to.equal(true);
    expect(isUpToDate('g', have, 'owner')).to.equal(false);
    expect(isUpToDate('f', have, 'other')).to.equal(false);
    expect(isUpToDate('f', { ...have, deleting: true }, 'owner')).to.equal(false);
  });

  it('a co-owned spec is judged by its content: equal is up to date, different or unread is drift', () => {
    const coOwned = { ...have, specCoOwned: true };
    expect(isUpToDate('f', coOwned, 'owner')).to.equal(false); // not read
    expect(isUpToDate('f', { ...coOwned, specMatches: false }, 'owner')).to.equal(false);
    expect(isUpToDate('f', { ...coOwned, specMatches: true }, 'owner')).to.equal(true);
    // Content equal does not excuse other drift.
    expect(isUpToDate('g', { ...coOwned, specMatches: true }, 'owner')).to.equal(false);
  });

  it('noteSpecAgreement compares the read digest with the desired one, only for co-owned specs', () => {
    const read = { ...have, specCoOwned: true, liveSpecDigest: 'x' };
    noteSpecAgreement(read, () => 'x');
    expect(read.specMatches).to.equal(true);
    noteSpecAgreement(read, () => 'y');
    expect(read.specMatches).to.equal(false);
    const ours = { ...have };
    noteSpecAgreement(ours, () => {
      throw new Error('the desired digest is not computed for a spec only we own');
    });
    expect(ours.specMatches).to.equal(undefined);
  });

  it('spec fields owned by another field manager make the spec co-owned', () => {
    const spec = { 'f:spec': {} };
    expect(specCoOwned(undefined, 'me')).to.equal(false);
    expect(specCoOwned([{ manager: 'me', fieldsV1: spec }], 'me')).to.equal(false);
    expect(specCoOwned([{ manager: 'kubectl', fieldsV1: { 'f:metadata': {} } }], 'me')).to.equal(
      false,
    );
    expect(specCoOwned([{ manager: 'gitops', fieldsV1: spec }], 'me')).to.equal(true);
  });

  it('the desired spec (content hash from the blob) and the same spec as read have one digest', () => {
    const content = { schema: 'olm.bundle', package: 'p', name: 'p.v1', z: [1, 2.5, 'é'], a: null };
    const canonical = canonicalize(content);
    const blob = {
      schema: 'olm.bundle',
      package: 'p',
      name: 'p.v1',
      content,
      canonical,
      hash: blobHash(canonical),
      bytes: Buffer.byteLength(canonical),
      identity: { catalog: 'ops', schema: 'olm.bundle', package: 'p', name: 'p.v1' },
    } as unknown as Blob;
    const obj = toCatalogMetadata(blob);
    // As the apiserver returns it: JSON, keys in any order.
    const read = JSON.parse(JSON.stringify({ ...obj.spec, content: { ...content, a: null } })) as {
      content: unknown;
    };
    expect(specDigest(read)).to.equal(specDigest(obj.spec, blob.hash));
    expect(specDigest({ ...read, content: { ...content, z: [1] } })).to.not.equal(
      specDigest(obj.spec, blob.hash),
    );
    expect(specDigest({ ...read, package: 'q' })).to.not.equal(specDigest(obj.spec, blob.hash));
    const omitted = { ...obj.spec, content: undefined, contentOmitted: { bytes: 9, url: 'u' } };
    expect(specDigest(omitted)).to.equal(
      specDigest(JSON.parse(JSON.stringify(omitted)) as SpecLike),
    );
    expect(specDigest(omitted)).to.not.equal(specDigest(read));
  });

  it('labels other tools add are not drift; ours are', () => {
    const labels = { catalog: 'ops', schema: 'olm.package', packageOrName: 'p', name: 'p' };
    const annotations = { 'olm.operatorframework.io/content-hash': 'sha256:1' };
    const want = metadataFingerprint({ labels, annotations });
    expect(
      metadataFingerprint({
        labels: { ...labels, 'app.kubernetes.io/instance': 'gitops' },
        annotations: { ...annotations, 'argocd.argoproj.io/tracking-id': 'x' },
      }),
    ).to.equal(want);
    expect(metadataFingerprint({ labels: { ...labels, catalog: 'x' }, annotations })).to.not.equal(
      want,
    );
  });
});
