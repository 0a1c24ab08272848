import { expect } from 'chai';
import { ANNOTATION_CONTENT_HASH } from '../api/v1/index.js';
import { blobHash, canonicalize } from '../api/v1/index.js';
import type { Blob } from './catalog.js';
import { objectName } from './identity.js';
import type { BlobIdentity } from './identity.js';
import { leanContent } from './lean.js';
import {
  catalogMetadataLabels,
  hasPartialContent,
  serializeCatalogMetadata,
  toCatalogMetadata,
} from './objects.js';

function blob(content: Record<string, unknown>, identity: BlobIdentity): Blob {
  const canonical = canonicalize(content);
  const b: Blob = {
    identity,
    schema: identity.schema,
    content,
    canonical,
    hash: blobHash(canonical),
    bytes: Buffer.byteLength(canonical),
    position: { file: 'f', line: 1, column: 1, offset: 0 },
  };
  if (identity.package !== undefined) b.package = identity.package;
  if (identity.name !== undefined) b.name = identity.name;
  return b;
}

const owner = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  name: 'ops',
  uid: 'u-1',
  controller: true,
  blockOwnerDeletion: true,
};

describe('fbc/objects: toCatalogMetadata', () => {
  const id = { catalog: 'ops', schema: 'olm.bundle', package: 'etcd', name: 'etcd.v1' };
  const b = blob({ schema: 'olm.bundle', package: 'etcd', name: 'etcd.v1', image: 'x' }, id);

  it('builds name, labels, annotation and spec', () => {
    const o = toCatalogMetadata(b, { ownerReference: owner });
    expect(o).to.deep.equal({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'CatalogMetadata',
      metadata: {
        name: objectName(id),
        labels: {
          catalog: 'ops',
          schema: 'olm.bundle',
          package: 'etcd',
          name: 'etcd.v1',
          packageOrName: 'etcd',
        },
        annotations: { [ANNOTATION_CONTENT_HASH]: b.hash },
        ownerReferences: [owner],
      },
      spec: {
        catalog: { name: 'ops' },
        schema: 'olm.bundle',
        package: 'etcd',
        name: 'etcd.v1',
        content: b.content,
      },
    });
  });

  it('labels: packageOrName falls back to name; no label for an absent field; values encoded', () => {
    expect(catalogMetadataLabels({ catalog: 'c', schema: 'olm.package', name: 'p' })).to.deep.equal(
      { catalog: 'c', schema: 'olm.package', name: 'p', packageOrName: 'p' },
    );
    expect(catalogMetadataLabels({ catalog: 'c', schema: 'x', disambiguator: 'aa' })).to.deep.equal(
      { catalog: 'c', schema: 'x' },
    );
    expect(catalogMetadataLabels({ catalog: 'c', schema: 'x', name: 'a b' }).name).to.match(
      /^a_b-[0-9a-f]{16}$/,
    );
  });

  it('keeps content within maxObjectBytes, and omits it beyond, with bytes and url', () => {
    const small = toCatalogMetadata(b, { maxObjectBytes: 10000, contentUrl: () => 'u' });
    expect(small.spec.content).to.deep.equal(b.content);
    const size = Buffer.byteLength(JSON.stringify(small));
    expect(
      toCatalogMetadata(b, { maxObjectBytes: size, contentUrl: () => 'u' }).spec.content,
    ).to.deep.equal(b.content);
    const big = toCatalogMetadata(b, {
      maxObjectBytes: size - 1,
      contentUrl: (x) => `https://h/catalogs/ops/api/v1/metas?name=${x.name}`,
    });
    expect(big.spec.content).to.equal(undefined);
    expect(big.spec.contentOmitted).to.deep.equal({
      bytes: b.bytes,
      url: 'https://h/catalogs/ops/api/v1/metas?name=etcd.v1',
    });
    expect(big.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
      'max-object-bytes',
    );
    expect(small.metadata.annotations).to.not.have.property(
      'olm.operatorframework.io/content-omitted',
    );
  });

  it('omits the content whatever its size when the apiserver refused the object', () => {
    const o = toCatalogMetadata(b, {
      maxObjectBytes: 1 << 20,
      contentUrl: () => 'u',
      omitContent: 'apiserver-limit',
    });
    expect(o.spec.content).to.equal(undefined);
    expect(o.spec.contentOmitted).to.deep.equal({ bytes: b.bytes, url: 'u' });
    expect(o.metadata.annotations?.['olm.operatorframework.io/content-omitted']).to.equal(
      'apiserver-limit',
    );
  });

  it('needs a contentUrl to omit content', () => {
    expect(() => toCatalogMetadata(b, { maxObjectBytes: 10 })).to.throw(/no contentUrl/);
  });

  it('does not share the owner reference object', () => {
    const o = toCatalogMetadata(b, { ownerReference: owner });
    expect(o.metadata.ownerReferences![0]).not.to.equal(owner);
  });
});

