import { expect } from 'chai';
import { dryRunPatch, mergePatch } from './patch.js';
import type { ServedObject } from './served-object.js';

const live: ServedObject = {
  apiVersion: 'content.olm.operatorframework.io/v1',
  kind: 'CatalogMetadata',
  metadata: {
    name: 'o',
    uid: 'u',
    resourceVersion: 'rv',
    creationTimestamp: 't',
    labels: { a: '1' },
  },
  spec: { catalog: { name: 'ops' }, schema: 's', content: { list: [1, 2] } },
};

describe('dry-run patch', () => {
  it('merges as RFC 7386 says (null removes, lists replaced)', () => {
    expect(
      mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1] }, { a: null, b: { c: 4 }, l: [2] }),
    ).to.deep.equal({ b: { c: 4, d: 3 }, l: [2] });
  });

  it('answers the patched object, keeping the fields the server owns and dropping last-applied', () => {
    const patched = dryRunPatch(
      live,
      'application/merge-patch+json',
      JSON.stringify({
        metadata: {
          name: 'o',
          uid: 'other',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
        },
        spec: { content: { list: [3] } },
      }),
    );
    expect(patched.metadata).to.deep.equal({ ...live.metadata, annotations: {} });
    expect(patched.spec.content).to.deep.equal({ list: [3] });
  });

  it('reads an apply patch as YAML', () => {
    const applied =
      'apiVersion: content.olm.operatorframework.io/v1\nkind: CatalogMetadata\nmetadata:\n  name: o\n  labels:\n    b: "2"\n';
    expect(
      dryRunPatch(live, 'application/apply-patch+yaml', applied).metadata.labels,
    ).to.deep.equal({ a: '1', b: '2' });
  });

  const refused: Array<[string, string, number, string]> = [
    ['application/json-patch+json', '[]', 415, 'is not supported on CatalogMetadata views'],
    ['text/plain', '{}', 415, 'accepted media types include'],
    ['application/merge-patch+json', '{', 400, 'the body of the request was in an unknown format'],
    [
      'application/merge-patch+json',
      '{"metadata":{"name":"p"}}',
      400,
      'does not match the name on the URL',
    ],
    ['application/merge-patch+json', '{"kind":"Other"}', 400, 'changes apiVersion or kind'],
  ];
  for (const [type, body, code, message] of refused)
    it(`refuses ${type} ${body} with ${code}`, () => {
      expect(() => dryRunPatch(live, type, body))
        .to.throw(message)
        .with.property('code', code);
    });
});
