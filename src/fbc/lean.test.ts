import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { loadAll } from 'js-yaml';
import { canonicalize } from '../api/v1/index.js';
import { leanContent } from './lean.js';

const size = (v: unknown): number => Buffer.byteLength(canonicalize(v));

describe('fbc/lean: leanContent', () => {
  const csvMeta = { type: 'olm.csv.metadata', value: { description: 'long text', alm: '[]' } };
  const obj1 = { type: 'olm.bundle.object', value: { data: 'eyJhIjoxfQ==' } };
  const obj2 = { type: 'olm.bundle.object', value: { data: 'eyJiIjoyfQ==' } };
  const gvk = { type: 'olm.gvk', value: { group: 'g', kind: 'K', version: 'v1' } };
  const pkgProp = { type: 'olm.package', value: { packageName: 'etcd', version: '1.0.0' } };
  const bundle = {
    schema: 'olm.bundle',
    package: 'etcd',
    name: 'etcd.v1',
    image: 'quay.io/x/etcd@sha256:aa',
    relatedImages: [{ name: 'op', image: 'quay.io/x/op:1' }],
    properties: [gvk, obj1, csvMeta, pkgProp, obj2],
  };

  it('leaves out olm.csv.metadata and olm.bundle.object properties, keeping everything else', () => {
    const lean = leanContent('olm.bundle', bundle)!;
    expect(lean.content).to.deep.equal({
      schema: 'olm.bundle',
      package: 'etcd',
      name: 'etcd.v1',
      image: 'quay.io/x/etcd@sha256:aa',
      relatedImages: [{ name: 'op', image: 'quay.io/x/op:1' }],
      properties: [gvk, pkgProp],
    });
    expect(lean.canonical).to.equal(canonicalize(lean.content));
  });

  it('records each left-out property type once, with the sum of its canonical sizes, in a fixed order', () => {
    expect(leanContent('olm.bundle', bundle)!.parts).to.deep.equal([
      { path: 'properties[type=olm.csv.metadata]', bytes: size(csvMeta) },
      { path: 'properties[type=olm.bundle.object]', bytes: size(obj1) + size(obj2) },
    ]);
  });

  it('does not change the blob it reads', () => {
    const before = canonicalize(bundle);
    leanContent('olm.bundle', bundle);
    expect(canonicalize(bundle)).to.equal(before);
  });

  it("leaves out an olm.package blob's icon, and only that schema's", () => {
    const icon = { base64data: 'iVBORw0K', mediatype: 'image/png' };
    const pkg = { schema: 'olm.package', name: 'etcd', defaultChannel: 'stable', icon };
    const lean = leanContent('olm.package', pkg)!;
    expect(lean.content).to.deep.equal({
      schema: 'olm.package',
      name: 'etcd',
      defaultChannel: 'stable',
    });
    expect(lean.parts).to.deep.equal([{ path: 'icon', bytes: size(icon) }]);
    expect(leanContent('my.schema', { schema: 'my.schema', icon })).to.equal(undefined);
  });

  it('leaves properties out of any schema, icon first', () => {
    const icon = { base64data: 'x', mediatype: 'image/svg+xml' };
    const lean = leanContent('olm.package', {
      schema: 'olm.package',
      name: 'p',
      icon,
      properties: [csvMeta],
    })!;
    expect(lean.parts.map((p) => p.path)).to.deep.equal([
      'icon',
      'properties[type=olm.csv.metadata]',
    ]);
    expect(lean.content).to.deep.equal({ schema: 'olm.package', name: 'p', properties: [] });
    expect(
      leanContent('x.custom', { schema: 'x.custom', properties: [obj1] })!.content,
    ).to.deep.equal({ schema: 'x.custom', properties: [] });
  });

  it('has nothing to leave out of channel blobs, bundles without those properties, odd properties', () => {
    const channel = { schema: 'olm.channel', package: 'etcd', name: 'stable', entries: [] };
    expect(leanContent('olm.channel', channel)).to.equal(undefined);
    expect(leanContent('olm.bundle', { ...bundle, properties: [gvk, pkgProp] })).to.equal(
      undefined,
    );
    // Not objects, or without a string type: kept as they are.
    const odd = { schema: 'olm.bundle', properties: ['olm.csv.metadata', null, { type: 1 }] };
    expect(leanContent('olm.bundle', odd)).to.equal(undefined);
    expect(leanContent('olm.bundle', { schema: 'olm.bundle', properties: { type: 'x' } })).to.equal(
      undefined,
    );
  });

  describe('on real blobs (test/fixtures/lean/real-blobs.yaml)', () => {
    const [pkg, bundle420, bundle416] = loadAll(
      readFileSync('test/fixtures/lean/real-blobs.yaml', 'utf8'),
    ) as Array<Record<string, unknown>>;

    it('keeps identity, image, relatedImages and the properties resolvers read', () => {
      for (const b of [bundle420!, bundle416!]) {
        const lean = leanContent('olm.bundle', b)!;
        const { properties, ...rest } = lean.content;
        const { properties: _all, ...fullRest } = b;
        expect(rest).to.deep.equal(fullRest);
        expect((properties as Array<{ type: string }>).map((p) => p.type)).to.deep.equal([
          'olm.gvk',
          'olm.package',
        ]);
      }
    });

    it('records the bytes left out: the full blob is the lean one plus the parts (and commas)', () => {
      const lean420 = leanContent('olm.bundle', bundle420!)!;
      expect(lean420.parts.map((p) => p.path)).to.deep.equal(['properties[type=olm.csv.metadata]']);
      const lean416 = leanContent('olm.bundle', bundle416!)!;
      expect(lean416.parts.map((p) => p.path)).to.deep.equal([
        'properties[type=olm.bundle.object]',
      ]);
      // Each left-out property also took a comma in the properties array.
      expect(size(bundle420) - lean420.canonical.length).to.equal(lean420.parts[0]!.bytes + 1);
      expect(size(bundle416) - lean416.canonical.length).to.equal(lean416.parts[0]!.bytes + 2);
      // Most of a real bundle is display-only.
      expect(lean420.canonical.length).to.be.below(size(bundle420) / 4);
      const leanPkg = leanContent('olm.package', pkg!)!;
      expect(leanPkg.parts).to.deep.equal([{ path: 'icon', bytes: size(pkg!.icon) }]);
      expect(leanPkg.content).to.not.have.property('icon');
      expect(leanPkg.content).to.include({ name: 'cat-facts-operator', defaultChannel: 'stable' });
    });
  });
});