describe('fbc/objects: toCatalogMetadata with the lean profile', () => {
  const id = { catalog: 'ops', schema: 'olm.bundle', package: 'etcd', name: 'etcd.v1' };
  const csvMeta = { type: 'olm.csv.metadata', value: { description: 'd'.repeat(2000) } };
  const gvk = { type: 'olm.gvk', value: { group: 'g', kind: 'K', version: 'v1' } };
  const content = {
    schema: 'olm.bundle',
    package: 'etcd',
    name: 'etcd.v1',
    image: 'x',
    properties: [gvk, csvMeta],
  };
  const b = blob(content, id);
  const url = (x: { name?: string }) => `https://h/catalogs/ops/api/v1/metas?name=${x.name}`;
  const lean = (maxObjectBytes?: number) =>
    toCatalogMetadata(b, {
      ownerReference: owner,
      contentUrl: url,
      profile: 'lean',
      ...(maxObjectBytes !== undefined && { maxObjectBytes }),
    });

  it("keeps the full blob's hash, marks the object lean and records what was left out and where", () => {
    const o = lean(1 << 20);
    const full = toCatalogMetadata(b, { ownerReference: owner, contentUrl: url });
    expect(o.metadata.annotations).to.deep.equal({
      [ANNOTATION_CONTENT_HASH]: b.hash,
      'olm.operatorframework.io/content-omitted': 'lean',
    });
    expect(o.metadata.name).to.equal(full.metadata.name);
    expect(o.metadata.labels).to.deep.equal(full.metadata.labels);
    expect(o.spec.content).to.deep.equal({ ...content, properties: [gvk] });
    expect(o.spec.contentOmitted).to.deep.equal({
      bytes: b.bytes,
      url: 'https://h/catalogs/ops/api/v1/metas?name=etcd.v1',
      parts: [
        {
          path: 'properties[type=olm.csv.metadata]',
          bytes: Buffer.byteLength(canonicalize(csvMeta)),
        },
      ],
    });
    expect(hasPartialContent(o.spec)).to.equal(true);
    expect(hasPartialContent(full.spec)).to.equal(false);
  });

  it('builds the same object as full for a blob with nothing to leave out', () => {
    const channel = blob(
      { schema: 'olm.channel', package: 'etcd', name: 'stable', entries: [{ name: 'etcd.v1' }] },
      { catalog: 'ops', schema: 'olm.channel', package: 'etcd', name: 'stable' },
    );
    const opts = { ownerReference: owner, contentUrl: url, maxObjectBytes: 1 << 20 };
    expect(toCatalogMetadata(channel, { ...opts, profile: 'lean' })).to.deep.equal(
      toCatalogMetadata(channel, opts),
    );
  });

  it('keeps a lean object whose full form would pass maxObjectBytes', () => {
    const fullSize = Buffer.byteLength(
      JSON.stringify(toCatalogMetadata(b, { ownerReference: owner })),
    );
    const o = lean(fullSize - 1);
    expect(o.spec.contentOmitted?.parts).to.have.length(1);
    expect(o.spec.content).to.not.equal(undefined);
  });

  it('omits the whole content when even the lean object passes maxObjectBytes', () => {
    const leanSize = Buffer.byteLength(JSON.stringify(lean(1 << 20)));
    expect(lean(leanSize).spec.content).to.not.equal(undefined);
    const o = lean(leanSize - 1);
    expect(o.spec.content).to.equal(undefined);
    expect(o.spec.contentOmitted).to.deep.equal({
      bytes: b.bytes,
      url: 'https://h/catalogs/ops/api/v1/metas?name=etcd.v1',
    });
    expect(o.metadata.annotations).to.deep.equal({
      [ANNOTATION_CONTENT_HASH]: b.hash,
      'olm.operatorframework.io/content-omitted': 'max-object-bytes',
    });
  });

  it('needs a contentUrl for a blob it reduces', () => {
    expect(() => toCatalogMetadata(b, { profile: 'lean' })).to.throw(/no contentUrl/);
  });

  it('serializes the partial content, not the blob', () => {
    const o = lean(1 << 20);
    const text = serializeCatalogMetadata(o, b.canonical);
    expect(JSON.parse(text)).to.deep.equal(o);
    expect(text).to.include(`"content":${leanContent('olm.bundle', content)!.canonical}}}`);
  });
});

describe('fbc/objects: serializeCatalogMetadata', () => {
  const id = { catalog: 'ops', schema: 'olm.bundle', package: 'etcd', name: 'etcd.v1' };
  // Keys out of order and nested, so the canonical form differs from JSON.stringify's text.
  const content = {
    schema: 'olm.bundle',
    package: 'etcd',
    name: 'etcd.v1',
    z: [1, { b: 'é\n', a: null }],
    a: 1.5,
  };
  const b = blob(content, id);

  it('is the object as JSON, with the canonical content spliced in', () => {
    const o = toCatalogMetadata(b, { ownerReference: owner });
    o.metadata.resourceVersion = '42';
    const text = serializeCatalogMetadata(o, b.canonical);
    expect(JSON.parse(text)).to.deep.equal(o);
    expect(text).to.include(`"content":${b.canonical}}}`);
    expect(text).to.not.include('\n');
  });

  it('is plain JSON when the content is omitted', () => {
    const o = toCatalogMetadata(b, { maxObjectBytes: 10, contentUrl: () => 'u' });
    expect(serializeCatalogMetadata(o, b.canonical)).to.equal(JSON.stringify(o));
  });
});
